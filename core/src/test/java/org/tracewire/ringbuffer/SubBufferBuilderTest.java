package org.tracewire.ringbuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pages packed by {@link SubBufferBuilder} read back through {@link SubBuffer} as the records that
 * went in: the real records of the fixture's pages, and records with long payloads, large time
 * deltas and lost counts, in both byte orders.
 */
class SubBufferBuilderTest {
    /** Repacks every record of the fixture's real pages; each page reads back as the records packed into it. */
    @Test
    void realRecordsReadBackAsPacked() throws Exception {
        SubBufferLayout layout = SubBufferTest.layout(ByteOrder.LITTLE_ENDIAN);
        SubBufferBuilder b = new SubBufferBuilder(layout);
        int pages = 0;
        int records = 0;
        for (PageFixture.Page p : PageFixture.load()) {
            List<RawRecord> in = SubBuffer.decode(PageFixture.buffer(p), layout, p.cpu()).records();
            List<RawRecord> packed = new ArrayList<>();
            for (RawRecord r : in) {
                if (!b.isOpen()) {
                    b.start(r.timestamp(), 0);
                }
                if (!b.tryAdd(r.timestamp(), r.payload().duplicate())) {
                    records += checkPage(b.finish(), layout, p.cpu(), packed);
                    pages++;
                    packed.clear();
                    b.start(r.timestamp(), 0);
                    assertTrue(b.tryAdd(r.timestamp(), r.payload().duplicate()), "a record fits an empty page");
                }
                packed.add(r);
            }
            if (b.isOpen()) {
                records += checkPage(b.finish(), layout, p.cpu(), packed);
                pages++;
            }
        }
        assertTrue(records > 10_000 && pages > 300, records + " records in " + pages + " pages");
    }

    /** The page decodes to the expected records: time stamps and payload bytes (up to their padding). */
    private static int checkPage(ByteBuffer page, SubBufferLayout layout, int cpu, List<RawRecord> expected) {
        List<RawRecord> got = SubBuffer.decode(page, layout, cpu).records();
        assertEquals(expected.size(), got.size(), "records in the page");
        for (int i = 0; i < got.size(); i++) {
            assertEquals(expected.get(i).timestamp(), got.get(i).timestamp(), "time stamp of record " + i);
            ByteBuffer want = expected.get(i).payload();
            ByteBuffer have = got.get(i).payload();
            assertEquals((want.remaining() + 3) & ~3, have.remaining(), "padded length of record " + i);
            assertEquals(want, have.duplicate().limit(have.position() + want.remaining()), "payload of record " + i);
        }
        return got.size();
    }

    /** Long payloads (a length word), a delta past 27 bits (a time extend), a stored lost count; both orders. */
    @Test
    void lengthWordsTimeExtendsAndLostCounts() {
        for (ByteOrder order : List.of(ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN)) {
            SubBufferLayout layout = SubBufferTest.layout(order);
            SubBufferBuilder b = new SubBufferBuilder(layout);
            b.start(1_000, 7);
            ByteBuffer small = ByteBuffer.allocate(10).order(order).putShort(0, (short) 0x0101);
            ByteBuffer large = ByteBuffer.allocate(200).order(order).putShort(0, (short) 0x0202).put(199, (byte) 9);
            assertTrue(b.tryAdd(1_000, small.duplicate()));
            assertTrue(b.tryAdd(1_000 + (1L << 30) + 5, large.duplicate()));
            assertTrue(b.tryAdd(1_000 + (1L << 30) + 6, small.duplicate()));
            ByteBuffer page = b.finish();
            SubBuffer sb = SubBuffer.decode(page, layout, 3);
            assertTrue(sb.missedEvents(), order.toString());
            assertEquals(7, sb.lostEvents(), order.toString());
            List<RawRecord> r = sb.records();
            assertEquals(3, r.size());
            assertEquals(List.of(1_000L, 1_000 + (1L << 30) + 5, 1_000 + (1L << 30) + 6),
                    r.stream().map(RawRecord::timestamp).toList());
            assertEquals(List.of(0x0101, 0x0202, 0x0101), r.stream().map(RawRecord::eventId).toList());
            assertEquals(List.of(12, 200, 12), r.stream().map(x -> x.payload().remaining()).toList());
            assertEquals(9, r.get(1).payload().get(r.get(1).payload().position() + 199));
        }
    }

    /** A full page says no without writing; misuse is refused; a record too large for any page is told. */
    @Test
    void fullPagesAndMisuse() {
        SubBufferLayout layout = SubBufferTest.layout(ByteOrder.LITTLE_ENDIAN);
        SubBufferBuilder b = new SubBufferBuilder(layout);
        assertThrows(IllegalStateException.class, () -> b.tryAdd(1, ByteBuffer.allocate(8)));
        b.start(10, 0);
        assertThrows(IllegalStateException.class, () -> b.start(10, 0));
        assertThrows(IllegalArgumentException.class, () -> b.tryAdd(9, ByteBuffer.allocate(8)));
        ByteBuffer payload = ByteBuffer.allocate(100);
        int n = 0;
        while (b.tryAdd(10 + n, payload.duplicate())) {
            n++;
        }
        assertEquals(39, n, "4080 data bytes hold 39 records of 4 + 100 bytes");
        assertEquals(n, b.records(), "the record that did not fit was not counted");
        assertTrue(b.tryAdd(10 + n, ByteBuffer.allocate(4)), "24 bytes left: a record of 4 + 4 fits");
        List<RawRecord> back = SubBuffer.decode(b.finish(), layout, 0).records();
        assertEquals(n + 1, back.size(), "nothing of the refused record was written");
        assertEquals(4, back.get(n).payload().remaining());
        assertTrue(b.fitsEmptyPage(4000));
        assertFalse(b.fitsEmptyPage(4096));
    }
}
