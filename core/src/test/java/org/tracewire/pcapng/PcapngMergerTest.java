package org.tracewire.pcapng;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PcapngMerger}: two hosts' captures become one file in time order with one interface per
 * host, each keeping its host identity; drop counts (in packets and after the last one) survive;
 * a broken input is named.
 */
class PcapngMergerTest {
    static Path capture(Path file, String host, long[] times, long dropAfterLast) throws IOException {
        SectionInfo s = new SectionInfo(host + " CPU", "Linux " + host, "tracewire test", "host " + host);
        try (PcapngWriter w = PcapngWriter.create(file, s)) {
            int i = w.addInterface(InterfaceInfo.ethernet("tracewire", "ftrace events of " + host, 1514)
                    .withHost(s).withComment("host " + host + "; trace clock mono"));
            for (int k = 0; k < times.length; k++) {
                byte[] f = new byte[20];
                f[0] = (byte) host.charAt(0);
                f[1] = (byte) k;
                w.writePacket(i, times[k], ByteBuffer.wrap(f), f.length, k == 0 ? 1 : 0);
            }
            w.addDrops(i, dropAfterLast);
        }
        return file;
    }

    @Test
    void twoHostsMergeInTimeOrderWithTheirIdentity(@TempDir Path dir) throws IOException {
        Path a = capture(dir.resolve("a.pcapng"), "alpha", new long[] {10, 30, 50, 50}, 4);
        Path b = capture(dir.resolve("b.pcapng"), "beta", new long[] {20, 30, 40, 60}, 0);
        Path out = dir.resolve("out.pcapng");
        PcapngMerger.Result r = PcapngMerger.merge(List.of(a, b), out, new SectionInfo("m", "Linux", "tracewire", "merged"));
        assertEquals(new PcapngMerger.Result(8, 2, 10, 60, List.of()), r);
        List<String> order = new ArrayList<>();
        try (PcapngPacketReader in = new PcapngPacketReader(out)) {
            for (PcapngPacketReader.Packet p = in.next(); p != null; p = in.next()) {
                order.add((char) p.data()[0] + "" + p.data()[1] + "@" + p.timeNs() + "/if" + p.interfaceId() + "/d" + p.dropCount());
            }
            assertEquals(List.of("a0@10/if0/d1", "b0@20/if1/d1", "a1@30/if0/d0", "b1@30/if1/d0", "b2@40/if1/d0",
                    "a2@50/if0/d0", "a3@50/if0/d0", "b3@60/if1/d0"), order);
            List<InterfaceInfo> ifs = in.interfaces();
            assertEquals("ftrace events of alpha", ifs.get(0).description());
            assertEquals("ftrace events of beta", ifs.get(1).description());
            assertEquals("Linux alpha", ifs.get(0).os());
            assertEquals("beta CPU", ifs.get(1).hardware());
            assertEquals("host alpha; trace clock mono", ifs.get(0).comment());
            assertEquals(1 + 4, in.statisticsDrops(0), "the packet's drop + those after the last");
            assertEquals(1, in.statisticsDrops(1));
            assertEquals("merged", in.section().comment());
        }
    }

    @Test
    void anInterfaceWithoutHostOptionsTakesItsSections(@TempDir Path dir) throws IOException {
        Path a = dir.resolve("plain.pcapng");
        try (PcapngWriter w = PcapngWriter.create(a, new SectionInfo("hw", "Linux 1", "x", "host plain"))) {
            w.writePacket(w.addInterface(InterfaceInfo.ethernet("eth0", "", 100)), 5, new byte[14]);
        }
        Path out = dir.resolve("out.pcapng");
        PcapngMerger.merge(List.of(a), out, SectionInfo.host("test"));
        try (PcapngPacketReader in = new PcapngPacketReader(out)) {
            in.next();
            InterfaceInfo i = in.interfaces().get(0);
            assertEquals(new InterfaceInfo(1, 100, "eth0", "plain.pcapng", "Linux 1", "hw", "host plain"), i);
        }
    }

    @Test
    void aBrokenInputIsNamed(@TempDir Path dir) throws IOException {
        Path a = capture(dir.resolve("a.pcapng"), "alpha", new long[] {1}, 0);
        Path bad = dir.resolve("bad.pcapng");
        Files.writeString(bad, "not a capture");
        IOException e = assertThrows(IOException.class,
                () -> PcapngMerger.merge(List.of(a, bad), dir.resolve("o.pcapng"), SectionInfo.host("t")));
        assertTrue(e.getMessage().startsWith(bad + ": pcapng offset 0"), e.getMessage());
    }
}
