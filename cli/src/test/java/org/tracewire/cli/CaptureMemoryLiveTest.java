package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.pcapng.PcapngReader;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * The capture process's memory ceiling holds in its worst case: sched_switch + sched_wakeup at full
 * speed ({@code stress-ng --switch 2}) into {@code -w -} while nobody reads the pipe for 8 s, so
 * the emitter blocks, every CPU's stash of sub-buffer pages fills to its bound and the kernel then
 * overruns. The capture runs in a child JVM with the launcher's own {@code capture_jvm_opts} (the
 * {@code scripts/jvm-opts.sh} both launchers source, evaluated by bash) and must: end
 * normally (exit 0, the pcapng complete once the pipe is read), keep its peak RSS ({@code VmHWM} of
 * {@code /proc/PID/status}, sampled every 50 ms until it exits) at or below the launcher's stated
 * {@code capture_rss_ceiling_mib}, lose events and count every one (the summary's "read + lost =
 * the kernel's count on every CPU", the per-CPU lost counts summing to the ISB's drop count).
 */
@Tag("live")
class CaptureMemoryLiveTest {
    /**
     * The launcher's capture JVM flags and stated ceilings, as bash computes them on this machine:
     * {@code ceilingMib} for any capture ({@code capture_rss_ceiling_mib}, a read-ahead included),
     * {@code stashCeilingMib} for one without a read-ahead ({@code capture_stash_rss_ceiling_mib}: a
     * live output, the backend's stream, {@code --read-ahead 0}).
     */
    record Limits(List<String> jvmOptions, long ceilingMib, long stashCeilingMib) {
    }

