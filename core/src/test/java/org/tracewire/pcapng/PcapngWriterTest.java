package org.tracewire.pcapng;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writes pcapng and parses it back with a strict reader of its own. */
class PcapngWriterTest {
    static final SectionInfo SECTION = new SectionInfo("Test CPU", "Linux 6.18.0", "tracewire 0.1.0");

    @Test
    void blocksOptionsAndPackets() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] p1 = {1, 2, 3, 4, 5};
        byte[] p2 = new byte[64];
        Arrays.fill(p2, (byte) 7);
        try (PcapngWriter w = new PcapngWriter(bytes, SECTION)) {
            int a = w.addInterface(InterfaceInfo.ethernet("tracewire0", "ftrace events of vm", 1514));
            int b = w.addInterface(InterfaceInfo.ethernet("cut", "", 16));
            assertEquals(0, a);
            assertEquals(1, b);
            w.writePacket(a, 1_700_000_000_123_456_789L, ByteBuffer.wrap(p1), 5, 0);
            w.writePacket(a, 1_700_000_000_223_456_789L, ByteBuffer.wrap(p2), 64, 3);
            w.writePacket(b, 5L << 32 | 7, ByteBuffer.wrap(p2), 64, 0);
            w.addDrops(a, 2);
            assertEquals(2, w.packets(a));
        }
        PcapngReader r = new PcapngReader(bytes.toByteArray());
        ByteOrder o = r.order;
        assertEquals(ByteOrder.nativeOrder(), o, "written in host byte order");
        List<Integer> types = r.blocks.stream().map(PcapngReader.Block::type).toList();
        assertEquals(List.of(PcapngWriter.SHB, 1, 1, 6, 6, 6, 5, 5), types);

        PcapngReader.Block shb = r.blocks.get(0);
        assertEquals(1, shb.body().getShort(4));
        assertEquals(0, shb.body().getShort(6));
        assertEquals(-1L, shb.body().getLong(8));
        assertEquals("Test CPU", shb.text(PcapngWriter.SHB_HARDWARE));
        assertEquals("Linux 6.18.0", shb.text(PcapngWriter.SHB_OS));
        assertEquals("tracewire 0.1.0", shb.text(PcapngWriter.SHB_USERAPPL));

        PcapngReader.Block idb = r.blocks.get(1);
        assertEquals(1, idb.body().getShort(0), "LINKTYPE_ETHERNET");
        assertEquals(1514, idb.body().getInt(4));
        assertEquals("tracewire0", idb.text(PcapngWriter.IF_NAME));
        assertEquals("ftrace events of vm", idb.text(PcapngWriter.IF_DESCRIPTION));
        assertArrayEquals(new byte[] {9}, idb.option(PcapngWriter.IF_TSRESOL));
        assertNull(r.blocks.get(2).option(PcapngWriter.IF_DESCRIPTION), "empty description left out");

        List<PcapngReader.Block> epb = r.ofType(PcapngWriter.EPB);
        PcapngReader.Block e1 = epb.get(0);
        assertEquals(0, e1.body().getInt(0));
        long ts = ((long) e1.body().getInt(4) << 32) | (e1.body().getInt(8) & 0xffffffffL);
        assertEquals(1_700_000_000_123_456_789L, ts);
        assertEquals(5, e1.body().getInt(12));
        assertEquals(5, e1.body().getInt(16));
        byte[] data = new byte[5];
        e1.body().get(20, data);
        assertArrayEquals(p1, data);
        assertEquals(0, e1.body().get(25), "padding is zero");
        assertEquals(32 + 8, e1.length());
        assertNull(e1.option(PcapngWriter.EPB_DROPCOUNT), "no drop count option when zero");

        PcapngReader.Block e2 = epb.get(1);
        assertEquals(3, e2.u64(PcapngWriter.EPB_DROPCOUNT, o));
        assertEquals(32 + 64 + 16, e2.length());

        PcapngReader.Block e3 = epb.get(2);
        assertEquals(1, e3.body().getInt(0));
        assertEquals(5, e3.body().getInt(4));
        assertEquals(7, e3.body().getInt(8));
        assertEquals(16, e3.body().getInt(12), "cut to the snap length");
        assertEquals(64, e3.body().getInt(16));

        List<PcapngReader.Block> isb = r.ofType(PcapngWriter.ISB);
        PcapngReader.Block s0 = isb.get(0);
        assertEquals(0, s0.body().getInt(0));
        assertEquals(1_700_000_000_123_456_789L, s0.time(PcapngWriter.ISB_STARTTIME, o));
        assertEquals(1_700_000_000_223_456_789L, s0.time(PcapngWriter.ISB_ENDTIME, o));
        assertEquals(2 + 5, s0.u64(PcapngWriter.ISB_IFRECV, o));
        assertEquals(5, s0.u64(PcapngWriter.ISB_IFDROP, o), "3 from a packet, 2 added");
        PcapngReader.Block s1 = isb.get(1);
        assertEquals(1, s1.body().getInt(0));
        assertEquals(1, s1.u64(PcapngWriter.ISB_IFRECV, o));
        assertEquals(0, s1.u64(PcapngWriter.ISB_IFDROP, o));
    }

    @Test
    void manyPacketsThroughAFileChannelAndBigPackets(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("x.pcapng");
        Random rnd = new Random(5);
        byte[][] packets = new byte[20_000][];
        try (PcapngWriter w = PcapngWriter.create(file, SectionInfo.host("test"))) {
            int i0 = w.addInterface(InterfaceInfo.ethernet("tw", "d", 0));
            for (int i = 0; i < packets.length; i++) {
                packets[i] = new byte[i == 7 ? 300_000 : rnd.nextInt(1515)];
                rnd.nextBytes(packets[i]);
                w.writePacket(i0, i, ByteBuffer.wrap(packets[i]), packets[i].length, i % 100 == 0 ? i : 0);
            }
        }
        PcapngReader r = new PcapngReader(Files.readAllBytes(file));
        List<PcapngReader.Block> epb = r.ofType(PcapngWriter.EPB);
        assertEquals(packets.length, epb.size());
        for (int i = 0; i < packets.length; i++) {
            PcapngReader.Block e = epb.get(i);
            byte[] d = new byte[e.body().getInt(12)];
            e.body().get(20, d);
            assertArrayEquals(packets[i], d, "packet " + i);
            assertEquals(i, e.body().getInt(8));
        }
        PcapngReader.Block shb = r.blocks.get(0);
        assertTrue(shb.text(PcapngWriter.SHB_USERAPPL).equals("tracewire test"));
        assertTrue(shb.text(PcapngWriter.SHB_OS).startsWith(System.getProperty("os.name")));
    }

    @Test
    void misuseIsRefused() throws Exception {
        PcapngWriter w = new PcapngWriter(new ByteArrayOutputStream(), SECTION);
        assertThrows(IllegalArgumentException.class, () -> w.writePacket(0, 0, new byte[1]));
        int i = w.addInterface(InterfaceInfo.ethernet("a", "b", 100));
        assertThrows(IllegalArgumentException.class, () -> w.writePacket(i, 0, ByteBuffer.allocate(1), 1, -1));
        w.close();
        w.close();
        assertThrows(IllegalStateException.class, () -> w.writePacket(i, 0, new byte[1]));
    }

    /**
     * Packets written as a 16-byte prefix and bytes copied from a buffer come out byte for byte as
     * {@code writePacket} writes the whole packet, for every padding, across buffer flushes, mixed
     * with copied ones, and count into the statistics; bad lengths and indexes are refused.
     */
    @Test
    void packetsWithAPrefixEqualPacketsCopiedIn() throws Exception {
        Random rnd = new Random(12);
        ByteArrayOutputStream viaCopy = new ByteArrayOutputStream();
        ByteArrayOutputStream prefixed = new ByteArrayOutputStream();
        ByteBuffer src = ByteBuffer.allocateDirect(300);
        try (PcapngWriter a = new PcapngWriter(viaCopy, SECTION); PcapngWriter b = new PcapngWriter(prefixed, SECTION)) {
            InterfaceInfo iface = InterfaceInfo.tracewire("tw", "x", 1000);
            a.addInterface(iface);
            b.addInterface(iface);
            for (int i = 0; i < 4000; i++) {
                int n = i < 10 ? i : rnd.nextInt(200);
                byte[] p = new byte[16 + n];
                rnd.nextBytes(p);
                long t = 1_700_000_000_000_000_000L + i * 1000L + rnd.nextInt(999);
                a.writePacket(0, t, ByteBuffer.wrap(p), p.length, 0);
                if (i % 17 == 0) {
                    b.writePacket(0, t, ByteBuffer.wrap(p), p.length, 0);
                    continue;
                }
                ByteBuffer bp = ByteBuffer.wrap(p); // big-endian: the prefix as two values
                int from = rnd.nextInt(300 - n + 1);
                src.put(from, p, 16, n);
                b.writePacket(0, t, bp.getLong(0), bp.getLong(8), src, from, n);
            }
            assertEquals(a.packets(0), b.packets(0));
            assertThrows(IllegalArgumentException.class, () -> b.writePacket(0, 1, 0, 0, ByteBuffer.allocate(1000), 0, 985),
                    "beyond the snap length");
            assertThrows(IndexOutOfBoundsException.class, () -> b.writePacket(0, 1, 0, 0, src, 290, 11), "beyond src");
            assertThrows(IndexOutOfBoundsException.class, () -> b.writePacket(0, 1, 0, 0, src, 0, -1), "negative");
            assertThrows(IllegalArgumentException.class, () -> b.writePacket(1, 1, 0, 0, src, 0, 8), "unknown interface");
        }
        assertArrayEquals(viaCopy.toByteArray(), prefixed.toByteArray());
    }
}
