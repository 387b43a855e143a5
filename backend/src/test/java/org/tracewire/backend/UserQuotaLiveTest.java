package org.tracewire.backend;

import static org.tracewire.backend.BackendLines.next;
import static org.tracewire.backend.BackendLines.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.protocol.Messages;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** Per-user limits of the backend: backends at once and ring-buffer memory, within and across processes. */
@Tag("live")
class UserQuotaLiveTest {
    static final long MIB = 1 << 20;

    @Test
    void slotsAndMemoryWithinOneProcess(@TempDir Path tmp) throws Exception {
        Prerequisites.requireRoot();
        Path dir = tmp.resolve("run");
        UserQuota a = UserQuota.acquire(dir, 4242, 2, 100 * MIB);
        UserQuota b = UserQuota.acquire(dir, 4242, 2, 100 * MIB);
        IOException third = assertThrows(IOException.class, () -> UserQuota.acquire(dir, 4242, 2, 100 * MIB));
        assertEquals("uid 4242 already runs 2 tracewire backends (at most 2 at once): stop one first", third.getMessage());
        UserQuota.acquire(dir, 4243, 2, 100 * MIB).close(); // another user's slots are their own
        a.reserve(60 * MIB);
        IOException over = assertThrows(IOException.class, () -> b.reserve(50 * MIB));
        assertEquals("startCapture: ring buffers of 50 MiB with the 60 MiB uid 4242's other backends hold exceed the "
                + "per-user limit of 100 MiB: ask for a smaller bufferKb", over.getMessage());
        b.reserve(40 * MIB);
        a.release();
        b.reserve(90 * MIB);
        a.close(); // a backend gone: its slot is free and its number no longer counts
        UserQuota c = UserQuota.acquire(dir, 4242, 2, 100 * MIB);
        assertThrows(IOException.class, () -> c.reserve(20 * MIB));
        b.close();
        c.reserve(100 * MIB);
        c.close();
        Files.setAttribute(dir, "unix:mode", 0777);
        IOException open = assertThrows(IOException.class, () -> UserQuota.acquire(dir, 4242, 2, 100 * MIB));
        assertTrue(open.getMessage().endsWith("must be a directory of root's that only root may write"), open.getMessage());
    }

    /**
     * Real backend processes for uid 4242 (PKEXEC_UID): a third at once exits 1 saying why; a
     * SIGKILLed one frees its slot; a capture whose ring buffers would exceed the user's limit with
     * another backend's running capture is refused, and starts once that one stopped.
     */
    @Test
    void acrossBackendProcesses(@TempDir Path tmp) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireRoot();
        int cpus = top.cpus().size();
        long limitMiB = 24L * cpus; // room for one capture of 16 MiB per CPU, not two
        Path dir = tmp.resolve("run");
        List<Backend> all = new ArrayList<>();
        try {
            Backend one = Backend.start(dir, limitMiB);
            all.add(one);
            Backend two = Backend.start(dir, limitMiB);
            all.add(two);
            one.hello();
            two.hello();
            Backend three = Backend.start(dir, limitMiB);
            all.add(three);
            assertTrue(three.process.waitFor(60, TimeUnit.SECONDS), "a third backend kept running");
            assertEquals(1, three.process.exitValue());
            assertTrue(three.stderr().contains("uid 4242 already runs 2 tracewire backends"), three.stderr());

            List<Messages.CaptureEvent> ev = List.of(new Messages.CaptureEvent("sched:sched_switch", null));
            send(one.cmd(), new Messages.CaptureRequest(ev, null, null, 16384, null), 2);
            next(one.replies, 2, Messages.Started.class);
            send(two.cmd(), new Messages.CaptureRequest(ev, null, null, 16384, null), 2);
            String refused = next(two.replies, 2, Messages.Error.class).message();
            assertTrue(refused.contains("exceed the per-user limit of " + limitMiB + " MiB"), refused);
            send(one.cmd(), new Messages.StopCaptureRequest(), 3);
            next(one.replies, 3, Messages.Stopped.class);
            send(two.cmd(), new Messages.CaptureRequest(ev, null, null, 16384, null), 3);
            next(two.replies, 3, Messages.Started.class);

            one.process.destroyForcibly();
            one.process.waitFor(20, TimeUnit.SECONDS);
            Backend four = Backend.start(dir, limitMiB);
            all.add(four);
            four.hello();
            send(two.cmd(), new Messages.StopCaptureRequest(), 4);
            next(two.replies, 4, Messages.Stopped.class);
        } finally {
            for (Backend b : all) {
                b.process.getOutputStream().close();
                if (!b.process.waitFor(20, TimeUnit.SECONDS)) {
                    b.process.destroyForcibly();
                }
            }
        }
    }

    private record Backend(Process process, BufferedReader replies, Path log) {
        static Backend start(Path dir, long limitMiB) throws IOException {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Path log = Files.createTempFile("tracewire-backend", ".log");
            ProcessBuilder pb = new ProcessBuilder(java, "-Dtracewire.runDir=" + dir, "-Dtracewire.userBufferMiB=" + limitMiB,
                    "-cp", System.getProperty("java.class.path"), "org.tracewire.backend.BackendMain")
                    .redirectError(log.toFile());
            pb.environment().remove("SUDO_UID");
            pb.environment().remove("SUDO_GID");
            pb.environment().put("PKEXEC_UID", "4242");
            Process p = pb.start();
            return new Backend(p, new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)), log);
        }

        OutputStream cmd() {
            return process.getOutputStream();
        }

        void hello() throws Exception {
            send(cmd(), new Messages.HelloRequest(), 1);
            next(replies, 1, Messages.Hello.class);
        }

        String stderr() throws IOException {
            return Files.readString(log);
        }
    }
}
