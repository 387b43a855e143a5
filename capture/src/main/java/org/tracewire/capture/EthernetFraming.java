package org.tracewire.capture;

import java.nio.ByteBuffer;
import org.tracewire.wire.Ethernet;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.MacAddress;
import org.tracewire.wire.WireHeader;

/**
 * Puts a bare frame into its Ethernet encapsulation in place ({@code docs/wire-format.md} §1): the
 * 14-byte header goes into the {@link FrameOutput#HEADROOM} before the frame, and an event frame
 * longer than the maximum frame size is cut, with {@link WireHeader#FLAG_TRUNCATED} set for the
 * write and cleared afterwards ({@link #restore}). Context frames are never cut (their fragments
 * fit 1514 bytes). Allocates nothing. Not thread-safe.
 */
final class EthernetFraming {
    private final byte[] header = new byte[Ethernet.HEADER];
    private final int maxFrame;
    private long truncated;
    private int flagAt = -1;

    /**
     * @param source   the Ethernet source (the traced host)
     * @param maxFrame the largest Ethernet frame for event frames, bytes
     */
    EthernetFraming(MacAddress source, int maxFrame) {
        ByteBuffer h = ByteBuffer.wrap(header);
        Ethernet.writeHeader(h, source);
        this.maxFrame = maxFrame;
    }

    /**
     * Frames {@code frame} (position to limit) in place: on return its position is the Ethernet
     * frame's start and its limit the (possibly cut) end.
     */
    void frame(ByteBuffer frame) {
        int p = frame.position();
        int start = p - Ethernet.HEADER;
        frame.put(start, header);
        int len = Ethernet.HEADER + frame.remaining();
        flagAt = -1;
        if (len > maxFrame && frame.remaining() > WireHeader.KIND_BYTE
                && WireHeader.kindCodeAt(frame, p) == FrameKind.EVENT.code()) {
            len = maxFrame;
            flagAt = p + WireHeader.KIND_BYTE;
            frame.put(flagAt, (byte) (frame.get(flagAt) | WireHeader.FLAG_TRUNCATED));
            truncated++;
        }
        frame.limit(start + len).position(start);
    }

    /** Clears the truncation flag {@link #frame} set, if it set one (the buffer may be shared with other outputs). */
    void restore(ByteBuffer frame) {
        if (flagAt >= 0) {
            frame.put(flagAt, (byte) (frame.get(flagAt) & ~WireHeader.FLAG_TRUNCATED));
            flagAt = -1;
        }
    }

    /** Event frames cut so far. */
    long truncated() {
        return truncated;
    }
}
