package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.testing.Prerequisites;

/**
 * {@code tracewire merge}: two hosts' captures in one file, checked with tshark: frames in time
 * order, each on its host's interface; a broken input is named.
 */
@Tag("tshark")
class MergeCommandTest {
    static void write(Path file, String host, long... times) throws Exception {
        SectionInfo s = new SectionInfo("CPU", "Linux 6.18", "tracewire test", "host " + host);
        try (PcapngWriter w = PcapngWriter.create(file, s)) {
            int i = w.addInterface(InterfaceInfo.ethernet("tracewire", "ftrace events of " + host, 1514).withHost(s));
            for (long t : times) {
                byte[] f = new byte[60];
                f[12] = (byte) 0x88;
                f[13] = (byte) 0xB5;
                w.writePacket(i, t, ByteBuffer.wrap(f), 60, 0);
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
        assertEquals("merge: 4 packets from 2 files, 2 interfaces -> " + out + "\n", o.toString(StandardCharsets.UTF_8));
        Process p = new ProcessBuilder("tshark", "-r", out.toString(), "-T", "fields", "-E", "separator=|",
                "-e", "frame.time_epoch", "-e", "frame.interface_id", "-e", "frame.interface_description")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        p.waitFor();
        assertEquals(List.of("1.000000000|0|ftrace events of alpha", "2.000000000|1|ftrace events of beta",
                "3.000000000|0|ftrace events of alpha", "4.000000000|1|ftrace events of beta"), lines);

        Path bad = dir.resolve("bad.pcapng");
        java.nio.file.Files.writeString(bad, "nope");
        e.reset();
        assertEquals(1, Main.run(new String[] {"merge", a.toString(), bad.toString(), "-w", out.toString()},
                new PrintStream(o), new PrintStream(e)));
        assertTrue(e.toString(StandardCharsets.UTF_8).startsWith("merge: " + bad + ": pcapng offset 0"), e.toString());
    }
}
