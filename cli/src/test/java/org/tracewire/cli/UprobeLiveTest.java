package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * {@code capture --uprobe} (issue 35): a return probe on bash's {@code readline} records the lines
 * an interactive bash reads, in the kernel's text; the probe is gone after the capture, and after
 * a {@code kill -9} once the next capture has run.
 */
@Tag("live")
@Tag("concurrent")
class UprobeLiveTest {
    static final String PROBE = "bash:readline%return line=+0($retval):string";

    private static String run(PrintStream err, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = Main.run(args, new PrintStream(out), err);
        assertEquals(0, rc, out.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void readlineReturnsTheLinesTyped(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireTool("script");
        Prerequisites.requireTool("bash");
        Path file = dir.resolve("readline.pcapng");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        run(new PrintStream(err), "capture", "--uprobe", PROBE, "-w", file.toString(), "--", "sh", "-c",
                "printf 'echo hello-one\\necho hello-two\\nexit\\n' | script -qc 'bash --norc -i' /dev/null >/dev/null");
        List<String> lines = run(new PrintStream(new ByteArrayOutputStream()), "report", file.toString()).lines()
                .filter(l -> l.contains("readline__return:")).toList();
        String all = String.join("\n", lines) + "\n" + err.toString(StandardCharsets.UTF_8);
        assertTrue(lines.stream().anyMatch(l -> l.endsWith(" line=\"echo hello-one\"")), all);
        assertTrue(lines.stream().anyMatch(l -> l.endsWith(" line=\"echo hello-two\"")), all);
        // the kernel's head (print_uprobe_event), not the print fmt's
        assertTrue(lines.stream().allMatch(l -> l.matches(
                "\\s*bash-\\d+\\s+\\[\\d+\\] \\S{5}\\s+[\\d.]+: readline__return: \\(0x[0-9a-f]+ <- 0x[0-9a-f]+\\) line=.*")),
                all);
        assertFalse(top.read("uprobe_events").contains("tracewire_" + ProcessHandle.current().pid() + "/"),
                "the probe is removed: " + top.read("uprobe_events"));
    }

    @Test
    void aKilledCapturesProbeIsRemovedByTheNextCapture(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "org.tracewire.cli.Main", "capture", "--uprobe", PROBE,
                "--duration", "60", "-w", dir.resolve("killed.pcapng").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("child.log").toFile()).start();
        String group = "tracewire_" + child.pid() + "/";
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!top.read("uprobe_events").contains(group)) {
                assertTrue(child.isAlive() && System.nanoTime() < deadline, "the capture did not make its probe");
                Thread.sleep(50);
            }
        } finally {
            child.destroyForcibly().waitFor();
        }
        run(new PrintStream(new ByteArrayOutputStream()), "capture", "-e", "sched:sched_switch", "--duration", "0.2",
                "-w", dir.resolve("next.pcapng").toString());
        assertFalse(top.read("uprobe_events").contains(group), top.read("uprobe_events"));
        assertFalse(top.instanceNames().contains("tracewire-" + child.pid()));
    }

    @Test
    void aFetchArgumentTheKernelRefusesGetsItsErrorText(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Main.run(new String[] {"capture", "--uprobe", "bash:readline x=+0($bogus):string", "--duration", "1",
            "-w", dir.resolve("x.pcapng").toString()}, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        String msg = err.toString(StandardCharsets.UTF_8);
        assertEquals(Main.EXIT_FAILURE, rc, msg);
        assertTrue(msg.contains("Invalid $-variable specified") && msg.contains("^"), msg);
        assertFalse(top.read("uprobe_events").contains("tracewire_" + ProcessHandle.current().pid() + "/"));
    }
}
