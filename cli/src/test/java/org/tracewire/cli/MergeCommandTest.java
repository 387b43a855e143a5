package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireHeader;
import org.tracewire.testing.Prerequisites;

/**
 * {@code tracewire merge}: two hosts' captures (wire format v2, link type 162) in one file, checked
 * with tshark: frames in time order, each input's frames unchanged on its host's interface (the
 * context scope), its CAPTURE frame before its events; a broken input is named.
 */
@Tag("tshark")
class MergeCommandTest {
    /** A v2 capture of one host: a CAPTURE frame, then one EVENT frame (a fixture record) per time. */
    static void write(Path file, String host, long... times) throws Exception {
        SectionInfo s = new SectionInfo("CPU", "Linux 6.18", "tracewire test", "host " + host);
        EventRecord r = FixtureRecords.load().get(0);
        FrameEncoder enc = new FrameEncoder();
        try (PcapngWriter w = PcapngWriter.create(file, s)) {
            int i = w.addInterface(InterfaceInfo.tracewire("tracewire", "ftrace events of " + host, 65535).withHost(s));
            ByteBuffer capture = enc.context(ContextMessage.builder(FrameKind.CAPTURE)
                    .text(ContextMessage.CAPTURE_ID, host).build(), WireHeader.NO_CPU, true, times[0]).get(0);
            w.writePacket(i, times[0], capture, capture.remaining(), 0);
            for (long t : times) {
                ByteBuffer f = ByteBuffer.allocate(256);
                enc.event(r.layout().byteOrder(), r.payload(), 0, t, false, f);
                f.flip();
                w.writePacket(i, t, f, f.remaining(), 0);
            }
        }
    }

    @Test
    void twoHostsInTimeOrderEachOnItsInterface(@TempDir Path dir) throws Exception {
        Prerequisites.requireTool("tshark");
        Path a = dir.resolve("a.pcapng");
        Path b = dir.resolve("b.pcapng");
        write(a, "alpha", 1_000_000_000L, 3_000_000_000L);
        write(b, "beta", 2_000_000_000L, 4_000_000_000L);
        Path out = dir.resolve("m.pcapng");
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int rc = Main.run(new String[] {"merge", a.toString(), b.toString(), "-w", out.toString()}, new PrintStream(o), new PrintStream(e));
        assertEquals(0, rc, e.toString(StandardCharsets.UTF_8));
        assertEquals("merge: 6 packets from 2 files, 2 interfaces -> " + out + "\n", o.toString(StandardCharsets.UTF_8));
        Process p = new ProcessBuilder("tshark", "-r", out.toString(), "-T", "fields", "-E", "separator=|",
                "-e", "frame.time_epoch", "-e", "frame.interface_id", "-e", "frame.interface_description")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        p.waitFor();
        assertEquals(List.of("1.000000000|0|ftrace events of alpha", "1.000000000|0|ftrace events of alpha",
                "2.000000000|1|ftrace events of beta", "2.000000000|1|ftrace events of beta",
                "3.000000000|0|ftrace events of alpha", "4.000000000|1|ftrace events of beta"), lines);

        Path bad = dir.resolve("bad.pcapng");
        Files.writeString(bad, "nope");
        e.reset();
        assertEquals(1, Main.run(new String[] {"merge", a.toString(), bad.toString(), "-w", out.toString()},
                new PrintStream(o), new PrintStream(e)));
        assertTrue(e.toString(StandardCharsets.UTF_8).startsWith("merge: " + bad + ": pcapng offset 0"), e.toString());
    }
}
