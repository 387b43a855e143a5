package org.tracewire.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Decodes tracewire version-2 frames ({@code docs/wire-format.md} §8), bare (pcapng link type 162)
 * or in Ethernet. Errors are {@link WireFormatException}s naming the frame offset.
 */
public final class WireDecoder {
    private WireDecoder() {
    }

    /**
     * Decodes a bare frame (the bytes from {@code in}'s position to its limit; neither changed).
     *
     * @throws WireFormatException when the frame is too short, of version 1 (said so) or another
     *                             unknown version, an EVENT body is shorter than 8 bytes, or a context
     *                             fragment is malformed
     */
    public static WireFrame decodeBare(ByteBuffer in) {
        ByteBuffer b = in.slice();
        return decode(b, 0, null);
    }

    /**
     * Decodes an Ethernet frame (position to limit).
     *
     * @throws WireFormatException as {@link #decodeBare}, and when the frame is shorter than 14 bytes
     *                             or its EtherType is not 0x88B5
     */
    public static WireFrame decodeEthernet(ByteBuffer in) {
        ByteBuffer b = in.slice().order(ByteOrder.BIG_ENDIAN);
        if (b.remaining() < Ethernet.HEADER) {
            throw new WireFormatException(b.remaining(), "truncated: " + b.remaining() + " bytes, no Ethernet header");
        }
        int type = Ethernet.etherType(b);
        if (type != Ethernet.ETHERTYPE) {
            throw new WireFormatException(12, String.format("EtherType 0x%04x is not 0x%04x", type, Ethernet.ETHERTYPE));
        }
        byte[] mac = new byte[6];
        b.get(6, mac);
        return decode(b.position(Ethernet.HEADER).slice(), Ethernet.HEADER, MacAddress.of(mac));
    }

    /**
     * Whether {@code length} bytes at {@code at} of {@code d} are a version-2 EVENT frame, bare,
     * seen from its header's version and kind bytes alone (nothing decoded; such a frame carries
     * no context).
     */
    public static boolean isEvent(byte[] d, int at, int length) {
        return length >= WireHeader.SIZE && (d[at] & 0xff) == WireHeader.VERSION
                && (d[at + WireHeader.KIND_BYTE] & 0x0f) == FrameKind.EVENT.code();
    }

    /** {@link #decodeBare} of an array. */
    public static WireFrame decodeBare(byte[] frame) {
        return decode(ByteBuffer.wrap(frame), 0, null); // a buffer of its own already: no slice
    }

    private static WireFrame decode(ByteBuffer b, int base, MacAddress source) {
        WireHeader h = WireHeader.read(b, 0, base);
        FrameKind kind = h.kind();
        int n = b.limit() - WireHeader.SIZE;
        if (kind == null) {
            return new WireFrame(source, h, null, null);
        }
        if (kind == FrameKind.EVENT) {
            if (n < 8) {
                throw new WireFormatException(base + WireHeader.SIZE, "event payload of " + n
                        + " bytes, shorter than the 8 bytes of the common fields");
            }
            ByteBuffer payload = b.slice(WireHeader.SIZE, n).asReadOnlyBuffer().order(h.byteOrder());
            return new WireFrame(source, h, payload, null);
        }
        if (n < ContextFragment.HEAD) {
            throw new WireFormatException(base + WireHeader.SIZE, "context body of " + n
                    + " bytes, shorter than the 12-byte fragment head");
        }
        ByteBuffer c = b.duplicate().order(ByteOrder.BIG_ENDIAN);
        int at = WireHeader.SIZE;
        long id = c.getInt(at) & 0xffff_ffffL;
        int index = c.getShort(at + 4) & 0xffff;
        int count = c.getShort(at + 6) & 0xffff;
        long length = c.getInt(at + 8) & 0xffff_ffffL;
        if (count == 0 || index >= count) {
            throw new WireFormatException(base + at + 4, "fragment " + index + " of " + count);
        }
        byte[] bytes = new byte[n - ContextFragment.HEAD];
        c.get(at + ContextFragment.HEAD, bytes);
        if (bytes.length > length) {
            throw new WireFormatException(base + at + 8, "fragment of " + bytes.length
                    + " bytes in a message of " + length + " bytes");
        }
        return new WireFrame(source, h, null, new ContextFragment(id, index, count, length, bytes));
    }
}
