package org.tracewire.tracedat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.TestInstances;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsInstance;
import org.tracewire.tracetext.SavedCmdlines;

/**
 * One {@code trace-cmd record -k -d} run per JVM into an instance of its own ({@code -B}, so the
 * top level is untouched), while an oracle instance of ours with {@code nohash-ptr} records the
 * same events: the trace.dat, its v6 conversion, and the kernel's text of the oracle.
 */
final class TraceCmdRecording {
    /** The events both record. */
    static final List<String> EVENTS = List.of("sched:sched_switch", "sched:sched_wakeup", "sched:sched_waking",
            "sched:sched_process_exec", "sched:sched_process_exit", "sched:sched_process_fork",
            "syscalls:sys_enter_openat", "syscalls:sys_exit_openat", "syscalls:sys_enter_read",
            "syscalls:sys_exit_read", "syscalls:sys_enter_close", "timer:*", "irq:*", "kmem:kmalloc", "kmem:kfree",
            "kmem:mm_page_alloc", "kmem:mm_page_free");

    record Result(Path dat, Path dat6, List<String> oracleLines, SavedCmdlines oracleCmdlines, String oracleOverrun) {
    }

    private static Result result;

    private TraceCmdRecording() {
    }

    static synchronized Result get() throws Exception {
        if (result == null) {
            result = record();
        }
        return result;
    }

    private static Result record() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireTool("trace-cmd");
        Path dir = Files.createDirectories(Path.of("target", "tracedat-live")).toAbsolutePath();
        Path dat = dir.resolve("trace.dat");
        Path dat6 = dir.resolve("trace-v6.dat");
        Files.deleteIfExists(dat);
        Files.deleteIfExists(dat6);
        String tcInstance = TestInstances.nameFor(ProcessHandle.current().pid(), "tracecmd");
        List<String> oracle = new ArrayList<>();
        SavedCmdlines cmdlines;
        StringBuilder overrun = new StringBuilder();
        try (TracefsInstance inst = TestInstances.create(top, "tdat-oracle")) {
            inst.setTracingOn(false);
            inst.setOption("nohash-ptr");
            inst.setBufferSizeKb(65536);
            for (String e : EVENTS) {
                String[] se = e.split(":");
                if (se[1].equals("*")) {
                    inst.write("events/" + se[0] + "/enable", "1");
                } else {
                    inst.setEnabled(se[0], se[1], true);
                }
            }
            inst.setTracingOn(true);
            List<String> cmd = new ArrayList<>(List.of("trace-cmd", "record", "-k", "-d", "-B", tcInstance));
            for (String e : EVENTS) {
                cmd.add("-e");
                cmd.add(e);
            }
            cmd.addAll(List.of("-o", dat.toString(), "sh", "-c",
                    "for i in $(seq 150); do ls / >/dev/null; cat /proc/self/status >/dev/null; done; sleep 0.5; "
                            + "dd if=/dev/zero of=" + dir + "/w bs=64k count=40 2>/dev/null; sync; rm -f " + dir + "/w; sleep 0.5"));
            try {
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                        .redirectOutput(dir.resolve("record.log").toFile()).start();
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new AssertionError("trace-cmd record did not finish");
                }
                if (p.exitValue() != 0) {
                    throw new AssertionError("trace-cmd record failed: " + Files.readString(dir.resolve("record.log")));
                }
            } finally {
                if (top.instanceNames().contains(tcInstance)) {
                    top.instance(tcInstance).close();
                }
            }
            inst.setTracingOn(false);
            String text = inst.read("trace");
            for (int cpu : top.cpus()) {
                String stats = inst.read("per_cpu/cpu" + cpu + "/stats");
                overrun.append(" cpu").append(cpu).append('=').append(stats.lines()
                        .filter(l -> l.startsWith("overrun:")).map(l -> l.substring(8).trim()).findFirst().orElse("?"));
            }
            cmdlines = SavedCmdlines.parse(top.read("saved_cmdlines"));
            for (String l : text.split("\n")) {
                if (!l.startsWith("#") && !l.isEmpty() && !l.startsWith("CPU:")) {
                    oracle.add(l);
                }
            }
        }
        run(List.of("trace-cmd", "convert", "--file-version", "6", "-i", dat.toString(), "-o", dat6.toString()), dir);
        return new Result(dat, dat6, oracle, cmdlines, overrun.toString().trim());
    }

    /** Runs a command, returns its stdout; fails on a non-zero exit. */
    static String run(List<String> cmd, Path dir) throws Exception {
        Path out = Files.createTempFile(dir, "cmd", ".out");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(false).redirectOutput(out.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(cmd + " did not finish");
            }
            if (p.exitValue() != 0) {
                throw new AssertionError(cmd + " exited " + p.exitValue());
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
