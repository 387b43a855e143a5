package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.RingBufferStats;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireHeader;

/**
 * A capture killed or starved at any moment keeps what it read and reports every loss
 * (docs/capture-recovery.md): SIGKILL at random moments under load, then {@code recover}; a disk
 * that fills; a standard-output reader that takes nothing. The live kernel's per-CPU counters are
 * the oracle.
 */
@Tag("live")
class CaptureRecoveryLiveTest {
    /** Per CPU of a pcapng: {event frames, sum of drop counts}. */
    static Map<Integer, long[]> perCpu(Path file) throws Exception {
        Map<Integer, long[]> m = new TreeMap<>();
        try (PcapngPacketReader r = new PcapngPacketReader(file)) {
            for (PcapngPacketReader.Packet p = r.next(); p != null; p = r.next()) {
                byte[] d = p.data();
                int cpu = WireHeader.cpu(d);
                if (WireHeader.kindCode(d) == FrameKind.EVENT.code()) {
                    m.computeIfAbsent(cpu, k -> new long[2])[0]++;
                } else if (p.dropCount() > 0) {
                    m.computeIfAbsent(cpu, k -> new long[2])[1] += p.dropCount();
                }
            }
            assertEquals(-1, r.truncatedAt(), "a recovered file ends with a whole block");
        }
        return m;
    }

    static Process stress(String... extra) throws Exception {
        Prerequisites.requireTool("stress-ng");
        List<String> cmd = new ArrayList<>(List.of("stress-ng", "--switch", "2"));
        cmd.addAll(List.of(extra));
        cmd.addAll(List.of("-t", "120"));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    static Process childCapture(Path log, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dtracewire.outputStallSeconds=2", "-Dtracewire.warmUpMs=0",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                "org.tracewire.cli.Main", "capture"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        if (List.of(args).contains("-")) {
            pb.redirectError(log.toFile()); // standard output is the pcapng
        } else {
            pb.redirectErrorStream(true).redirectOutput(log.toFile()); // progress and summary (stderr)
        }
        return pb.start();
    }

    /**
     * Six captures killed with SIGKILL at random moments (while tracing, while framing after it, or
     * after the end) under {@code stress-ng --switch 2}: the watchdog removes the instance at once,
     * and after {@code recover} the file holds, per CPU, exactly the events the kernel counts as read
     * (none lost by the kill), its drop counts are the kernel's losses, and {@code report} reads it.
     */
    @Test
    void killedCapturesAreRecoveredToTheKernelsCount(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireRoot();
        HostState before = HostState.of(top);
        Process load = stress("--switch-freq", "20000");
        Random random = new Random(Long.getLong("tracewire.test.seed", System.nanoTime()));
        try {
            for (int round = 0; round < 6; round++) {
                Path file = dir.resolve("k" + round + ".pcapng");
                Path log = dir.resolve("k" + round + ".log");
                Process child = schedCapture(log, "1", file.toString());
                String instance = "tracewire-" + child.pid();
                awaitSpooledTracing(top, child, file, log);
                long killAfterMs = 50 + random.nextInt(1500); // during tracing (1 s), framing, or after the end
                Thread.sleep(killAfterMs);
                boolean killed = child.isAlive();
                child.destroyForcibly();
                assertTrue(child.waitFor(20, TimeUnit.SECONDS));
                for (int i = 0; i < 250 && top.instanceNames().contains(instance); i++) {
                    Thread.sleep(20);
                }
                assertFalse(top.instanceNames().contains(instance), "round " + round + ": the watchdog removes the "
                        + "instance of a killed capture at once (within 5 s)");
                Path spool = Path.of(file + ".tw-spool");
                Map<Integer, RingBufferStats> kernel = Files.exists(spool.resolve("watchdog.done"))
                        && Files.exists(spool.resolve("header")) ? kernelDelta(spool)
                        : null;
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                ByteArrayOutputStream err = new ByteArrayOutputStream();
                int rc = Main.run(new String[] {"recover", file.toString()}, new PrintStream(out), new PrintStream(err));
                String said = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
                assertEquals(0, rc, "round " + round + " (killed " + killed + " after " + killAfterMs + " ms): " + said);
                assertFalse(Files.exists(spool), "recover removes the spool");
                Map<Integer, long[]> inFile = perCpu(file);
                if (kernel != null) {
                    for (Map.Entry<Integer, RingBufferStats> k : kernel.entrySet()) {
                        long[] f = inFile.getOrDefault(k.getKey(), new long[2]);
                        assertEquals(k.getValue().readEvents(), f[0], "round " + round + " cpu" + k.getKey()
                                + ": events in the file = the kernel's read events (" + said + ")");
                        assertEquals(k.getValue().attempted() - k.getValue().readEvents(), f[1], "round " + round
                                + " cpu" + k.getKey() + ": drop counts = the kernel's losses");
                    }
                } else {
                    // not killed while tracing (it had finished, or was killed after it cleaned up): a whole file
                    assertTrue(said.contains("nothing to do") || said.contains("no spool"), said);
                }
                long total = inFile.values().stream().mapToLong(v -> v[0]).sum();
                assertTrue(total > 0 || kernel == null || kernel.values().stream().allMatch(s -> s.readEvents() == 0),
                        "round " + round + ": events recovered");
                ByteArrayOutputStream report = new ByteArrayOutputStream();
                ByteArrayOutputStream reportErr = new ByteArrayOutputStream();
                assertEquals(0, Main.run(new String[] {"report", file.toString()}, new PrintStream(report),
                        new PrintStream(reportErr)), "round " + round + ": report reads the file: "
                        + reportErr.toString(StandardCharsets.UTF_8) + " / " + said);
                long lines = report.toString(StandardCharsets.UTF_8).lines().count();
                assertEquals(total, lines, "round " + round + ": report prints every event of the file");
                Files.delete(file);
            }
        } finally {
            load.destroy();
            load.waitFor(10, TimeUnit.SECONDS);
        }
        // other tools' instances may come and go meanwhile on a shared machine: the settings must not
        assertEquals(before.settings(), HostState.of(top).settings(), "top-level tracing settings changed");
    }

