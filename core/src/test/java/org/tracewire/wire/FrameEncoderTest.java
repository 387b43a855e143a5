package org.tracewire.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatIdentity;
import org.tracewire.format.FormatParser;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.ringbuffer.PageFixture;
import org.tracewire.ringbuffer.RawRecord;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.testing.Prerequisites;

/** Frames built from records: every field kind in both byte orders, truncation, and the real pages. */
class FrameEncoderTest {
    static final String COMMON = """
            \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
            \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
            \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
            \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

            """;

    static final String ALL_KINDS = "name: allkinds\nID: 42\nformat:\n" + COMMON + """
            \tfield:char comm[8];\toffset:8;\tsize:8;\tsigned:0;
            \tfield:s16 s;\toffset:16;\tsize:2;\tsigned:1;
            \tfield:u8 b;\toffset:18;\tsize:1;\tsigned:0;
            \tfield:bool flag;\toffset:19;\tsize:1;\tsigned:0;
            \tfield:unsigned int u32;\toffset:20;\tsize:4;\tsigned:0;
            \tfield:u64 u64;\toffset:24;\tsize:8;\tsigned:0;
            \tfield:void * ptr;\toffset:32;\tsize:8;\tsigned:0;
            \tfield:u16 arr[2];\toffset:40;\tsize:4;\tsigned:0;
            \tfield:struct blob opaque;\toffset:44;\tsize:12;\tsigned:0;
            \tfield:__data_loc char[] name;\toffset:56;\tsize:4;\tsigned:0;
            \tfield:__data_loc u16[] vals;\toffset:60;\tsize:4;\tsigned:0;
            \tfield:__rel_loc char[] rel;\toffset:64;\tsize:4;\tsigned:0;
            \tfield:__data_loc cpumask_t mask;\toffset:68;\tsize:4;\tsigned:0;
            \tfield:char full[4];\toffset:72;\tsize:4;\tsigned:0;

            print fmt: "x"
            """;

    static final String FLEX_CHARS = "name: flexchars\nID: 43\nformat:\n" + COMMON + """
            \tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;
            \tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;

            print fmt: "%s", REC->buf
            """;

    static final String FLEX_U32 = "name: flexu32\nID: 44\nformat:\n" + COMMON + """
            \tfield:u32 n;\toffset:8;\tsize:4;\tsigned:0;
            \tfield:u32 buf[];\toffset:12;\tsize:0;\tsigned:0;

            print fmt: "%u", REC->n
            """;

    static final MacAddress SRC = MacAddress.forHost("test-host");

    static ByteOrder order(String name) {
        return name.equals("BIG_ENDIAN") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
    }

    /**
     * <pre>
     *  0 common: type 42, flags 0x81, preempt 0x12, pid -5
     *  8 comm "ab\0zzzzz"      16 s=-300 | 18 b=0xfe | 19 flag=1
     * 20 u32 0xdeadbeef        24 u64 0x8000000000000001     32 ptr 0xffffffff81000000
     * 40 arr {1, 2}            44 opaque 12 bytes 0x30..0x3b
     * 56 name -> (80, 6) "hello\0"     60 vals -> (86, 4) {513, 65535}
     * 64 rel -> (90-68=22, 3) "hi\0"   68 mask -> (96, 8) 0x0f
     * 72 full "wxyz" (no NUL)          76 pad | 80 .. 104 dynamic data
     * </pre>
     */
    static ByteBuffer allKinds(ByteOrder order) {
        ByteBuffer b = ByteBuffer.allocate(104).order(order);
        b.putShort(0, (short) 42).put(2, (byte) 0x81).put(3, (byte) 0x12).putInt(4, -5);
        b.put(8, "ab\0zzzzz".getBytes(StandardCharsets.US_ASCII));
        b.putShort(16, (short) -300).put(18, (byte) 0xfe).put(19, (byte) 1);
        b.putInt(20, 0xdeadbeef).putLong(24, 0x8000000000000001L).putLong(32, 0xffffffff81000000L);
        b.putShort(40, (short) 1).putShort(42, (short) 2);
        for (int i = 0; i < 12; i++) {
            b.put(44 + i, (byte) (0x30 + i));
        }
        b.putInt(56, (6 << 16) | 80).putInt(60, (4 << 16) | 86).putInt(64, (3 << 16) | (90 - 68))
                .putInt(68, (8 << 16) | 96);
        b.put(72, "wxyz".getBytes(StandardCharsets.US_ASCII));
        b.put(80, "hello\0".getBytes(StandardCharsets.US_ASCII));
        b.putShort(86, (short) 513).putShort(88, (short) -1);
        b.put(90, "hi\0".getBytes(StandardCharsets.US_ASCII));
        b.putLong(96, 0x0f);
        return b;
    }

