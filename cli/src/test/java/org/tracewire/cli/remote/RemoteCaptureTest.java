package org.tracewire.cli.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.capture.FrameOutputs;
import org.tracewire.capture.PcapngOutput;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.wire.MacAddress;

/**
 * {@link RemoteCapture} against a stand-in {@code ssh} (a script running the remote command with
 * {@code sh -c}, as the remote login shell would) and a stand-in remote tracewire that writes a
 * canned pcapng (link type 162): the frames, the drop counts (also those after the last frame) and
 * the remote host's identity reach the local file; a stream of another link type is refused; failures
 * give the messages users see.
 */
class RemoteCaptureTest {
    @TempDir
    Path dir;
    Path ssh;
    Path remote;
    Path canned;
    Path argsFile;

    @BeforeEach
    void setUp() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        RemoteCommandTest.write(bin.resolve("id"), "#!/bin/sh\necho 0\n");
        ssh = dir.resolve("fake-ssh");
        RemoteCommandTest.write(ssh, "#!/bin/sh\nfor a; do last=$a; done\nPATH='" + bin + "':$PATH exec sh -c \"$last\"\n");
        remote = Files.createDirectories(dir.resolve("remote"));
        canned = dir.resolve("canned.pcapng");
        argsFile = dir.resolve("args");
        RemoteCommandTest.write(remote.resolve("tracewire"), "#!/bin/sh\necho \"$@\" > '" + argsFile + "'\n"
                + "echo 'capture: events read 3' >&2\nexec cat '" + canned + "'\n");
        try (PcapngWriter w = PcapngWriter.create(canned, new SectionInfo("Far CPU", "Linux 9.9", "tracewire test", "host far"))) {
            int i = w.addInterface(InterfaceInfo.tracewire("tracewire", "ftrace events of far", 65535)
                    .withHost(new SectionInfo("Far CPU", "Linux 9.9", "t")).withComment("host far; trace clock mono"));
            for (int k = 0; k < 3; k++) {
                byte[] f = new byte[46]; // a version-2 event frame: header + 30 payload bytes
                f[0] = 2;
                f[20] = (byte) k;
                w.writePacket(i, 1_000 + k, ByteBuffer.wrap(f), f.length, k == 1 ? 2 : 0);
            }
            w.addDrops(i, 5);
        }
    }

    private RemoteCapture capture(String remotePath, StringWriter err) {
        return new RemoteCapture(new RemoteCapture.Options(SshTarget.parse("root@far", 0, null, List.of()), remotePath,
                List.of("-e", "sched:sched_switch"), 0, ssh.toString()), new PrintWriter(err, true));
    }

    @Test
    void framesDropsAndIdentityReachTheLocalFile() throws Exception {
        Path out = dir.resolve("local.pcapng");
        StringWriter err = new StringWriter();
        RemoteCapture.Result r = capture(remote.toString(), err).run((section, idb) -> List.of(
                new PcapngOutput(out.toString(), FrameOutputs.FileOpener.PLAIN.open(out), false, section, idb)));
        assertEquals(3, r.frames());
        assertEquals(7, r.lost(), "2 in a frame + 5 after the last");
        assertEquals("capture -e sched:sched_switch --no-iface -w - --stop-on-stdin-eof\n", Files.readString(argsFile));
        assertTrue(err.toString().contains("far: capture: events read 3"), err.toString());
        try (PcapngPacketReader in = new PcapngPacketReader(out)) {
            long[] drops = new long[3];
            for (int k = 0; k < 3; k++) {
                PcapngPacketReader.Packet p = in.next();
                assertEquals(1_000 + k, p.timeNs());
                assertEquals(k, p.data()[20]);
                drops[k] = p.dropCount();
            }
            assertEquals(null, in.next());
            assertEquals(2, drops[1]);
            assertEquals(7, in.statisticsDrops(0));
            SectionInfo s = in.section();
            assertEquals("Far CPU", s.hardware());
            assertEquals("Linux 9.9", s.os());
            assertTrue(s.comment().startsWith("host far; received over ssh from root@far by "), s.comment());
            InterfaceInfo i = in.interfaces().get(0);
            assertEquals("ftrace events of far", i.description());
            assertEquals("host far; trace clock mono", i.comment());
            assertEquals("Linux 9.9", i.os());
            assertEquals("Far CPU", i.hardware());
        }
    }

    @Test
    void aStreamOfEthernetFramesIsRefused() throws Exception {
        try (PcapngWriter w = PcapngWriter.create(canned, new SectionInfo("Far CPU", "Linux 9.9", "tracewire 0.0", "host far"))) {
            w.addInterface(InterfaceInfo.ethernet("tracewire", "ftrace events of far", 1514));
        }
        StringWriter err = new StringWriter();
        RemoteCapture.RemoteException e = assertThrows(RemoteCapture.RemoteException.class,
                () -> capture(remote.toString(), err).run((s, i) -> List.of()));
        assertTrue(e.getMessage().contains("interface link type 1 is not tracewire's (162)"), e.getMessage());
    }

    @Test
    void theRemoteSourceMacComesFromItsInterfaceComment() {
        InterfaceInfo i = InterfaceInfo.tracewire("tracewire", "ftrace events of far", 65535)
                .withComment("host far; source MAC 16:85:86:91:6b:54; trace clock mono");
        assertEquals("16:85:86:91:6b:54", RemoteCapture.sourceMac(i).toString());
        assertEquals(MacAddress.forHost("far"),
                RemoteCapture.sourceMac(InterfaceInfo.tracewire("tracewire", "ftrace events of far", 65535)));
    }

    @Test
    void aMissingTracewireSaysWhereAndWhatToDo() {
        StringWriter err = new StringWriter();
        RemoteCapture.RemoteException e = assertThrows(RemoteCapture.RemoteException.class,
                () -> capture(dir.resolve("elsewhere").toString(), err).run((s, i) -> List.of()));
        assertEquals("tracewire not found on far at " + dir.resolve("elsewhere")
                + ": install it there or pass --remote-path", e.getMessage());
    }

    @Test
    void aConnectionFailureNamesTheDestination() throws Exception {
        RemoteCommandTest.write(ssh, "#!/bin/sh\necho 'ssh: connect to host far port 22: Connection refused' >&2\nexit 255\n");
        StringWriter err = new StringWriter();
        RemoteCapture.RemoteException e = assertThrows(RemoteCapture.RemoteException.class,
                () -> capture(null, err).run((s, i) -> List.of()));
        assertTrue(e.getMessage().startsWith("ssh to root@far failed: ssh: connect to host far port 22: Connection refused"),
                e.getMessage());
    }

    @Test
    void aStreamThatIsNotPcapngIsRefused() throws Exception {
        Files.writeString(canned, "Welcome to far!\n");
        StringWriter err = new StringWriter();
        RemoteCapture.RemoteException e = assertThrows(RemoteCapture.RemoteException.class,
                () -> capture(remote.toString(), err).run((s, i) -> List.of()));
        assertTrue(e.getMessage().startsWith("far sent a malformed pcapng stream: pcapng offset 0"), e.getMessage());
    }
}