    /** A child capture of sched_switch and sched_wakeup for {@code duration} seconds into {@code output}. */
    static Process schedCapture(Path log, String duration, String output) throws Exception {
        // names from /proc only: every record the kernel counts as read is then an event of the file
        return childCapture(log, "-e", "sched:sched_switch", "-e", "sched:sched_wakeup", "--names-from-proc",
                "--no-iface", "--duration", duration, "-w", output);
    }

    /**
     * Waits until the child traces with its spool in place (a new instance traces for a moment
     * before the capture turns it off), or has ended.
     */
    static void awaitSpooledTracing(Tracefs top, Process child, Path file, Path log) throws Exception {
        String instance = "tracewire-" + child.pid();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!(tracing(top, instance) && Files.exists(Path.of(file + ".tw-spool", "header"))) && child.isAlive()) {
            assertTrue(System.nanoTime() < deadline, "the capture did not start: " + Files.readString(log));
            Thread.sleep(10);
        }
    }

    private static boolean tracing(Tracefs top, String instance) {
        try {
            return top.instanceNames().contains(instance)
                    && top.read("instances/" + instance + "/tracing_on").strip().equals("1");
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** A live child JVM's threads ({@code jcmd PID Thread.print}): where a capture that did not end waits. */
    static String threads(Process child) {
        try {
            Process j = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(child.pid()), "Thread.print").redirectErrorStream(true).start();
            String out = new String(j.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            j.waitFor(30, TimeUnit.SECONDS);
            return out;
        } catch (Exception e) {
            return "no thread dump: " + e;
        }
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (Exception e) {
            return "no log: " + e;
        }
    }

    /** The kernel's counters over the killed capture, per CPU: the watchdog's final stats minus the spool's base. */
    private static Map<Integer, RingBufferStats> kernelDelta(Path spool) throws Exception {
        Properties p = new Properties();
        try (var in = Files.newInputStream(spool.resolve("header"))) {
            p.load(in);
        }
        Map<Integer, RingBufferStats> m = new TreeMap<>();
        for (String c : p.getProperty("cpus").split(",")) {
            int cpu = Integer.parseInt(c);
            String[] v = p.getProperty("base.cpu" + cpu).split(" ");
            RingBufferStats base = new RingBufferStats(Long.parseLong(v[0]), Long.parseLong(v[1]), Long.parseLong(v[2]),
                    Long.parseLong(v[3]), Long.parseLong(v[4]), Long.parseLong(v[5]));
            RingBufferStats end = RingBufferStats.parse(Files.readString(spool.resolve("cpu" + cpu + ".stats")));
            m.put(cpu, end.minus(base));
        }
        return m;
    }

    /**
     * A disk that fills during the capture: exit 1 with the summary, which says how many events the
     * file holds (cut back to its last whole block), and {@code report} reads exactly those.
     */
    @Test
    void aFullDiskEndsWithTheSummaryAndAWholeFile(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireRoot();
        Prerequisites.requireTool("mount");
        HostState before = HostState.of(top);
        Path mnt = dir.resolve("small");
        Files.createDirectory(mnt);
        Process load = stress();
        assertEquals(0, new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", mnt.toString())
                .inheritIO().start().waitFor());
        try {
            Path file = mnt.resolve("full.pcapng");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int rc = Main.run(new String[] {"capture", "-e", "sched:sched_switch", "-e", "sched:sched_wakeup",
                "--no-iface", "--duration", "3", "-w", file.toString()}, new PrintStream(out), new PrintStream(err));
            String said = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
            assertEquals(1, rc, said);
            assertTrue(said.contains("(read + lost = the kernel's count on every CPU)"), said);
            Matcher m = Pattern.compile("file \\S+ failed \\(No space left on device\\): it holds the first (\\d+) events, "
                    + "(\\d+) events read are not in it").matcher(said);
            assertTrue(m.find(), said);
            long holds = Long.parseLong(m.group(1));
            assertTrue(holds > 0 && Long.parseLong(m.group(2)) > 0, said);
            long inFile = perCpu(file).values().stream().mapToLong(v -> v[0]).sum();
            assertEquals(holds, inFile, "the summary says what the file holds");
            assertFalse(Files.exists(Path.of(file + ".tw-spool")), "no spool left");
        } finally {
            load.destroy();
            load.waitFor(10, TimeUnit.SECONDS);
            new ProcessBuilder("umount", mnt.toString()).inheritIO().start().waitFor();
        }
        // other tools' instances may come and go meanwhile on a shared machine: the settings must not
        assertEquals(before.settings(), HostState.of(top).settings(), "top-level tracing settings changed");
    }

    /**
     * {@code -w -} into a pipe nobody reads: the kernel's losses show on the progress lines as they
     * happen, and after tracing the capture gives up on the pipe (here after 2 s), ends with the
     * summary (every loss counted, agreeing with the kernel) and exit 1, and removes its instance.
     */
    @Test
    void aStalledStandardOutputReaderEndsWithEveryLossCounted(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireRoot();
        HostState before = HostState.of(top);
        Process load = stress();
        try {
            Path log = dir.resolve("stalled.log");
            // the test never reads the child's standard output: a pipe that fills and stays full
            Process child = schedCapture(log, "3", "-");
            assertTrue(child.waitFor(40, TimeUnit.SECONDS), () -> "the capture ended without its reader: "
                    + threads(child) + "\n" + readQuietly(log));
            assertFalse(top.instanceNames().contains("tracewire-" + child.pid()), "its instance is removed");
            String said = Files.readString(log);
            assertEquals(1, child.exitValue(), said);
            assertTrue(said.contains("(read + lost = the kernel's count on every CPU)"), said);
            assertTrue(said.contains("pipe stdout failed (its reader took nothing for 2 s)"), said);
            Matcher lost = Pattern.compile("lost events: cpu0 (\\d+) cpu1 (\\d+)").matcher(said);
            assertTrue(lost.find(), said);
            assertTrue(Long.parseLong(lost.group(1)) + Long.parseLong(lost.group(2)) > 0, "a stalled reader loses: "
                    + said);
            Matcher progress = Pattern.compile("capture: \\d+ s, .* lost (\\d+)").matcher(said);
            long shown = 0;
            while (progress.find()) {
                shown = Math.max(shown, Long.parseLong(progress.group(1)));
            }
            assertTrue(shown > 0, "the progress lines show the kernel's losses while tracing: " + said);
            child.getInputStream().close();
        } finally {
            load.destroy();
            load.waitFor(10, TimeUnit.SECONDS);
        }
        // other tools' instances may come and go meanwhile on a shared machine: the settings must not
        assertEquals(before.settings(), HostState.of(top).settings(), "top-level tracing settings changed");
    }

    /**
     * SIGTERM, then a second one while the capture frames what it read: it ends at once with its
     * summary, and the file's event frames + drop counts (the events not framed among them) equal
     * the events read + lost that the summary reconciles with the kernel.
     */
    @Test
    void aSecondSignalEndsFramingWithEveryEventCounted(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireRoot();
        HostState before = HostState.of(top);
        Process load = stress();
        try {
            Path file = dir.resolve("twice.pcapng");
            Path log = dir.resolve("twice.log");
            Process child = schedCapture(log, "30", file.toString());
            String instance = "tracewire-" + child.pid();
            awaitSpooledTracing(top, child, file, log);
            assertTrue(child.isAlive(), Files.readString(log));
            Thread.sleep(2000);
            child.destroy();
            Thread.sleep(30);
            child.destroy();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            String said = Files.readString(log);
            assertTrue(said.contains("(read + lost = the kernel's count on every CPU)"), said);
            Matcher read = Pattern.compile("(\\d+) events read, .* lost events: cpu0 (\\d+) cpu1 (\\d+)").matcher(said);
            assertTrue(read.find(), said);
            long expected = Long.parseLong(read.group(1)) + Long.parseLong(read.group(2)) + Long.parseLong(read.group(3));
            Map<Integer, long[]> inFile = perCpu(file);
            long events = inFile.values().stream().mapToLong(v -> v[0]).sum();
            long drops = inFile.values().stream().mapToLong(v -> v[1]).sum();
            assertEquals(expected, events + drops, "file events + drops = read + lost: " + said);
            assertFalse(top.instanceNames().contains(instance), "its instance is removed");
            assertFalse(Files.exists(Path.of(file + ".tw-spool")), "its spool is removed");
        } finally {
            load.destroy();
            load.waitFor(10, TimeUnit.SECONDS);
        }
        assertEquals(before.settings(), HostState.of(top).settings(), "top-level tracing settings changed");
    }
}
