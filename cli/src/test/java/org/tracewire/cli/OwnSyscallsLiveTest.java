package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.capture.SelfExclusion;
import org.tracewire.format.EventFormat;
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
            String call = f.name().replaceFirst("^sys_(enter|exit)_", "");
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
        assertEquals(before.instances(), after.instances(), "instances changed");
    }
}
