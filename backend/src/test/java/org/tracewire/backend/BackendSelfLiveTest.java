package org.tracewire.backend;

import static org.tracewire.backend.BackendLines.next;
import static org.tracewire.backend.BackendLines.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.capture.SelfExclusion;
import org.tracewire.pcapng.PcapngReader;
import org.tracewire.protocol.Messages;
import org.tracewire.protocol.Messages.CaptureEvent;
import org.tracewire.protocol.Messages.CaptureRequest;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireDecoder;

/**
 * The backend process never traces itself nor its client by default: a capture of
 * {@code syscalls:sys_enter_write} to a TAP and a pcapng, through {@code BackendMain} started by this
 * JVM (its client: the parent), records no event of the backend's threads nor of this JVM's while
 * this JVM writes commands and reads replies; the seed (2,000 writes by another process) is recorded
 * once. With {@code traceSelf} the same capture feeds on itself (bounded: 3 s).
 */
@Tag("live")
class BackendSelfLiveTest {
    static final List<String> BURST = List.of("dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=2000");

    record Run(long frames, double seconds, long ownFrames, Messages.Stats stats) {
    }

    static Run run(Path dir, boolean traceSelf, int seconds) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireRoot();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "org.tracewire.backend.BackendMain").redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().remove("SUDO_UID");
        pb.environment().remove("SUDO_GID");
        pb.environment().remove("PKEXEC_UID");
        // forked before any capture: not excluded with this JVM (event-fork adds later children only)
        Process seed = new ProcessBuilder("sh", "-c", "read go; sleep 0.5; exec \"$0\" \"$@\"", BURST.get(0),
                BURST.get(1), BURST.get(2), BURST.get(3), BURST.get(4)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Process p = pb.start();
        Path pcapng = traceSelf ? null : dir.resolve("backend.pcapng");
        String iface = "twb" + (ProcessHandle.current().pid() % 100000);
        long own = 0;
        Messages.Stats fin;
        String instance;
        try (OutputStream cmd = p.getOutputStream();
             BufferedReader replies = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            send(cmd, new CaptureRequest(List.of(new CaptureEvent("syscalls:sys_enter_write", null)), iface,
                    pcapng == null ? null : pcapng.toString(), null, null, traceSelf ? true : null), 1);
            instance = next(replies, 1, Messages.Started.class).instance();
            seed.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
            seed.getOutputStream().close();
            Set<Long> listed = new TreeSet<>();
            for (String s : top.read("instances/" + instance + "/set_event_notrace_pid").split("\\s+")) {
                if (!s.isBlank()) {
                    listed.add(Long.parseLong(s));
                }
            }
            Set<Long> backend = SelfExclusion.tasks(p.pid());
            Set<Long> client = SelfExclusion.tasks(ProcessHandle.current().pid());
            if (!traceSelf) {
                Set<Long> both = new TreeSet<>(backend);
                both.addAll(client);
                both.retainAll(union(p.pid())); // alive before and after the read-back
                assertTrue(listed.containsAll(both), "not excluded: " + both + " vs listed " + listed);
            } else {
                assertTrue(listed.isEmpty(), "traceSelf: nothing excluded, listed " + listed);
            }
            // the client talks to the backend meanwhile: stats every 500 ms
            long until = System.nanoTime() + seconds * 1_000_000_000L;
            long id = 2;
            while (System.nanoTime() < until) {
                Thread.sleep(500);
                send(cmd, new Messages.StatsRequest(), id);
                next(replies, id++, Messages.Stats.class);
            }
            send(cmd, new Messages.StopCaptureRequest(), 100);
            fin = next(replies, 100, Messages.Stopped.class).stats();
            Set<Long> ours = new TreeSet<>(backend);
            ours.addAll(client);
            ours.addAll(SelfExclusion.tasks(p.pid()));
            ours.addAll(SelfExclusion.tasks(ProcessHandle.current().pid()));
            if (pcapng != null) {
                for (PcapngReader.Packet pk : new PcapngReader(Files.readAllBytes(pcapng)).packets()) {
                    var f = WireDecoder.decodeBare(pk.frame());
                    if (f.kind() == FrameKind.EVENT && ours.contains((long) f.body().getInt(4))) {
                        own++; // common_pid, payload offset 4
                    }
                }
            }
            send(cmd, new Messages.QuitRequest(), 101);
            next(replies, 101, Messages.Bye.class);
        } finally {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroy();
            }
            seed.waitFor(20, TimeUnit.SECONDS);
        }
        assertEquals(0, p.exitValue());
        assertFalse(top.instanceNames().contains(instance), "instance left behind");
        assertFalse(Files.exists(Path.of("/sys/class/net", iface)), "interface left behind");
        System.out.printf("backend %s: %d frames in %d s (%.0f/s), %d of the backend's or the client's threads; cpus %s%n",
                traceSelf ? "traceSelf" : "excluded", fin.frames(), seconds, fin.frames() / (double) seconds, own,
                fin.cpus());
        return new Run(fin.frames(), seconds, own, fin);
    }

    private static Set<Long> union(long pid) {
        Set<Long> s = new TreeSet<>(SelfExclusion.tasks(pid));
        s.addAll(SelfExclusion.tasks(ProcessHandle.current().pid()));
        return s;
    }

    @Test
    void theBackendExcludesItselfAndItsClient(@TempDir Path dir) throws Exception {
        Run excluded = run(dir, false, 6);
        Run self = run(dir, true, 3);
        assertEquals(0, excluded.ownFrames(), "frames of the backend's or the client's threads");
        assertTrue(excluded.frames() >= 2000, "the seed's 2,000 writes were recorded: " + excluded);
        for (Messages.CpuStat c : excluded.stats().cpus()) {
            assertEquals(Boolean.TRUE, c.kernelAgrees(), "records + lost = the kernel's count: " + c);
        }
        assertTrue(self.frames() > 10 * 2000, "traceSelf feeds back: " + self.frames() + " frames");
    }
}
