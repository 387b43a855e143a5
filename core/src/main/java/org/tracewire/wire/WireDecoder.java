package org.tracewire.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads tracewire frames ({@code docs/wire-format.md}). Accepts any version &ge; 1 and any header
 * length &ge; {@link WireHeader#SIZE} (fields beyond the version-1 ones are skipped); reserved
 * flag bits are kept as sent. Bytes after the TLV area (Ethernet padding, an FCS) are ignored.
 * Never throws anything but {@link WireFormatException} for malformed input.
 */
public final class WireDecoder {
    private WireDecoder() {
    }

    /**
     * Decodes the frame that starts at the buffer's position and ends at or before its limit.
     * On success the position is advanced past the TLV area; on failure it is unchanged.
     *
     * @param in the frame bytes, first byte = first byte of the destination MAC; any byte order
     *           (values are read big-endian regardless)
     * @return the frame
     * @throws WireFormatException on a truncated buffer, a wrong EtherType, bad magic, version 0,
     *                             a header length below 48 or past the end, a TLV area or a TLV
     *                             running past the end; its offset counts from the frame start
     */
    public static WireFrame decode(ByteBuffer in) {
        int base = in.position();
        int avail = in.remaining();
        if (avail < WireFrame.ETHERNET_HEADER) {
            throw new WireFormatException(avail, "truncated: " + avail + " bytes, the Ethernet header needs 14");
        }
        long dst = mac(in, base);
        long src = mac(in, base + 6);
        int etherType = u16(in, base + 12);
        if (etherType != WireFrame.ETHERTYPE) {
            throw new WireFormatException(12, String.format("EtherType 0x%04x is not 0x88b5", etherType));
        }
        int h = WireFrame.ETHERNET_HEADER;
        if (avail < h + WireHeader.OFF_HEADER_LENGTH + 2) {
            throw new WireFormatException(avail, "truncated: the fixed header ends at byte " + avail);
        }
        int magic = u16(in, base + h);
        if (magic != WireHeader.MAGIC) {
            throw new WireFormatException(h, String.format("bad magic 0x%04x, expected 0x5457 \"TW\"", magic));
        }
        int version = u8(in, base + h + WireHeader.OFF_VERSION);
        if (version == 0) {
            throw new WireFormatException(h + WireHeader.OFF_VERSION, "version 0 is not valid");
        }
        int headerLength = u16(in, base + h + WireHeader.OFF_HEADER_LENGTH);
        if (headerLength < WireHeader.SIZE) {
            throw new WireFormatException(h + WireHeader.OFF_HEADER_LENGTH,
                    "bad header length " + headerLength + ", at least " + WireHeader.SIZE);
        }
        if (h + headerLength > avail) {
            throw new WireFormatException(h + WireHeader.OFF_HEADER_LENGTH, "header length " + headerLength
                    + " runs past the end of the " + avail + "-byte buffer");
        }
        int at = base + h;
        int tlvLength = u16(in, at + WireHeader.OFF_TLV_LENGTH);
        int tlvStart = h + headerLength;
        int tlvEnd = tlvStart + tlvLength;
        if (tlvEnd > avail) {
            throw new WireFormatException(h + WireHeader.OFF_TLV_LENGTH, "TLV length " + tlvLength
                    + " runs past the end of the " + avail + "-byte buffer");
        }
        WireHeader header = new WireHeader(version, u8(in, at + WireHeader.OFF_FLAGS), u16(in, at + WireHeader.OFF_CPU),
                u16(in, at + WireHeader.OFF_EVENT_ID), u8(in, at + WireHeader.OFF_COMMON_FLAGS),
                u8(in, at + WireHeader.OFF_PREEMPT_COUNT), s32(in, at + WireHeader.OFF_PID),
                s64(in, at + WireHeader.OFF_TIME), s64(in, at + WireHeader.OFF_SEQUENCE),
                s32(in, at + WireHeader.OFF_LOST) & 0xffff_ffffL, u16(in, at + WireHeader.OFF_ORIGINAL_LENGTH),
                s64(in, at + WireHeader.OFF_FORMAT_HASH));
        List<Tlv> tlvs = new ArrayList<>();
        int pos = tlvStart;
        while (pos < tlvEnd) {
            if (pos + Tlv.HEAD > tlvEnd) {
                throw new WireFormatException(pos, "TLV head of 4 bytes runs past the TLV area end " + tlvEnd);
            }
            int type = u16(in, base + pos);
            int len = u16(in, base + pos + 2);
            if (pos + Tlv.HEAD + len > tlvEnd) {
                throw new WireFormatException(pos, "TLV type " + type + " of " + len
                        + " bytes runs past the TLV area end " + tlvEnd);
            }
            byte[] value = new byte[len];
            in.get(base + pos + Tlv.HEAD, value);
            tlvs.add(new Tlv(type, value));
            pos += Tlv.HEAD + len;
        }
        in.position(base + tlvEnd);
        return new WireFrame(new MacAddress(dst), new MacAddress(src), header, tlvs);
    }

    /** Decodes a whole array (see {@link #decode(ByteBuffer)}). */
    public static WireFrame decode(byte[] frame) {
        return decode(ByteBuffer.wrap(frame));
    }

    private static long mac(ByteBuffer in, int at) {
        long v = 0;
        for (int i = 0; i < 6; i++) {
            v = (v << 8) | (in.get(at + i) & 0xff);
        }
        return v;
    }

    private static int u8(ByteBuffer in, int at) {
        return in.get(at) & 0xff;
    }

    private static int u16(ByteBuffer in, int at) {
        return (u8(in, at) << 8) | u8(in, at + 1);
    }

    private static int s32(ByteBuffer in, int at) {
        return (u16(in, at) << 16) | u16(in, at + 2);
    }

    private static long s64(ByteBuffer in, int at) {
        return ((long) s32(in, at) << 32) | (s32(in, at + 4) & 0xffff_ffffL);
    }
}
