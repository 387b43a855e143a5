package org.tracewire.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;

/** Records built byte by byte, in both byte orders, decoded field by field. */
class EventRecordTest {
    static final String FORMAT = """
            name: sample
            ID: 7
            format:
            \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
            \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
            \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
            \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

            \tfield:char comm[8];\toffset:8;\tsize:8;\tsigned:0;
            \tfield:s8 neg8;\toffset:16;\tsize:1;\tsigned:1;
            \tfield:u8 pos8;\toffset:17;\tsize:1;\tsigned:0;
            \tfield:short neg16;\toffset:18;\tsize:2;\tsigned:1;
            \tfield:unsigned int u32;\toffset:20;\tsize:4;\tsigned:0;
            \tfield:u64 u64;\toffset:24;\tsize:8;\tsigned:0;
            \tfield:__data_loc char[] name;\toffset:32;\tsize:4;\tsigned:0;
            \tfield:__data_loc u16[] vals;\toffset:36;\tsize:4;\tsigned:0;
            \tfield:__rel_loc char[] rel;\toffset:40;\tsize:4;\tsigned:0;
            \tfield:u16 arr[2];\toffset:44;\tsize:4;\tsigned:0;

            print fmt: "x"
            """;

    /**
     * Lays out the sample record:
     * <pre>
     *  0  common_type=7 (2) | flags=0x81 | preempt=0x12
     *  4  common_pid=-5
     *  8  comm "ab\0......" (8)
     * 16  neg8=-2 | pos8=0xfe | neg16=-300
     * 20  u32=0xdeadbeef
     * 24  u64=0x8000000000000001
     * 32  name: data_loc(off 48, len 6) -> "hello\0"
     * 36  vals: data_loc(off 54, len 4) -> u16 {513, 65535}
     * 40  rel: rel_loc(off 58-44=14, len 3) -> "hi\0"
     * 44  arr {1, 2}
     * 48  "hello\0" | 54 vals | 58 "hi\0" | 61 pad to 64
     * </pre>
     */
    static ByteBuffer sample(ByteOrder order) {
        ByteBuffer b = ByteBuffer.allocate(64).order(order);
        b.putShort(0, (short) 7).put(2, (byte) 0x81).put(3, (byte) 0x12).putInt(4, -5);
        b.put(8, "ab\0zzzzz".getBytes(StandardCharsets.US_ASCII));
        b.put(16, (byte) -2).put(17, (byte) 0xfe).putShort(18, (short) -300);
        b.putInt(20, 0xdeadbeef).putLong(24, 0x8000000000000001L);
        b.putInt(32, (6 << 16) | 48).putInt(36, (4 << 16) | 54).putInt(40, (3 << 16) | (58 - 44));
        b.putShort(44, (short) 1).putShort(46, (short) 2);
        b.put(48, "hello\0".getBytes(StandardCharsets.US_ASCII));
        b.putShort(54, (short) 513).putShort(56, (short) -1);
        b.put(58, "hi\0".getBytes(StandardCharsets.US_ASCII));
        return b;
    }

    @ParameterizedTest
    @ValueSource(strings = {"LITTLE_ENDIAN", "BIG_ENDIAN"})
    void decodesEveryKindInBothByteOrders(String orderName) {
        ByteOrder order = orderName.equals("BIG_ENDIAN") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        EventFormat f = FormatParser.parse("test", FORMAT, "inline");
        EventRecord r = new EventRecord(f, new KernelLayout(order, 8), 1, 123L, sample(order));
        assertEquals(7, r.integer(f.field("common_type")));
        assertEquals(0x81, r.flags());
        assertEquals(0x12, r.preemptCount());
        assertEquals(-5, r.pid());
        assertEquals("ab", r.string(f.field("comm")));
        assertEquals(-2, r.integer(f.field("neg8")));
        assertEquals(0xfe, r.integer(f.field("pos8")));
        assertEquals(-300, r.integer(f.field("neg16")));
        assertEquals(0xdeadbeefL, r.integer(f.field("u32")));
        assertEquals("9223372036854775809", Long.toUnsignedString(r.integer(f.field("u64"))));
        assertEquals("hello", r.string(f.field("name")));
        assertEquals(48, r.dynamicOffset(f.field("name")));
        assertEquals(6, r.dynamicLength(f.field("name")));
        assertEquals(2, r.arrayLength(f.field("vals")));
        assertEquals(513, r.arrayElement(f.field("vals"), 0));
        assertEquals(65535, r.arrayElement(f.field("vals"), 1));
        assertEquals("hi", r.string(f.field("rel")));
        assertEquals(58, r.dynamicOffset(f.field("rel")));
        assertEquals(2, r.arrayElement(f.field("arr"), 1));
        assertArrayEquals("hello\0".getBytes(StandardCharsets.US_ASCII), r.bytes(f.field("name")));
    }

    @ParameterizedTest
    @ValueSource(ints = {64, 50, 40})
    void locationsOutsideTheRecordAreErrorsNamingTheField(int length) {
        EventFormat f = FormatParser.parse("test", FORMAT, "inline");
        ByteBuffer b = sample(ByteOrder.LITTLE_ENDIAN);
        b.putInt(32, (200 << 16) | 48); // name claims 200 bytes
        EventRecord r = new EventRecord(f, new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8), 0, 0,
                b.slice(0, length));
        RecordException e = assertThrows(RecordException.class, () -> r.string(f.field("name")));
        assertTrue(e.getMessage().startsWith("test:sample field name: "), e.getMessage());
        assertThrows(RecordException.class, () -> r.arrayElement(f.field("arr"), 2));
        assertThrows(RecordException.class, () -> r.arrayElement(f.field("arr"), -1));
    }
}
