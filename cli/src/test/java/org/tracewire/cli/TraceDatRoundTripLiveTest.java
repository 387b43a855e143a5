package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.TestInstances;
import org.tracewire.tracefs.Tracefs;

/**
 * trace.dat → pcapng → trace.dat: {@code trace-cmd record -k -d -B} (its own instance), then
 * {@code import} and {@code export} (wire format v2: the pcapng carries what the trace.dat needs, no
 * {@code --formats}); {@code trace-cmd report} of the exported file must equal
 * {@code trace-cmd report} of the original, line by line, once the instance-name column the
 * original has (and the exported top-level buffer has not) is dropped. Also {@code report}
 * prints as many events as {@code trace-cmd report}, and {@code report --json} one object each.
 */
@Tag("live")
class TraceDatRoundTripLiveTest {
    @TempDir
    Path dir;

    @Test
    void reportOfTheExportedFileEqualsReportOfTheOriginal() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireTool("trace-cmd");
        String inst = TestInstances.nameFor(ProcessHandle.current().pid(), "roundtrip");
        Path dat = dir.resolve("orig.dat");
        try {
            run(List.of("trace-cmd", "record", "-k", "-d", "-B", inst, "-e", "sched", "-e", "timer", "-e", "irq",
                    "-e", "syscalls:sys_enter_openat", "-e", "syscalls:sys_exit_openat", "-o", dat.toString(), "sh", "-c",
                    "for i in $(seq 50); do ls / >/dev/null; done; sleep 0.3"));
        } finally {
            if (top.instanceNames().contains(inst)) {
                top.instance(inst).close();
            }
        }
        Path pcap = dir.resolve("frames.pcapng");
        Path back = dir.resolve("back.dat");
        assertEquals(0, cli("import", dat.toString(), "-w", pcap.toString()).rc);
        Result ex = cli("export", pcap.toString(), "-o", back.toString());
        assertEquals(0, ex.rc, ex.err);
        List<String> original = report(dat, inst + ": ");
        List<String> exported = report(back, null);
        assertTrue(original.size() > 500, "only " + original.size() + " events");
        assertEquals(original.size(), exported.size(), "events");
        for (int i = 0; i < original.size(); i++) {
            assertEquals(original.get(i), exported.get(i), "line " + i);
        }
        Result ours = cli("report", dat.toString());
        assertEquals(0, ours.rc, ours.err);
        assertEquals(original.size(), ours.out.lines().count(), "report vs trace-cmd report");
        Result json = cli("report", "--json", dat.toString());
        assertEquals(original.size(), json.out.lines().filter(l -> l.startsWith("{\"cpu\"") || l.startsWith("{\"buffer\"")).count());
    }

    private List<String> report(Path file, String prefix) throws Exception {
        List<String> out = new ArrayList<>();
        for (String l : run(List.of("trace-cmd", "report", "-i", file.toString())).split("\n")) {
            if (l.startsWith("cpus=") || l.startsWith("version =") || l.isBlank()) {
                continue;
            }
            out.add(prefix != null && l.startsWith(prefix) ? l.substring(prefix.length()) : l);
        }
        return out;
    }

    private String run(List<String> cmd) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), cmd + " timed out");
        assertEquals(0, p.exitValue(), cmd + " failed");
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    record Result(int rc, String out, String err) {
    }

    private static Result cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
