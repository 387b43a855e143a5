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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.capture.SelfExclusion;
import org.tracewire.format.EventFormat;
import org.tracewire.format.SyscallEvents;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.FrameKind;

/**
 * The system calls a capture's own threads make are those {@link SelfExclusion#OWN_SYSCALLS} names,
 * so a {@code --trace-self} capture of any other call (the benchmarks' {@code getppid}) gets no
 * feedback warning: a capture process started as the launcher starts it (its JVM flags, the cli
 * class path) records every {@code syscalls:sys_enter_*} event with {@code --trace-self} into a pcapng for 3 s while
 * another process reads and writes; every event frame whose {@code common_pid} is a thread of the
 * capture process must be a call of that set.
 *
 * <p>And a capture of its own {@code read()} calls does not spin: each sub-buffer a drainer reads
 * is a {@code read()}, hence an event, hence another sub-buffer to read. A drainer that caught up
 * with the kernel's writer (a sub-buffer less than 3/4 full whose first record is not older than
 * the time before its reads) waits in {@code poll()} before it reads again. Before, it read again
 * at once: 3 s of {@code sys_enter_read} with {@code --trace-self} on an idle machine recorded
 * 501,573 events at 192% of a core; with the wait, a few hundred.
 */
@Tag("live")
class OwnSyscallsLiveTest {
    @Test
    void aCaptureCallsNothingButItsListedSyscalls(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        CaptureMemoryLiveTest.Limits limits = CaptureMemoryLiveTest.launcherLimits();
        HostState before = HostState.of(top);
        Map<Integer, EventFormat> formats = top.formats().byId();
        Path file = dir.resolve("self.pcapng");
        Path log = dir.resolve("capture.log");
        // another process's reads and writes: pages to read, frames and blocks to write
        Process load = new ProcessBuilder("sh", "-c", "end=$(($(date +%s) + 12)); while [ $(date +%s) -lt $end ]; do"
                + " dd if=/dev/zero of=/dev/null bs=512 count=2000 2>/dev/null; sleep 0.01; done")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Set<Long> ours = new TreeSet<>();
        Process child = null;
        try {
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(limits.jvmOptions());
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "org.tracewire.cli.Main", "capture"));
            for (EventFormat f : formats.values()) {
                if (f.system().equals("syscalls") && f.name().startsWith("sys_enter_")) {
                    cmd.addAll(List.of("-e", f.system() + ":" + f.name())); // each call once, as it enters
                }
            }
            cmd.addAll(List.of("--trace-self", "--no-iface", "-w", file.toString(), "--duration", "3"));
            child = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            // its threads come and go (the JIT's, the drainers, the file writer): list them all along
            while (child.isAlive()) {
                ours.addAll(SelfExclusion.tasks(child.pid()));
                Thread.sleep(20);
            }
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the capture did not end");
        } finally {
            if (child != null) {
                child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            load.destroy();
            assertTrue(load.waitFor(10, TimeUnit.SECONDS), "the load did not stop");
        }
        String out = Files.readString(log);
        assertEquals(0, child.exitValue(), out);
        assertTrue(out.contains("read + lost = the kernel's count on every CPU"), out);
        Map<String, Long> own = new TreeMap<>();
        Map<String, Long> others = new TreeMap<>();
        long[] events = new long[1];
        WireFrames.forEach(Files.readAllBytes(file), d -> {
            if (d.kind() != FrameKind.EVENT) {
                return;
            }
            events[0]++;
            int id = d.frame().body().getShort(0) & 0xffff;
            EventFormat f = formats.get(id);
            assertTrue(f != null, "event id " + id + " is not one of this kernel's");
            String call = SyscallEvents.callName(f.name());
            (ours.contains((long) d.pid()) ? own : others).merge(call, 1L, Long::sum);
        }, b -> { });
        System.out.printf("[live] %d event frames; the capture's own %d threads made: %s; other processes: %d calls%n",
                events[0], ours.size(), own, others.size());
        assertTrue(own.containsKey("read") && own.containsKey("futex"),
                "the capture's own reads of sub-buffers and hand-offs were recorded (trace-self): " + own);
        assertTrue(others.containsKey("read") && others.containsKey("write"), "the load was recorded: " + others);
        Set<String> unlisted = new TreeSet<>(own.keySet());
        unlisted.removeAll(SelfExclusion.OWN_SYSCALLS);
        assertEquals(Set.of(), unlisted, "calls of the capture's own threads missing from SelfExclusion.OWN_SYSCALLS");
        assertFalse(own.containsKey("getppid"), "the capture called getppid()");
        HostState after = HostState.of(top);
        assertEquals(before.settings(), after.settings(), "top-level settings changed");
        assertEquals(List.of(), after.leftSince(before), "instances or interfaces left");
    }

    @Test
    void aCaptureOfItsOwnReadsWaitsInsteadOfSpinning(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        HostState before = HostState.of(top);
        Path file = dir.resolve("reads.pcapng");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Main.run(new String[] {"capture", "-e", "syscalls:sys_enter_read", "--trace-self", "--no-iface",
            "-w", file.toString(), "--duration", "3"}, new PrintStream(out), new PrintStream(err));
        String stdout = err.toString(StandardCharsets.UTF_8); // the summary: standard output carries only data
        assertEquals(0, rc, stdout + out.toString(StandardCharsets.UTF_8));
        assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing on standard output with -w FILE");
        Matcher m = Pattern.compile("capture: ([\\d.]+) s, (\\d+) events read").matcher(stdout);
        assertTrue(m.find(), stdout);
        long events = Long.parseLong(m.group(2));
        System.out.printf("[live] sys_enter_read with --trace-self, 3 s: %d events; %s%n", events, stdout.strip());
        assertTrue(stdout.contains("read + lost = the kernel's count on every CPU"), stdout);
        // our drainers' reads are recorded (trace-self), a few per poll() per CPU, not one per event
        long[] frames = new long[1];
        WireFrames.forEach(Files.readAllBytes(file), d -> {
            if (d.kind() == FrameKind.EVENT) {
                frames[0]++;
            }
        }, b -> { });
        assertEquals(events, frames[0], "event frames in the file");
        assertTrue(events > 0, "no read() recorded at all: " + stdout);
        assertTrue(events < 30_000, events + " events in 3 s: the drainers read their own events as fast as they can");
        HostState after = HostState.of(top);
        assertEquals(before.settings(), after.settings(), "top-level settings changed");
        assertEquals(List.of(), after.leftSince(before), "instances or interfaces left");
    }
}
