package org.tracewire.wire;

import java.nio.ByteBuffer;

/**
 * The Ethernet II encapsulation of tracewire frames on network interfaces
 * ({@code docs/wire-format.md} §1): destination {@link MacAddress#TRACEWIRE}, source the host's
 * address ({@link MacAddress#localHost()}), EtherType {@value #ETHERTYPE}, then the bare frame.
 */
public final class Ethernet {
    /** Bytes of the Ethernet header. */
    public static final int HEADER = 14;
    /** IEEE 802 local experimental EtherType 1. */
    public static final int ETHERTYPE = 0x88B5;
    /** Largest Ethernet frame on an MTU-1500 interface (no FCS), bytes. */
    public static final int DEFAULT_MAX_FRAME = 1514;

    private Ethernet() {
    }

    /**
     * Whether {@code length} bytes at {@code at} of {@code d} start with an Ethernet header of
     * EtherType {@value #ETHERTYPE} (big-endian at bytes 12–13): a tracewire frame follows it.
     */
    public static boolean carriesTracewire(byte[] d, int at, int length) {
        return length >= HEADER && ((d[at + 12] & 0xff) << 8 | (d[at + 13] & 0xff)) == ETHERTYPE;
    }

    /**
     * The EtherType of an Ethernet frame (position to limit; not changed), or −1 when it is shorter
     * than the 14-byte header.
     */
    public static int etherType(ByteBuffer frame) {
        return frame.remaining() < HEADER ? -1
                : ((frame.get(frame.position() + 12) & 0xff) << 8 | (frame.get(frame.position() + 13) & 0xff));
    }

    /**
     * Writes the 14-byte header at {@code out}'s position and advances it.
     *
     * @param source the sending host's address
     * @throws java.nio.BufferOverflowException when fewer than 14 bytes remain
     */
    public static void writeHeader(ByteBuffer out, MacAddress source) {
        long d = MacAddress.TRACEWIRE.bits();
        long s = source.bits();
        out.putShort((short) (d >>> 32)).putInt((int) d).putShort((short) (s >>> 32)).putInt((int) s)
                .putShort((short) ETHERTYPE);
    }

    /**
     * The Ethernet frame of a bare frame: header, then the bare frame's bytes (position to limit),
     * cut to {@code maxFrameSize} with {@link WireHeader#FLAG_TRUNCATED} set when longer (only event
     * frames can be: context fragments fit 1514 bytes).
     *
     * @return a new buffer, position 0, limit = frame length
     */
    public static ByteBuffer wrap(ByteBuffer bare, MacAddress source, int maxFrameSize) {
        int n = Math.min(bare.remaining(), maxFrameSize - HEADER);
        ByteBuffer f = ByteBuffer.allocate(HEADER + n);
        writeHeader(f, source);
        f.put(f.position(), bare, bare.position(), n);
        if (n < bare.remaining()) {
            f.put(HEADER + 1, (byte) (f.get(HEADER + 1) | WireHeader.FLAG_TRUNCATED));
        }
        return f.position(0).limit(HEADER + n);
    }
}