    /** What the spec says a field's TLV value is: its raw bytes, char arrays up to the first NUL. */
    static byte[] expected(EventRecord r, Field f) {
        byte[] raw = r.bytes(f);
        if (f.kind() == FieldKind.CHAR_ARRAY) {
            int n = 0;
            while (n < raw.length && raw[n] != 0) {
                n++;
            }
            return Arrays.copyOf(raw, n);
        }
        return raw;
    }

    static WireFrame encode(FrameEncoder enc, EventRecord r, long seq, long lost, int flags) {
        ByteBuffer out = ByteBuffer.allocate(70_000);
        int n = enc.encode(r, r.cpu(), seq, lost, r.timestampNs(), flags, out);
        assertEquals(n, out.position());
        out.flip();
        WireFrame f = WireDecoder.decode(out);
        assertEquals(n, f.size(), "size() equals bytes written");
        return f;
    }

    static byte[] bytes(ByteOrder order, int size, long v) {
        ByteBuffer b = ByteBuffer.allocate(8).order(order);
        switch (size) {
            case 2 -> b.putShort((short) v);
            case 4 -> b.putInt((int) v);
            default -> b.putLong(v);
        }
        return Arrays.copyOf(b.array(), size);
    }

    @ParameterizedTest
    @ValueSource(strings = {"LITTLE_ENDIAN", "BIG_ENDIAN"})
    void everyFieldKindInBothByteOrders(String orderName) {
        ByteOrder order = order(orderName);
        EventFormat fmt = FormatParser.parse("test", ALL_KINDS, "inline");
        EventRecord r = new EventRecord(fmt, new KernelLayout(order, 8), 5, 1_700_000_000_123_456_789L,
                allKinds(order));
        FrameEncoder enc = new FrameEncoder(MacAddress.TRACEWIRE, SRC, 0xabcdefL);
        WireFrame f = encode(enc, r, 17, 3, WireHeader.FLAG_RAW_CLOCK);

        assertEquals(MacAddress.TRACEWIRE, f.destination());
        assertEquals(SRC, f.source());
        WireHeader h = f.header();
        assertEquals(1, h.version());
        assertEquals(order == ByteOrder.LITTLE_ENDIAN, h.littleEndian());
        assertFalse(h.truncated());
        assertTrue(h.rawClock());
        assertFalse(h.lostUnknown());
        assertEquals(5, h.cpu());
        assertEquals(42, h.eventId());
        assertEquals(0x81, h.commonFlags());
        assertEquals(0x12, h.preemptCount());
        assertEquals(-5, h.pid());
        assertEquals(1_700_000_000_123_456_789L, h.timeNs());
        assertEquals(17, h.sequence());
        assertEquals(3, h.lostEvents());
        assertEquals(0xabcdefL, h.formatHash());
        assertEquals(f.tlvLength(), h.originalLength());

        List<Tlv> t = f.tlvs();
        assertEquals(fmt.fields().size() + 1, t.size());
        assertEquals("test:allkinds", f.eventName());
        for (int i = 0; i < t.size(); i++) {
            assertEquals(i, t.get(i).type());
        }
        assertArrayEquals("ab".getBytes(StandardCharsets.US_ASCII), t.get(1).value(), "char[8] up to the NUL");
        assertArrayEquals(bytes(order, 2, -300), t.get(2).value());
        assertArrayEquals(new byte[] {(byte) 0xfe}, t.get(3).value());
        assertArrayEquals(new byte[] {1}, t.get(4).value());
        assertArrayEquals(bytes(order, 4, 0xdeadbeef), t.get(5).value());
        assertArrayEquals(bytes(order, 8, 0x8000000000000001L), t.get(6).value());
        assertArrayEquals(bytes(order, 8, 0xffffffff81000000L), t.get(7).value());
        byte[] arr = new byte[4];
        System.arraycopy(bytes(order, 2, 1), 0, arr, 0, 2);
        System.arraycopy(bytes(order, 2, 2), 0, arr, 2, 2);
        assertArrayEquals(arr, t.get(8).value());
        assertEquals(12, t.get(9).length());
        assertEquals(0x3b, t.get(9).value()[11]);
        assertArrayEquals("hello\0".getBytes(StandardCharsets.US_ASCII), t.get(10).value(), "data_loc string as stored");
        assertArrayEquals(new byte[] {bytes(order, 2, 513)[0], bytes(order, 2, 513)[1], -1, -1}, t.get(11).value());
        assertArrayEquals("hi\0".getBytes(StandardCharsets.US_ASCII), t.get(12).value(), "rel_loc");
        assertArrayEquals(bytes(order, 8, 0x0f), t.get(13).value(), "cpumask");
        assertArrayEquals("wxyz".getBytes(StandardCharsets.US_ASCII), t.get(14).value(), "char[4] without NUL");
        for (int i = 0; i < fmt.fields().size(); i++) {
            assertArrayEquals(expected(r, fmt.fields().get(i)), t.get(i + 1).value(), fmt.fields().get(i).name());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"LITTLE_ENDIAN", "BIG_ENDIAN"})
    void flexibleArraysRunToTheRecordEnd(String orderName) {
        ByteOrder order = order(orderName);
        FrameEncoder enc = new FrameEncoder(MacAddress.TRACEWIRE, SRC, 0);
        EventFormat chars = FormatParser.parse("ftrace", FLEX_CHARS, "inline");
        ByteBuffer b = ByteBuffer.allocate(28).order(order);
        b.putShort(0, (short) 43).putLong(8, 0x1234).put(16, "hello\n\0\0\0\0\0\0".getBytes(StandardCharsets.US_ASCII));
        WireFrame f = encode(enc, new EventRecord(chars, new KernelLayout(order, 8), 0, 0, b), 0, 0, 0);
        assertEquals("hello\n", f.tlv(2).text(), "char[] up to its NUL");

        EventFormat u32 = FormatParser.parse("test", FLEX_U32, "inline");
        ByteBuffer c = ByteBuffer.allocate(24).order(order);
        c.putShort(0, (short) 44).putInt(8, 3).putInt(12, 7).putInt(16, 0).putInt(20, 9);
        WireFrame g = encode(enc, new EventRecord(u32, new KernelLayout(order, 8), 0, 0, c), 0, 0, 0);
        assertEquals(12, g.tlv(2).length(), "u32[] to the record end");
        assertArrayEquals(Arrays.copyOfRange(c.array(), 12, 24), g.tlv(2).value());
    }