    static Limits launcherLimits() throws Exception {
        Path file = Prerequisites.snapshot().getParent().getParent().resolve("scripts/jvm-opts.sh");
        assertTrue(Files.isRegularFile(file), "no launcher options at " + file);
        Process p = new ProcessBuilder("bash", "-c", "source \"$0\";"
                + " echo \"$capture_rss_ceiling_mib\"; echo \"$capture_jvm_opts\"; echo \"$capture_stash_rss_ceiling_mib\"",
                file.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        String[] lines = out.strip().split("\n");
        assertEquals(3, lines.length, "capture_rss_ceiling_mib, capture_jvm_opts and capture_stash_rss_ceiling_mib "
                + "from the launcher: " + out);
        List<String> opts = Arrays.asList(lines[1].strip().split("\\s+"));
        assertTrue(opts.stream().anyMatch(o -> o.startsWith("-Xmx")), "no heap limit in " + opts);
        assertTrue(opts.stream().anyMatch(o -> o.startsWith("-XX:MaxDirectMemorySize=")), "no direct limit in " + opts);
        Limits l = new Limits(opts, Long.parseLong(lines[0].strip()), Long.parseLong(lines[2].strip()));
        assertTrue(l.stashCeilingMib() > 0 && l.stashCeilingMib() <= l.ceilingMib(), l.toString());
        return l;
    }

    @Test
    void aStalledOutputUnderFullSpeedLoadStaysUnderTheCeilingAndCountsEveryLoss(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireTool("stress-ng");
        Limits limits = launcherLimits();
        HostState before = HostState.of(top);
        // started before the capture: not one of the capture's own (forked) tasks, so it is traced
        Process load = new ProcessBuilder("stress-ng", "--switch", "2", "-t", "12").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Path log = dir.resolve("capture.log");
        Path file = dir.resolve("stalled.pcapng");
        long hwmKb = 0;
        long samples = 0;
        Process child = null;
        try {
            Thread.sleep(500);
            child = new ProcessBuilder(captureCommand(limits, "-w", "-", "--duration", "6"))
                    .redirectError(log.toFile()).start();
            Path status = Path.of("/proc", Long.toString(child.pid()), "status");
            long readFrom = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
            // nobody reads the pcapng for 8 s: the pipe fills, the emitter blocks, the stash fills
            while (child.isAlive() && System.nanoTime() < readFrom) {
                hwmKb = Math.max(hwmKb, vmHwmKb(status));
                samples++;
                Thread.sleep(50);
            }
            Process capture = child;
            Thread reader = new Thread(() -> drain(capture, file));
            reader.start();
            while (child.isAlive()) {
                hwmKb = Math.max(hwmKb, vmHwmKb(status));
                samples++;
                Thread.sleep(50);
            }
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the capture did not end");
            reader.join(30_000);
        } finally {
            stop(child, load);
        }
        String err = Files.readString(log);
        String summary = err.lines().filter(l -> l.contains("events read")).reduce((a, b) -> b).orElse("");
        System.out.printf("[live] ceiling without a read-ahead %d MiB (%s), peak RSS (VmHWM) %.1f MiB over %d samples"
                + "%n  %s%n", limits.stashCeilingMib(), String.join(" ", limits.jvmOptions()), hwmKb / 1024.0, samples,
                summary);
        assertEquals(0, child.exitValue(), err);
        assertFalse(err.contains("OutOfMemoryError"), err);
        assertTrue(hwmKb > 0, "VmHWM was never read");
        // a pipe is a live output: no read-ahead, the stash's ceiling
        assertFalse(summary.contains("read-ahead"), summary);
        assertTrue(hwmKb <= limits.stashCeilingMib() * 1024, "peak RSS " + hwmKb / 1024 + " MiB over the ceiling of "
                + limits.stashCeilingMib() + " MiB");
        assertFalse(summary.contains("unknown"), summary);
        assertTrue(summary.contains("read + lost = the kernel's count on every CPU"), "per CPU: " + summary);
        long lost = 0;
        Matcher m = Pattern.compile("cpu\\d+ (\\d+)").matcher(summary.substring(summary.indexOf("lost events:")));
        while (m.find()) {
            lost += Long.parseLong(m.group(1));
        }
        assertTrue(lost > 0, "an output stalled for 8 s under full-speed load must overrun the kernel: " + summary);
        PcapngReader r = new PcapngReader(Files.readAllBytes(file));
        PcapngReader.Block isb = r.ofType(5).get(0);
        assertEquals(lost, ByteBuffer.wrap(isb.options().get(5).get(0)).order(ByteOrder.nativeOrder()).getLong(),
                "ISB isb_ifdrop vs the summary's lost events");
        assertFalse(top.instanceNames().contains("tracewire-" + child.pid()), "instance left behind");
        assertEquals(before.settings(), HostState.of(top).settings(), "top-level settings changed");
    }

    /**
     * A capture into a file defers its framing ({@code org.tracewire.capture.ReadAhead}): under
     * {@code stress-ng --switch 2} the emitter's 5% of a core cannot keep up, so the drainers keep the
     * sub-buffers in the read-ahead, here 64 MiB, which must stay within that bound and the process
     * under the launcher's ceiling for a capture without one (the read-ahead replaces the stash of
     * 64 MiB per CPU); every record read is framed into the file once tracing stops, and every
     * loss is counted.
     */
    @Test
    void aDeferredCaptureToAFileKeepsWithinItsReadAheadAndFramesEveryRecord(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireTool("stress-ng");
        Limits limits = launcherLimits();
        Process load = new ProcessBuilder("stress-ng", "--switch", "2", "-t", "10").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Path log = dir.resolve("capture.log");
        Path file = dir.resolve("deferred.pcapng");
        long hwmKb = 0;
        Process child = null;
        try {
            Thread.sleep(500);
            child = new ProcessBuilder(captureCommand(limits, "-w", file.toString(), "--duration", "4",
                    "--read-ahead", "64")).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            Path status = Path.of("/proc", Long.toString(child.pid()), "status");
            while (child.isAlive()) {
                hwmKb = Math.max(hwmKb, vmHwmKb(status));
                Thread.sleep(50);
            }
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the capture did not end");
        } finally {
            stop(child, load);
        }
        String out = Files.readString(log);
        String summary = out.lines().filter(l -> l.contains("events read")).reduce((a, b) -> b).orElse("");
        System.out.printf("[live] deferred: peak RSS (VmHWM) %.1f MiB, ceiling %d MiB%n  %s%n", hwmKb / 1024.0,
                limits.ceilingMib(), summary);
        assertEquals(0, child.exitValue(), out);
        // 64 MiB of read-ahead in place of the stash (128 MiB on 2 CPUs): under the ceiling without a read-ahead
        assertTrue(hwmKb <= limits.stashCeilingMib() * 1024, "peak RSS " + hwmKb / 1024 + " MiB over the ceiling of "
                + limits.stashCeilingMib() + " MiB (and of " + limits.ceilingMib() + " MiB with the default read-ahead)");
        assertTrue(summary.contains("read + lost = the kernel's count on every CPU"), "per CPU: " + summary);
        Matcher ra = Pattern.compile("read-ahead (\\d+) MiB").matcher(summary);
        assertTrue(ra.find(), "the emitter's allowance cannot frame a full-speed sched load: the read-ahead is used: "
                + summary);
        long readAheadMib = Long.parseLong(ra.group(1));
        assertTrue(readAheadMib > 0 && readAheadMib <= 64, "read-ahead within --read-ahead 64: " + summary);
        Matcher counts = Pattern.compile("(\\d+) events read, (\\d+) frames emitted \\((\\d+) of context").matcher(summary);
        assertTrue(counts.find(), summary);
        long read = Long.parseLong(counts.group(1));
        long frames = Long.parseLong(counts.group(2));
        long context = Long.parseLong(counts.group(3));
        assertTrue(read > 100_000, "a full-speed sched load for 4 s: " + summary);
        assertEquals(read, frames - context, "every record read is framed");
        PcapngReader r = new PcapngReader(Files.readAllBytes(file));
        assertEquals(frames, r.ofType(6).size(), "Enhanced Packet Blocks in the file vs frames emitted");
        assertFalse(top.instanceNames().contains("tracewire-" + child.pid()), "instance left behind");
    }

    /**
     * The command line of a capture child: this JVM with the launcher's {@code capture_jvm_opts},
     * capturing sched_switch + sched_wakeup without an interface, plus {@code args}.
     */
    private static List<String> captureCommand(Limits limits, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(limits.jvmOptions());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "org.tracewire.cli.Main", "capture",
                "-e", "sched:sched_switch", "-e", "sched:sched_wakeup", "--no-iface"));
        cmd.addAll(Arrays.asList(args));
        return cmd;
    }

    /** Ends the capture child (when it still runs) and the load with its children. */
    private static void stop(Process child, Process load) throws InterruptedException {
        if (child != null) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        load.descendants().forEach(ProcessHandle::destroy);
        load.destroy();
        assertTrue(load.waitFor(10, TimeUnit.SECONDS), "stress-ng did not stop");
    }

    /** Copies the child's standard output (the pcapng) to {@code file}. */
    private static void drain(Process p, Path file) {
        try (InputStream in = p.getInputStream(); OutputStream out = Files.newOutputStream(file)) {
            in.transferTo(out);
        } catch (Exception e) {
            // the assertions on the file and the exit code tell
        }
    }

    /** VmHWM of a process, KiB; 0 once it is gone. */
    private static long vmHwmKb(Path status) {
        try {
            for (String l : Files.readAllLines(status)) {
                if (l.startsWith("VmHWM:")) {
                    return Long.parseLong(l.replaceAll("\\D", ""));
                }
            }
        } catch (Exception e) {
            // exited between the check and the read
        }
        return 0;
    }
}
