package org.tracewire.pcapng;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PcapngPacketReader} on files written by {@link PcapngWriter} and then damaged: lengths
 * that overflow 32-bit arithmetic, blocks cut at every byte, lengths that lie. Every packet before
 * the damaged block is returned; the error names its file offset and block number.
 */
class PcapngPacketReaderTest {
    /** SHB, IDB, then three packets of 5, 64 and 7 bytes (little endian, this host's order). */
    private static byte[] file() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PcapngWriter w = new PcapngWriter(bytes, new SectionInfo("hw", "os", "app"))) {
            int a = w.addInterface(InterfaceInfo.ethernet("tw0", "", 1514));
            w.writePacket(a, 1_000, ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5}), 5, 0);
            w.writePacket(a, 2_000, ByteBuffer.wrap(new byte[64]), 64, 0);
            w.writePacket(a, 3_000, ByteBuffer.wrap(new byte[7]), 7, 0);
        }
        return bytes.toByteArray();
    }

    /** File offsets of the blocks. */
    private static List<Integer> blocks(byte[] f) {
        List<Integer> r = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN);
        for (int o = 0; o < f.length; o += b.getInt(o + 4)) {
            r.add(o);
        }
        return r;
    }

    private static List<PcapngPacketReader.Packet> readAll(PcapngPacketReader r) throws IOException {
        List<PcapngPacketReader.Packet> out = new ArrayList<>();
        for (PcapngPacketReader.Packet p = r.next(); p != null; p = r.next()) {
            out.add(p);
        }
        return out;
    }

    @Test
    void skippedPacketsAreNotReturnedAndTheOthersKeepTheirTimesAndOffsets() throws IOException {
        byte[] f = file();
        List<Integer> at = blocks(f);
        List<String> seen = new ArrayList<>();
        PcapngPacketReader.Skip longOnes = (linkType, block, from, length) -> {
            seen.add(linkType + ":" + length + ":" + block[from]);
            return length == 64;
        };
        try (PcapngPacketReader r = new PcapngPacketReader(new ByteArrayInputStream(f))) {
            PcapngPacketReader.Packet a = r.next(longOnes);
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, a.data());
            assertEquals(at.get(2).longValue(), r.packetOffset());
            PcapngPacketReader.Packet c = r.next(longOnes);
            assertEquals(7, c.data().length);
            assertEquals(3_000, c.timeNs());
            assertEquals(at.get(4).longValue(), r.packetOffset(), "the offset of the packet returned, not of the one passed over");
            assertNull(r.next(longOnes));
        }
        assertEquals(List.of("1:5:1", "1:64:0", "1:7:0"), seen);
        // a damaged block after a skipped one still ends reading there
        byte[] m = f.clone();
        ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putInt(at.get(4) + 4, 13);
        try (PcapngPacketReader r = new PcapngPacketReader(new ByteArrayInputStream(m))) {
            r.next(longOnes);
            PcapngFormatException e = assertThrows(PcapngFormatException.class, () -> r.next(longOnes));
            assertEquals(at.get(4).longValue(), e.offset());
        }
    }

    @Test
    void capturedLengthsNearTwoToThe31AreErrorsNotAllocations() throws IOException {
        byte[] f = file();
        List<Integer> at = blocks(f);
        int epb = at.get(3); // the second packet
        for (long cap : new long[] {0x7FFFFFFCL, 0x7FFFFFFDL, 0x7FFFFFFEL, 0x7FFFFFFFL, 0x80000000L, 0xFFFFFFFDL,
            0xFFFFFFFFL, 65}) {
            byte[] m = f.clone();
            ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putInt(epb + 20, (int) cap);
            try (PcapngPacketReader r = new PcapngPacketReader(new ByteArrayInputStream(m))) {
                assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, r.next().data());
                PcapngFormatException e = assertThrows(PcapngFormatException.class, r::next);
                assertEquals("pcapng offset " + epb + " (block 4): captured length " + cap + " exceeds the block (96 bytes)",
                        e.getMessage());
                assertEquals(epb, e.offset());
                assertEquals(4, e.block());
                assertFalse(e.truncated());
                assertSame(e, r.failure());
                assertSame(e, assertThrows(PcapngFormatException.class, r::next), "the reader stays at the error");
            }
        }
    }

    @Test
    void aFileCutAnywhereGivesThePacketsOfItsCompleteBlocks() throws IOException {
        byte[] f = file();
        List<Integer> at = blocks(f);
        ByteBuffer b = ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN);
        int truncations = 0;
        for (int cut = at.get(2); cut < f.length; cut++) {
            int i = at.size() - 1;
            while (at.get(i) > cut) {
                i--;
            }
            int packets = 0;
            for (int k = 0; k < i; k++) {
                packets += b.getInt(at.get(k)) == 6 ? 1 : 0;
            }
            int n = 0;
            try (PcapngPacketReader r = new PcapngPacketReader(new ByteArrayInputStream(Arrays.copyOf(f, cut)))) {
                try {
                    while (r.next() != null) {
                        n++;
                    }
                    assertEquals((int) at.get(i), cut, "a clean end only at a block boundary");
                } catch (PcapngFormatException e) {
                    assertTrue(e.truncated(), e.getMessage());
                    assertEquals((long) at.get(i), e.offset(), "cut at " + cut);
                    assertEquals(i + 1, e.block());
                    assertTrue(e.getMessage().startsWith("pcapng offset " + at.get(i) + " (block " + (i + 1)
                            + "): the file ends inside"), e.getMessage());
                    truncations++;
                }
            }
            assertEquals(packets, n, "packets before a cut at " + cut);
        }
        assertEquals(f.length - at.get(2) - (at.size() - 2), truncations);
        try (PcapngPacketReader r = new PcapngPacketReader(new ByteArrayInputStream(f))) {
            assertEquals(3, readAll(r).size());
            assertNull(r.failure());
        }
    }

    @Test
    void lyingBlockLengthsAreErrorsAtTheirBlock() throws IOException {
        byte[] f = file();
        int idb = blocks(f).get(1);
        for (int len : new int[] {0, 8, 13, 0x7FFFFFFC, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFC, 0xFFFFFFFF}) {
            byte[] m = f.clone();
            ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putInt(idb + 4, len);
            try (PcapngPacketReader r = new PcapngPacketReader(new ByteArrayInputStream(m))) {
                PcapngFormatException e = assertThrows(PcapngFormatException.class, r::next);
                assertTrue(e.getMessage().startsWith("pcapng offset " + idb + " (block 2): bad block length "
                        + Integer.toUnsignedString(len)), e.getMessage());
            }
        }
        byte[] m = f.clone();
        ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putInt(idb + 4, 1 << 20); // plausible, past the end
        try (PcapngPacketReader r = new PcapngPacketReader(new ByteArrayInputStream(m))) {
            PcapngFormatException e = assertThrows(PcapngFormatException.class, r::next);
            assertTrue(e.truncated());
            assertEquals("pcapng offset " + idb + " (block 2): the file ends inside a block of 1048576 bytes (" + (f.length - idb)
                    + " present)", e.getMessage());
        }
    }

    /**
     * A stream that hands over its bytes a few at a time, with empty reads between (a pipe from a
     * live capture): the same packets as the whole file, and ready() only while bytes are there.
     */
    @Test
    void aTricklingStreamGivesThePacketsOfTheWholeFile() throws IOException {
        byte[] f = file();
        java.io.InputStream trickle = new java.io.InputStream() {
            private int at;
            private int call;

            @Override
            public int read() {
                return at < f.length ? f[at++] & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (at == f.length) {
                    return -1;
                }
                int n = call++ % 4 == 3 ? 0 : Math.min(Math.min(len, 1 + call % 3), f.length - at);
                System.arraycopy(f, at, b, off, n);
                at += n;
                return n;
            }
        };
        List<PcapngPacketReader.Packet> whole = readAll(new PcapngPacketReader(new ByteArrayInputStream(f)));
        try (PcapngPacketReader r = new PcapngPacketReader(trickle)) {
            List<PcapngPacketReader.Packet> got = readAll(r);
            assertEquals(3, whole.size());
            assertEquals(whole.size(), got.size());
            for (int i = 0; i < whole.size(); i++) {
                assertEquals(whole.get(i).timeNs(), got.get(i).timeNs());
                assertArrayEquals(whole.get(i).data(), got.get(i).data());
            }
            assertFalse(r.ready(), "nothing left");
        }
    }
}