    @Test
    void lostCountsUnknownAndSaturating() {
        EventFormat fmt = FormatParser.parse("test", ALL_KINDS, "inline");
        EventRecord r = new EventRecord(fmt, new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8), 0, 0,
                allKinds(ByteOrder.LITTLE_ENDIAN));
        FrameEncoder enc = new FrameEncoder(MacAddress.TRACEWIRE, SRC, 0);
        WireHeader unknown = encode(enc, r, 0, -1, 0).header();
        assertTrue(unknown.lostUnknown());
        assertEquals(0, unknown.lostEvents());
        assertEquals(0xffff_ffffL, encode(enc, r, 0, 1L << 40, 0).header().lostEvents());
        assertThrows(IllegalArgumentException.class, () -> enc.encode(r, 0, 0, 0, 0, 0x10, ByteBuffer.allocate(2000)));
        assertThrows(IllegalArgumentException.class, () -> enc.encode(r, 65536, 0, 0, 0, 0, ByteBuffer.allocate(2000)));
        assertThrows(IllegalArgumentException.class, () -> new FrameEncoder(MacAddress.TRACEWIRE, SRC, 0, 61));
    }

    /** Every maximum frame size from 62 to beyond the untruncated size: the documented rule holds. */
    @ParameterizedTest
    @ValueSource(strings = {"LITTLE_ENDIAN", "BIG_ENDIAN"})
    void truncationRule(String orderName) {
        ByteOrder order = order(orderName);
        EventFormat fmt = FormatParser.parse("test", ALL_KINDS, "inline");
        EventRecord r = new EventRecord(fmt, new KernelLayout(order, 8), 0, 0, allKinds(order));
        WireFrame full = encode(new FrameEncoder(MacAddress.TRACEWIRE, SRC, 0), r, 0, 0, 0);
        int total = full.tlvLength();
        assertTrue(total > 100);
        for (int max = 62; max <= 62 + total + 5; max++) {
            FrameEncoder enc = new FrameEncoder(MacAddress.TRACEWIRE, SRC, 0, max);
            ByteBuffer exact = ByteBuffer.allocate(max);
            int n = enc.encode(r, 0, 0, 0, 0, 0, exact);
            assertTrue(n <= max);
            WireFrame f = WireDecoder.decode(exact.flip());
            WireHeader h = f.header();
            assertEquals(total, h.originalLength());
            int budget = max - 62;
            if (total <= budget) {
                assertFalse(h.truncated(), "max " + max);
                assertEquals(full.tlvs(), f.tlvs());
                continue;
            }
            assertTrue(h.truncated(), "max " + max);
            List<Tlv> got = f.tlvs();
            // all TLVs but the last are whole; the last is whole or a non-empty prefix
            for (int i = 0; i < got.size() - 1; i++) {
                assertEquals(full.tlvs().get(i), got.get(i));
            }
            int whole = 0;
            int used = 0;
            while (used + full.tlvs().get(whole).size() <= budget) {
                used += full.tlvs().get(whole).size();
                whole++;
            }
            int left = budget - used;
            if (left > 4) {
                assertEquals(whole + 1, got.size(), "max " + max);
                Tlv last = got.get(whole);
                Tlv orig = full.tlvs().get(whole);
                assertEquals(orig.type(), last.type());
                assertEquals(left - 4, last.length());
                assertArrayEquals(Arrays.copyOf(orig.value(), left - 4), last.value());
                assertEquals(max, n, "a cut TLV fills the frame");
            } else {
                assertEquals(whole, got.size(), "max " + max);
                assertEquals(62 + used, n);
            }
        }
    }

    @Test
    void defaultMaximumIs1514AndHugeRecordsAreCut() {
        String fmtText = "name: big\nID: 45\nformat:\n" + COMMON + """
                \tfield:u8 data[3000];\toffset:8;\tsize:3000;\tsigned:0;
                \tfield:u32 after;\toffset:3008;\tsize:4;\tsigned:0;

                print fmt: "x"
                """;
        EventFormat fmt = FormatParser.parse("test", fmtText, "inline");
        ByteBuffer b = ByteBuffer.allocate(3012);
        b.putShort(0, (short) 45);
        EventRecord r = new EventRecord(fmt, new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8), 0, 0, b);
        FrameEncoder enc = new FrameEncoder(MacAddress.TRACEWIRE, SRC, 0);
        assertEquals(1514, enc.maxFrameSize());
        WireFrame f = encode(enc, r, 0, 0, 0);
        assertEquals(1514, f.size());
        assertTrue(f.header().truncated());
        assertEquals(4 + 8 + 4 + 3000 + 4 + 4, f.header().originalLength());
        assertEquals(2, f.tlvs().size());
        assertEquals(1514 - 62 - 12 - 4, f.tlv(1).length());

        ByteBuffer tooSmall = ByteBuffer.allocate(1000);
        assertThrows(BufferOverflowException.class, () -> enc.encode(r, 0, 0, 0, 0, 0, tooSmall));
        assertEquals(0, tooSmall.position());
    }

    @Test
    void corruptLocationWordsAreClippedNotThrown() {
        EventFormat fmt = FormatParser.parse("test", ALL_KINDS, "inline");
        ByteBuffer b = allKinds(ByteOrder.LITTLE_ENDIAN);
        b.putInt(56, (500 << 16) | 80);    // name claims 500 bytes
        b.putInt(60, (4 << 16) | 0xfff0); // vals points far outside
        EventRecord r = new EventRecord(fmt, new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8), 0, 0, b);
        WireFrame f = encode(new FrameEncoder(MacAddress.TRACEWIRE, SRC, 0), r, 0, 0, 0);
        assertEquals(104 - 80, f.tlv(10).length());
        assertEquals(0, f.tlv(11).length());
        // a record shorter than its fixed fields
        EventRecord shortRec = new EventRecord(fmt, new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8), 0, 0,
                allKinds(ByteOrder.LITTLE_ENDIAN).slice(0, 30));
        WireFrame s = encode(new FrameEncoder(MacAddress.TRACEWIRE, SRC, 0), shortRec, 0, 0, 0);
        assertEquals(6, s.tlv(6).length(), "u64 at 24 clipped to the 30-byte record");
        assertEquals(0, s.tlv(7).length());
    }

    @Test
    void realPagesEncodeToFramesCarryingEachFieldsBytes() throws Exception {
        FormatCatalog catalog = Tracefs.open(Prerequisites.snapshot()).formats();
        Map<Integer, EventFormat> byId = catalog.byId();
        KernelLayout kernel = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        SubBufferLayout layout = new SubBufferLayout(kernel, 0, 8, 8, 16, 4096, HeaderEvent.standard());
        long hash = FormatIdentity.of(catalog);
        FrameEncoder enc = new FrameEncoder(MacAddress.TRACEWIRE, SRC, hash);
        enc.prepare(catalog.formats());
        ByteBuffer out = ByteBuffer.allocateDirect(1 << 16);
        Map<Integer, Long> seq = new java.util.HashMap<>();
        int records = 0;
        int fields = 0;
        for (PageFixture.Page p : PageFixture.load()) {
            SubBuffer sb = SubBuffer.decode(PageFixture.buffer(p), layout, p.cpu());
            long lost = sb.lostEvents();
            for (RawRecord raw : sb.records()) {
                EventFormat fmt = byId.get(raw.eventId());
                EventRecord r = new EventRecord(fmt, kernel, p.cpu(), raw.timestamp(), raw.payload());
                long s = seq.merge(p.cpu(), 1L, Long::sum) - 1;
                out.clear();
                int n = enc.encode(r, p.cpu(), s, lost, raw.timestamp(), 0, out);
                lost = 0;
                out.flip();
                WireFrame f = WireDecoder.decode(out);
                assertEquals(n, f.size());
                assertTrue(n <= 1514);
                WireHeader h = f.header();
                assertEquals(fmt.id(), h.eventId());
                assertEquals(p.cpu(), h.cpu());
                assertEquals(s, h.sequence());
                assertEquals(r.pid(), h.pid());
                assertEquals(r.flags(), h.commonFlags());
                assertEquals(r.preemptCount(), h.preemptCount());
                assertEquals(raw.timestamp(), h.timeNs());
                assertEquals(hash, h.formatHash());
                assertTrue(h.littleEndian());
                assertEquals(fmt.fullName(), f.eventName());
                if (!h.truncated()) {
                    assertEquals(fmt.fields().size() + 1, f.tlvs().size(), fmt.fullName());
                }
                for (int i = 1; i < f.tlvs().size(); i++) {
                    Field field = fmt.fields().get(i - 1);
                    byte[] want = expected(r, field);
                    byte[] got = f.tlvs().get(i).value();
                    if (h.truncated() && i == f.tlvs().size() - 1) {
                        want = Arrays.copyOf(want, got.length);
                    }
                    assertArrayEquals(want, got, fmt.fullName() + "." + field.name());
                    fields++;
                }
                records++;
            }
        }
        assertTrue(records > 10_000, records + " records");
        assertTrue(fields > 50_000, fields + " fields");
    }
}
