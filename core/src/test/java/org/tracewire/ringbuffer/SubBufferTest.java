package org.tracewire.ringbuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.tracewire.format.EventFormat;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.testing.Prerequisites;

/** Sub-buffers built word by word in both byte orders, and the real pages of the fixture. */
class SubBufferTest {
    static SubBufferLayout layout(ByteOrder order) {
        return new SubBufferLayout(new KernelLayout(order, 8), 0, 8, 8, 16, 4096, HeaderEvent.standard());
    }

    /** A record header word: type_len in the low 5 bits on little-endian kernels, the high 5 on big-endian. */
    static int header(ByteOrder order, int typeLen, int delta) {
        return order == ByteOrder.BIG_ENDIAN ? (typeLen << 27) | delta : (delta << 5) | typeLen;
    }

    /**
     * <pre>
     *  0 timestamp = 1_000_000
     *  8 commit    = data length | flags
     * 16 [type_len 2, delta 10]  8 bytes data: common_type 0x0101, pid 11        -> ts 1_000_010
     * 28 [type_len 30 (extend), delta 5] array[0]=1 -> +(1<<27 | 5)
     * 36 [type_len 0, delta 0]  array[0]=12: 8 bytes data: type 0x0202              -> ts + 0
     * 52 [type_len 29 (padding), delta 1] array[0]=8: 8 bytes skipped
     * 64 [type_len 31 (abs ts), delta 7] array[0]=2 -> ts = 2<<27 | 7
     * 72 [type_len 1, delta 3] 4 bytes data: type 0x0303                           -> ts + 3
     * 80 end (64 bytes of data)
     * </pre>
     */
    static ByteBuffer page(ByteOrder order, long flags, long lost) {
        ByteBuffer b = ByteBuffer.allocate(4096).order(order);
        b.putLong(0, 1_000_000L);
        int len = 64;
        b.putLong(8, len | flags);
        b.putInt(16, header(order, 2, 10)).putShort(20, (short) 0x0101).putInt(24, 11);
        b.putInt(28, header(order, 30, 5)).putInt(32, 1);
        b.putInt(36, header(order, 0, 0)).putInt(40, 12).putShort(44, (short) 0x0202);
        b.putInt(52, header(order, 29, 1)).putInt(56, 8);
        b.putInt(64, header(order, 31, 7)).putInt(68, 2);
        b.putInt(72, header(order, 1, 3)).putShort(76, (short) 0x0303);
        b.putLong(80, lost);
        return b;
    }

    @ParameterizedTest
    @ValueSource(strings = {"LITTLE_ENDIAN", "BIG_ENDIAN"})
    void decodesEveryRecordTypeInBothByteOrders(String orderName) {
        ByteOrder order = orderName.equals("BIG_ENDIAN") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        SubBuffer sb = SubBuffer.decode(page(order, 0, 0), layout(order), 3);
        assertEquals(1_000_000L, sb.timestamp());
        assertEquals(64, sb.dataLength());
        assertFalse(sb.missedEvents());
        assertEquals(0, sb.lostEvents());
        List<RawRecord> r = sb.records();
        assertEquals(3, r.size());
        assertEquals(0x0101, r.get(0).eventId());
        assertEquals(1_000_010L, r.get(0).timestamp());
        assertEquals(8, r.get(0).payload().limit());
        assertEquals(11, r.get(0).payload().order(order).getInt(4));
        assertEquals(0x0202, r.get(1).eventId());
        assertEquals(1_000_010L + (1L << 27) + 5, r.get(1).timestamp());
        assertEquals(8, r.get(1).payload().limit());
        assertEquals(0x0303, r.get(2).eventId());
        assertEquals((2L << 27) + 7 + 3, r.get(2).timestamp());
        assertEquals(3, r.get(2).cpu());
        assertEquals(72, r.get(2).pageOffset());
    }

    @Test
    void lostEventsStoredAndUnknown() {
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        SubBuffer stored = SubBuffer.decode(page(le, SubBuffer.MISSED_EVENTS | SubBuffer.MISSED_STORED, 4711),
                layout(le), 0);
        assertTrue(stored.missedEvents());
        assertEquals(4711, stored.lostEvents());
        // as a 64-bit kernel writes it: (1 << 31) sign-extended into the upper half of local_t
        SubBuffer signExtended = SubBuffer.decode(page(le, 0xffffffffc0000000L, 17), layout(le), 0);
        assertEquals(17, signExtended.lostEvents());
        assertEquals(64, signExtended.dataLength());
        SubBuffer unknown = SubBuffer.decode(page(le, SubBuffer.MISSED_EVENTS, 4711), layout(le), 0);
        assertEquals(-1, unknown.lostEvents());
        assertEquals(3, unknown.records().size());
    }

