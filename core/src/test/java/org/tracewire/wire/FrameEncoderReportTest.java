package org.tracewire.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;

/** The encoder reports what it did (so the capture path need not read the frame back). */
class FrameEncoderReportTest {
    @Test
    void lastTruncatedAndOriginalLengthMatchTheFrameWritten() {
        EventFormat fmt = FormatParser.parse("test", FrameEncoderTest.ALL_KINDS, "inline");
        EventRecord r = new EventRecord(fmt, new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8), 0, 0,
                FrameEncoderTest.allKinds(ByteOrder.LITTLE_ENDIAN));
        FrameEncoder big = new FrameEncoder(MacAddress.TRACEWIRE, FrameEncoderTest.SRC, 0);
        int total = WireDecoder.decode(ByteBuffer.allocate(2000).put(bytes(big, r, 2000)).flip()).tlvLength();
        assertFalse(big.lastTruncated());
        assertEquals(total, big.lastOriginalLength());
        int truncatedSeen = 0;
        for (int max = 62; max <= 62 + total + 3; max++) {
            FrameEncoder enc = new FrameEncoder(MacAddress.TRACEWIRE, FrameEncoderTest.SRC, 0, max);
            WireHeader h = WireDecoder.decode(ByteBuffer.wrap(bytes(enc, r, max))).header();
            assertEquals(h.truncated(), enc.lastTruncated(), "max " + max);
            assertEquals(total, enc.lastOriginalLength(), "max " + max);
            truncatedSeen += enc.lastTruncated() ? 1 : 0;
        }
        assertEquals(total, truncatedSeen, "truncated exactly while the TLVs did not fit");
        // the report follows each call: a whole frame after a truncated one
        int max = 62 + total - 1;
        FrameEncoder small = new FrameEncoder(MacAddress.TRACEWIRE, FrameEncoderTest.SRC, 0, max);
        bytes(small, r, max);
        assertTrue(small.lastTruncated());
        EventRecord tiny = new EventRecord(fmt, new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8), 0, 0,
                ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putShort(0, (short) 42));
        bytes(small, tiny, max);
        assertFalse(small.lastTruncated());
        assertTrue(small.lastOriginalLength() < total);
    }

    private static byte[] bytes(FrameEncoder enc, EventRecord r, int room) {
        ByteBuffer out = ByteBuffer.allocate(room);
        int n = enc.encode(r, 0, 0, 0, 0, 0, out);
        byte[] b = new byte[n];
        out.flip().get(b);
        return b;
    }
}
