package org.tracewire.backend;

import static org.tracewire.backend.BackendLines.next;
import static org.tracewire.backend.BackendLines.send;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.posix.InvokingUser;
import org.tracewire.protocol.Messages;
import org.tracewire.protocol.Messages.CaptureEvent;
import org.tracewire.protocol.Messages.CaptureRequest;
import org.tracewire.protocol.Protocol;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** The privilege boundary: what a client of the root backend may make it do for the invoking user. */
class BackendPrivilegeTest {
    static final InvokingUser NOBODY = new InvokingUser(65534, 65534, Set.of(65534), "test");

    static String line(Object msg, long id) {
        return Protocol.toJson(msg, id);
    }

    static CaptureRequest request(List<CaptureEvent> events, String iface, String pcapng, Integer bufferKb) {
        return new CaptureRequest(events, iface, pcapng, bufferKb, null);
    }

    /** Refused before anything is created (on the snapshot: no capture could even start). */
    @Test
    void requestsBeyondTheLimitsOrTheUsersRightsAreRefusedSayingWhy() throws Exception {
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BackendServer server = new BackendServer(snap, out, (i, p, t, s) -> {
            throw new AssertionError("no output may be opened");
        }, NOBODY, new BackendLimits(2, 1024, 60));
        List<CaptureEvent> one = List.of(new CaptureEvent("sched:sched_switch", null));
        List<CaptureEvent> three = List.of(new CaptureEvent("sched:sched_switch", null),
                new CaptureEvent("sched:sched_wakeup", null), new CaptureEvent("sched:sched_waking", null));
        String script = String.join("\n",
                line(request(three, null, null, null), 1),
                line(request(one, null, null, 4096), 2),
                line(request(one, null, null, 0), 3),
                line(request(one, "bad/name", null, null), 4),
                line(request(one, "a-very-long-interface-name", null, null), 5),
                line(request(one, null, "/etc/tracewire-test.pcapng", null), 6),
                line(request(one, null, "/root/tracewire-test.pcapng", null), 7),
                line(request(one, null, "relative.pcapng", null), 8),
                line(request(List.of(), null, null, null), 9),
                line(request(List.of(new CaptureEvent("../x:y", null)), null, null, null), 10),
                line(request(List.of(new CaptureEvent("sched:sched_switch", null, "kernal")), null, null, null), 11))
                + "\n";
        server.serve(new ByteArrayInputStream(script.getBytes(StandardCharsets.UTF_8)));
        List<Messages.Error> errors = new ArrayList<>();
        long id = 1;
        for (String l : out.toString(StandardCharsets.UTF_8).split("\n")) {
            Protocol.Envelope e = Protocol.parse(l);
            assertEquals(id++, e.id(), l);
            errors.add(Protocol.read(e, Messages.Error.class));
        }
        assertEquals(11, errors.size());
        assertEquals("startCapture: 3 events; at most 2 per capture", errors.get(0).message());
        assertEquals("startCapture: bufferKb 4096 outside 1..1024", errors.get(1).message());
        assertEquals("startCapture: bufferKb 0 outside 1..1024", errors.get(2).message());
        assertTrue(errors.get(3).message().startsWith("startCapture: iface: "), errors.get(3).message());
        assertTrue(errors.get(4).message().startsWith("startCapture: iface: "), errors.get(4).message());
        assertEquals("pcapng: /etc/tracewire-test.pcapng: the directory /etc is not writable by uid 65534",
                errors.get(5).message());
        assertEquals("pcapng: /root/tracewire-test.pcapng: uid 65534 cannot enter /root", errors.get(6).message());
        assertEquals("pcapng: relative.pcapng: the path must be absolute", errors.get(7).message());
        assertEquals("startCapture: 'events' is empty", errors.get(8).message());
        // a crafted event name is refused when the command arrives (EventSelector), before anything is created
        assertEquals("startCapture: events[0]: '../x:y' is not SYSTEM:EVENT, SYSTEM or EVENT (globs allowed)", errors.get(9).message());
        assertEquals("startCapture: events[0]: stack 'kernal' is not kernel, user, both or none",
                errors.get(10).message());
        assertFalse(Files.exists(Path.of("/etc/tracewire-test.pcapng")));
    }

    /**
     * The acceptance test: the real backend process, started the way pkexec starts it (root, with
     * {@code PKEXEC_UID} of the unprivileged user nobody), refuses pcapng paths in /etc and /root and
     * writes one in a directory nobody may write, owned by nobody.
     */
    @Test
    @Tag("live")
    void theBackendProcessWritesAsTheInvokingUser(@TempDir Path tmp) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireRoot();
        Path dir = Files.createDirectory(tmp.resolve("nobody"));
        Files.setAttribute(dir, "unix:uid", 65534);
        Files.setAttribute(tmp, "unix:mode", 0755);
        Path pcapng = dir.resolve("capture.pcapng");
        Path etc = Path.of("/etc/tracewire-" + ProcessHandle.current().pid() + ".pcapng");
        Path root = Path.of("/root/tracewire-" + ProcessHandle.current().pid() + ".pcapng");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "org.tracewire.backend.BackendMain").redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().remove("SUDO_UID");
        pb.environment().remove("SUDO_GID");
        pb.environment().put("PKEXEC_UID", "65534");
        Process p = pb.start();
        try (OutputStream cmd = p.getOutputStream();
             BufferedReader replies = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            List<CaptureEvent> ev = List.of(new CaptureEvent("sched:sched_switch", null));
            send(cmd, request(ev, null, etc.toString(), null), 1);
            assertEquals("pcapng: " + etc + ": the directory /etc is not writable by uid 65534",
                    next(replies, 1, Messages.Error.class).message());
            send(cmd, request(ev, null, root.toString(), null), 2);
            assertEquals("pcapng: " + root + ": uid 65534 cannot enter /root",
                    next(replies, 2, Messages.Error.class).message());
            send(cmd, request(ev, null, pcapng.toString(), 1024), 3);
            Messages.Started started = next(replies, 3, Messages.Started.class);
            assertEquals(pcapng.toString(), started.pcapng());
            for (int i = 0; i < 20; i++) {
                new ProcessBuilder("sh", "-c", "cat /proc/version > /dev/null").start().waitFor();
            }
            send(cmd, new Messages.StopCaptureRequest(), 4);
            Messages.Stats fin = next(replies, 4, Messages.Stopped.class).stats();
            assertTrue(fin.frames() > 0, fin.toString());
            assertFalse(top.instanceNames().contains(started.instance()), "instance left behind");
            send(cmd, new Messages.QuitRequest(), 5);
            next(replies, 5, Messages.Bye.class);
        } finally {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroy();
            }
        }
        assertEquals(0, p.exitValue());
        assertFalse(Files.exists(etc));
        assertFalse(Files.exists(root));
        assertEquals(65534, Files.getAttribute(pcapng, "unix:uid"), "owned by the invoking user");
        assertEquals(65534, Files.getAttribute(pcapng, "unix:gid"), "and their group (nogroup)");
        byte[] head = Files.readAllBytes(pcapng);
        assertTrue(head.length > 100);
        assertArrayEquals(new byte[] {0x0a, 0x0d, 0x0d, 0x0a}, Arrays.copyOf(head, 4), "a pcapng section");
    }
}
