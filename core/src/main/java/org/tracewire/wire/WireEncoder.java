package org.tracewire.wire;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Writes {@link WireFrame}s in the tracewire wire format ({@code docs/wire-format.md}): Ethernet II
 * header, the 48-byte big-endian fixed header, TLVs. Stateless; see {@link FrameEncoder} to build
 * frames straight from trace records.
 */
public final class WireEncoder {
    private WireEncoder() {
    }

    /**
     * Writes a frame at the buffer's position and advances the position by {@link WireFrame#size()}.
     * The buffer's byte order is left as it was (all multi-byte values are written big-endian).
     *
     * @param frame the frame
     * @param out   destination with at least {@code frame.size()} bytes remaining
     * @return bytes written ({@code frame.size()})
     * @throws BufferOverflowException when fewer than {@code frame.size()} bytes remain (nothing written)
     */
    public static int encode(WireFrame frame, ByteBuffer out) {
        int size = frame.size();
        if (out.remaining() < size) {
            throw new BufferOverflowException();
        }
        ByteOrder saved = out.order();
        out.order(ByteOrder.BIG_ENDIAN);
        try {
            int start = out.position();
            writeEthernet(out, start, frame.destination().bits(), frame.source().bits());
            writeHeader(out, start + WireFrame.ETHERNET_HEADER, frame.header(), frame.tlvLength());
            out.position(start + WireFrame.ETHERNET_HEADER + WireHeader.SIZE);
            for (Tlv t : frame.tlvs()) {
                t.writeTo(out);
            }
            return size;
        } finally {
            out.order(saved);
        }
    }

    /** Encodes a frame into a new array of exactly {@code frame.size()} bytes. */
    public static byte[] toBytes(WireFrame frame) {
        ByteBuffer b = ByteBuffer.allocate(frame.size());
        encode(frame, b);
        return b.array();
    }

    /** Writes destination, source (6 bytes each, first octet first) and the EtherType at {@code at}. */
    static void writeEthernet(ByteBuffer out, int at, long dst, long src) {
        putMac(out, at, dst);
        putMac(out, at + 6, src);
        out.put(at + 12, (byte) (WireFrame.ETHERTYPE >>> 8));
        out.put(at + 13, (byte) WireFrame.ETHERTYPE);
    }

    private static void putMac(ByteBuffer out, int at, long mac) {
        for (int i = 0; i < 6; i++) {
            out.put(at + i, (byte) (mac >>> (8 * (5 - i))));
        }
    }

    /** Writes the 48-byte fixed header at {@code at} with absolute puts; the buffer must be big-endian. */
    static void writeHeader(ByteBuffer out, int at, WireHeader h, int tlvLength) {
        writeHeader(out, at, h.version(), h.flags(), h.cpu(), h.eventId(), h.commonFlags(), h.preemptCount(),
                h.pid(), h.timeNs(), h.sequence(), h.lostEvents(), h.originalLength(), tlvLength, h.formatHash());
    }

    /** Writes the 48-byte fixed header at {@code at} with absolute puts; the buffer must be big-endian. */
    static void writeHeader(ByteBuffer out, int at, int version, int flags, int cpu, int eventId, int commonFlags,
                            int preemptCount, int pid, long timeNs, long sequence, long lost, int originalLength,
                            int tlvLength, long formatHash) {
        out.putShort(at + WireHeader.OFF_MAGIC, (short) WireHeader.MAGIC);
        out.put(at + WireHeader.OFF_VERSION, (byte) version);
        out.put(at + WireHeader.OFF_FLAGS, (byte) flags);
        out.putShort(at + WireHeader.OFF_HEADER_LENGTH, (short) WireHeader.SIZE);
        out.putShort(at + WireHeader.OFF_CPU, (short) cpu);
        out.putShort(at + WireHeader.OFF_EVENT_ID, (short) eventId);
        out.put(at + WireHeader.OFF_COMMON_FLAGS, (byte) commonFlags);
        out.put(at + WireHeader.OFF_PREEMPT_COUNT, (byte) preemptCount);
        out.putInt(at + WireHeader.OFF_PID, pid);
        out.putLong(at + WireHeader.OFF_TIME, timeNs);
        out.putLong(at + WireHeader.OFF_SEQUENCE, sequence);
        out.putInt(at + WireHeader.OFF_LOST, (int) lost);
        out.putShort(at + WireHeader.OFF_ORIGINAL_LENGTH, (short) originalLength);
        out.putShort(at + WireHeader.OFF_TLV_LENGTH, (short) tlvLength);
        out.putLong(at + WireHeader.OFF_FORMAT_HASH, formatHash);
    }
}