    @Test
    void corruptPagesNameCpuAndOffset() {
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        ByteBuffer tooLong = page(le, 0, 0);
        tooLong.putLong(8, 5000);
        CorruptPageException e = assertThrows(CorruptPageException.class,
                () -> SubBuffer.decode(tooLong, layout(le), 2));
        assertEquals(2, e.cpu());
        assertEquals(8, e.offset());
        assertTrue(e.getMessage().startsWith("cpu 2, sub-buffer offset 8: commit says 5000 bytes"), e.getMessage());

        ByteBuffer overrun = page(le, 0, 0);
        overrun.putInt(40, 1000); // the type_len 0 record claims 1000 bytes
        CorruptPageException o = assertThrows(CorruptPageException.class,
                () -> SubBuffer.decode(overrun, layout(le), 1));
        assertEquals(36, o.offset());

        ByteBuffer shortLen = page(le, 0, 0);
        shortLen.putInt(40, 2);
        assertEquals(36, assertThrows(CorruptPageException.class,
                () -> SubBuffer.decode(shortLen, layout(le), 1)).offset());

        assertThrows(CorruptPageException.class,
                () -> SubBuffer.decode(ByteBuffer.allocate(10), layout(le), 0));
    }

    @ParameterizedTest
    @ValueSource(strings = {"LITTLE_ENDIAN", "BIG_ENDIAN"})
    void cursorWalksPageAfterPageAsScanDoes(String orderName) {
        ByteOrder order = orderName.equals("BIG_ENDIAN") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        SubBufferLayout layout = layout(order);
        SubBuffer.Cursor c = new SubBuffer.Cursor(layout, 5);
        // the same cursor over two pages: the second starts from its own header, not the first's state
        ByteBuffer second = page(order, 0, 0);
        second.putLong(0, 7_000_000L);
        for (ByteBuffer pg : List.of(page(order, 0, 0), second)) {
            long base = pg.getLong(0);
            c.reset(pg, SubBuffer.header(pg, layout, 5));
            assertTrue(c.next());
            assertEquals(base + 10, c.timestamp());
            assertEquals(20, c.offset());
            assertEquals(8, c.length());
            assertEquals(16, c.recordOffset());
            assertEquals(0x0101, pg.getShort(c.offset()));
            assertTrue(c.next()); // past the time extend: a record whose length is in its own word
            assertEquals(base + 10 + (1L << 27) + 5, c.timestamp());
            assertEquals(44, c.offset());
            assertEquals(8, c.length());
            assertEquals(36, c.recordOffset());
            assertTrue(c.next()); // past the padding and the absolute time stamp
            assertEquals((2L << 27) + 7 + 3, c.timestamp());
            assertEquals(76, c.offset());
            assertEquals(4, c.length());
            assertFalse(c.next());
            assertFalse(c.next(), "stays at the end");
        }
        // a record that runs past the data: the records before it, then the error naming its offset
        ByteBuffer bad = page(order, 0, 0);
        bad.putInt(36, header(order, 28, 0)); // 112 bytes of data claimed, 44 left
        c.reset(bad, SubBuffer.header(bad, layout, 5));
        assertTrue(c.next());
        CorruptPageException e = assertThrows(CorruptPageException.class, c::next);
        assertEquals(5, e.cpu());
        assertEquals(36, e.offset());
        assertEquals(36, assertThrows(CorruptPageException.class, c::next).offset(), "the cursor stays at that record");
    }

    @Test
    void absoluteTimeStampKeepsTheTopBits() {
        long current = 0x0800_0000_0000_0100L;
        assertEquals(0x0800_0000_0000_0200L, SubBuffer.fixAbsoluteTimeStamp(0x200, current));
        assertEquals(0x0800_0000_0000_0200L + (1L << 59), SubBuffer.fixAbsoluteTimeStamp(0x200, current | 0x300));
        assertEquals(0x200, SubBuffer.fixAbsoluteTimeStamp(0x200, 0x100));
    }

    @Test
    void realPagesDecodeIntoRecordsOfKnownEvents() throws Exception {
        Map<Integer, EventFormat> byId = Tracefs.open(Prerequisites.snapshot()).formats().byId();
        KernelLayout kernel = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        SubBufferLayout layout = new SubBufferLayout(kernel, 0, 8, 8, 16, 4096, HeaderEvent.standard());
        Map<Integer, Long> lastTs = new HashMap<>();
        int records = 0;
        for (PageFixture.Page p : PageFixture.load()) {
            SubBuffer sb = SubBuffer.decode(PageFixture.buffer(p), layout, p.cpu());
            for (RawRecord r : sb.records()) {
                EventFormat f = byId.get(r.eventId());
                assertTrue(f != null, "unknown event id " + r.eventId() + " at cpu " + p.cpu() + " offset " + r.pageOffset());
                assertTrue(r.payload().limit() >= f.fixedSize(), f.fullName() + " payload shorter than its fields");
                long prev = lastTs.getOrDefault(p.cpu(), 0L);
                assertTrue(r.timestamp() >= prev, "time went back on cpu " + p.cpu());
                lastTs.put(p.cpu(), r.timestamp());
                EventRecord er = new EventRecord(f, kernel, p.cpu(), r.timestamp(), r.payload());
                for (var field : f.allFields()) {
                    if (field.kind().isString()) {
                        er.string(field);
                    } else {
                        er.bytes(field);
                    }
                }
                records++;
            }
        }
        assertTrue(records > 10_000, "only " + records + " records in the fixture");
    }
}
