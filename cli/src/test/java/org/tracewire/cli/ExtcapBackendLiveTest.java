package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.protocol.BackendLauncher;
import org.tracewire.testing.HostState;
import org.tracewire.testing.NobodysFifo;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireDecoder;
import org.tracewire.wire.WireFrame;
import picocli.CommandLine;

/**
 * The extcap run by a user who is not root (issue #12: "privileged via the backend ... else pkexec /
 * sudo -A as the app does"): it starts {@code tracewire backend} through the command
 * {@link BackendLauncher} chooses, and the backend writes the capture into the user's FIFO. Here the
 * test (root) plays both sides: the FIFO and its folder belong to {@code nobody} (uid 65534), and a
 * stand-in {@code sudo} on PATH runs the backend as root with {@code SUDO_UID=65534}, as sudo would,
 * so the backend checks the FIFO as nobody's. A reader reads the FIFO for 3 s and closes it, as
 * Wireshark does when it stops: the backend's capture ends with EPIPE, the extcap exits 0, and no
 * instance is left.
 */
@Tag("live")
@Tag("concurrent")
class ExtcapBackendLiveTest {
    @Test
    void aUserWhoIsNotRootCapturesThroughTheBackendIntoTheirFifo(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireRoot();
        Prerequisites.requireTool("mkfifo");
        HostState before = HostState.of(top);
        Path fifo = NobodysFifo.create(dir, "tracewire_fifo");

        Path bin = Files.createDirectory(dir.resolve("bin"));
        write(bin.resolve("sudo"), "#!/bin/sh\n[ \"$1\" = -A ] && shift\nSUDO_UID=65534 SUDO_GID=65534 exec \"$@\"\n");
        Path launcher = bin.resolve("tracewire");
        write(launcher, "#!/bin/sh\n[ \"$1\" = backend ] && shift\nexec '"
                + Path.of(System.getProperty("java.home"), "bin", "java") + "' -Dtracewire.snapshot='" + Prerequisites.snapshot()
                + "' -cp '" + System.getProperty("java.class.path") + "' org.tracewire.backend.BackendMain \"$@\"\n");
        BackendLauncher.Result how = BackendLauncher.command(launcher, false,
                Map.of("PATH", bin.toString(), "SUDO_ASKPASS", "/bin/true"));
        assertEquals(List.of(bin.resolve("sudo").toString(), "-A", launcher.toString(), "backend"), how.command());

        // the reader, as dumpcap: opens the FIFO a moment after the extcap started, reads for 3 s, closes it
        long start = System.currentTimeMillis() * 1_000_000L;
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> {
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            try {
                Thread.sleep(300);
                try (InputStream in = Files.newInputStream(fifo)) {
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                    byte[] b = new byte[1 << 16];
                    while (System.nanoTime() < end) {
                        int n = in.read(b);
                        if (n < 0) {
                            break;
                        }
                        got.write(b, 0, n);
                    }
                }
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return got.toByteArray();
        });
        ExtcapCommand extcap = new ExtcapCommand();
        new CommandLine(extcap).parseArgs("--capture", "--extcap-interface", "tracewire", "--fifo", fifo.toString(),
                "--events", "sched:sched_switch,sched:sched_wakeup", "--buffer-kb", "1024");
        StringWriter err = new StringWriter();
        // without the backend's stop on a failed output this would wait for a SIGTERM that never comes
        int rc = assertTimeoutPreemptively(Duration.ofSeconds(60),
                () -> extcap.captureViaBackend(new PrintWriter(err, true), how.command()));
        long end = System.currentTimeMillis() * 1_000_000L;
        assertEquals(0, rc, "a FIFO its reader closed is a normal end: " + err);
        assertEquals("", err.toString());

        byte[] stream = read.get(30, TimeUnit.SECONDS);
        int events = 0;
        int context = 0;
        boolean captureFirst = false;
        try (PcapngPacketReader r = new PcapngPacketReader(new ByteArrayInputStream(stream))) {
            while (true) {
                PcapngPacketReader.Packet p;
                try {
                    p = r.next();
                } catch (IOException cutAtTheEnd) {
                    break; // the reader closed the FIFO in the middle of a block
                }
                if (p == null) {
                    break;
                }
                WireFrame f = WireDecoder.decodeBare(p.data());
                if (events == 0 && context == 0) {
                    captureFirst = f.kind() == FrameKind.CAPTURE;
                }
                if (f.kind() == FrameKind.EVENT) {
                    events++;
                    assertTrue(p.timeNs() >= start - 1_000_000_000L && p.timeNs() <= end, "an event's time as the frame's");
                } else {
                    context++;
                }
            }
            assertEquals(162, r.interfaces().get(0).linkType());
        }
        assertTrue(captureFirst, "the stream starts with its CAPTURE frame");
        assertTrue(events > 10, events + " sched events in 3 s");
        assertTrue(context >= 3, "CAPTURE and both FORMATs: " + context);
        assertEquals(NobodysFifo.UID, Files.getAttribute(fifo, "unix:uid"), "still the user's FIFO");
        assertEquals(List.of(), HostState.of(top).leftSince(before), "no instance or setting left behind");
    }

    private static void write(Path p, String text) throws IOException {
        Files.writeString(p, text);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
