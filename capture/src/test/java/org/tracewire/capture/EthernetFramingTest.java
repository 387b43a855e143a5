package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.tracewire.wire.Ethernet;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.MacAddress;
import org.tracewire.wire.WireDecoder;
import org.tracewire.wire.WireFrame;
import org.tracewire.wire.WireHeader;

/**
 * {@link EthernetFraming}: the Ethernet header in the headroom, an event frame longer than the
 * maximum cut with {@link WireHeader#FLAG_TRUNCATED} set for the write and cleared by
 * {@code restore}, a frame of another kind never cut.
 */
class EthernetFramingTest {
    /** A bare event frame of {@code payload} bytes at the scratch buffer's headroom. */
    private static ByteBuffer eventFrame(int payload) {
        ByteBuffer record = ByteBuffer.allocate(payload).order(ByteOrder.LITTLE_ENDIAN);
        record.putShort(0, (short) 7);
        ByteBuffer s = ByteBuffer.allocate(FrameOutput.HEADROOM + WireHeader.SIZE + payload);
        int n = new FrameEncoder().event(ByteOrder.LITTLE_ENDIAN, record, 1, 5, false, s.position(FrameOutput.HEADROOM));
        return s.limit(FrameOutput.HEADROOM + n).position(FrameOutput.HEADROOM);
    }

    @Test
    void aLongEventFrameIsCutAndFlaggedForTheWriteOnly() {
        EthernetFraming f = new EthernetFraming(MacAddress.TRACEWIRE, 200);
        ByteBuffer frame = eventFrame(400);
        f.frame(frame);
        assertEquals(FrameOutput.HEADROOM - Ethernet.HEADER, frame.position());
        assertEquals(200, frame.remaining());
        WireFrame cut = WireDecoder.decodeBare(frame.duplicate().position(FrameOutput.HEADROOM));
        assertEquals(FrameKind.EVENT, cut.kind());
        assertEquals(WireHeader.FLAG_TRUNCATED, cut.header().flags() & WireHeader.FLAG_TRUNCATED);
        assertEquals(1, f.truncated());
        f.restore(frame);
        WireFrame after = WireDecoder.decodeBare(frame.duplicate().position(FrameOutput.HEADROOM));
        assertEquals(0, after.header().flags() & WireHeader.FLAG_TRUNCATED, "the shared buffer's flag cleared");
    }

    @Test
    void aShortEventFrameAndAContextFrameAreNotCut() {
        EthernetFraming f = new EthernetFraming(MacAddress.TRACEWIRE, 200);
        ByteBuffer shortOne = eventFrame(100);
        f.frame(shortOne);
        assertEquals(Ethernet.HEADER + WireHeader.SIZE + 100, shortOne.remaining());
        // the same long frame with a context kind in its header: longer than the maximum, kept whole
        ByteBuffer context = eventFrame(400);
        int kindByte = FrameOutput.HEADROOM + WireHeader.KIND_BYTE;
        context.put(kindByte, (byte) ((context.get(kindByte) & WireHeader.FLAG_MASK) | FrameKind.CAPTURE.code()));
        f.frame(context);
        assertEquals(Ethernet.HEADER + WireHeader.SIZE + 400, context.remaining());
        assertEquals(0, f.truncated());
    }
}
