package org.tracewire.wire;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The 16-byte tracewire header every frame starts with ({@code docs/wire-format.md} §2), all
 * fields big-endian:
 *
 * <pre>
 * off size field
 *  0   1   version (2; version-1 frames have 0x54 here)
 *  1   1   kind (bits 0-3, {@link FrameKind}) | flags (bits 4-7, FLAG_*)
 *  2   2   cpu (0xFFFF: a context frame about no CPU)
 *  4   4   per-cpu-value sequence number (u32, wraps)
 *  8   8   time: ns since 1970-01-01 UTC (raw trace clock with FLAG_RAW_CLOCK)
 * </pre>
 *
 * @param version  the version byte (this code writes {@link #VERSION})
 * @param kindCode the kind's 4-bit code (0..15; {@link FrameKind#of} gives the kind, null when reserved)
 * @param flags    the flag bits, already in their header position (0x10..0xF0 masks, see {@code FLAG_*})
 * @param cpu      0..65535; {@link #NO_CPU} for context about no CPU
 * @param sequence 0..2^32-1
 * @param timeNs   ns since the Unix epoch, UTC (or the raw trace clock)
 */
public record WireHeader(int version, int kindCode, int flags, int cpu, long sequence, long timeNs) {
    /** Bytes of the header. */
    public static final int SIZE = 16;
    /** The version this code writes and reads. */
    public static final int VERSION = 2;
    /** Header byte 0 of version-1 frames (the {@code T} of their magic {@code TW}). */
    public static final int VERSION_1_MARK = 0x54;
    /** The cpu value of context frames that concern no CPU. */
    public static final int NO_CPU = 0xFFFF;
    /** The event payload (and the kernel) is little-endian. */
    public static final int FLAG_LITTLE_ENDIAN = 0x10;
    /** The event payload was cut to the maximum frame size. */
    public static final int FLAG_TRUNCATED = 0x20;
    /** The time field is the raw trace clock, not epoch ns. */
    public static final int FLAG_RAW_CLOCK = 0x40;
    /** Bits of byte 1 that are flags. */
    public static final int FLAG_MASK = 0xF0;
    /** Index of the kind-and-flags byte in the header. */
    public static final int KIND_BYTE = 1;

    public WireHeader {
        if (version < 0 || version > 0xff || kindCode < 0 || kindCode > 15 || (flags & ~FLAG_MASK) != 0
                || cpu < 0 || cpu > 0xffff || sequence < 0 || sequence > 0xffff_ffffL) {
            throw new IllegalArgumentException("header field out of range: version " + version + ", kind "
                    + kindCode + ", flags 0x" + Integer.toHexString(flags) + ", cpu " + cpu + ", sequence " + sequence);
        }
    }

    /**
     * The kind code (0..15) of the header that starts at {@code at}, read without the rest of the
     * header and without checking the version (for code that only routes frames it wrote itself).
     *
     * @throws IndexOutOfBoundsException when {@code at + KIND_BYTE} is outside {@code frame}'s limit
     */
    public static int kindCodeAt(ByteBuffer frame, int at) {
        return frame.get(at + KIND_BYTE) & 0x0f;
    }

    /**
     * The kind code (0..15) of a frame held in an array from index 0, like {@link #kindCodeAt}.
     *
     * @throws ArrayIndexOutOfBoundsException when the array is shorter than 2 bytes
     */
    public static int kindCode(byte[] frame) {
        return frame[KIND_BYTE] & 0x0f;
    }

    /**
     * The cpu field (big-endian, 0..65535; {@link #NO_CPU} for context about no CPU) of a frame held
     * in an array from index 0.
     *
     * @throws ArrayIndexOutOfBoundsException when the array is shorter than 4 bytes
     */
    public static int cpu(byte[] frame) {
        return ((frame[2] & 0xff) << 8) | (frame[3] & 0xff);
    }

    /** The frame's kind, or null for a reserved kind code. */
    public FrameKind kind() {
        return FrameKind.of(kindCode);
    }

    /** The byte order of the event payload / the traced kernel, from {@link #FLAG_LITTLE_ENDIAN}. */
    public ByteOrder byteOrder() {
        return (flags & FLAG_LITTLE_ENDIAN) != 0 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
    }

    /** True when the given flag bit(s) are all set. */
    public boolean has(int flag) {
        return (flags & flag) == flag;
    }

    /** Writes the 16 bytes at {@code out}'s position (absolute puts, position advanced by 16). */
    public void write(ByteBuffer out) {
        write(out, version, kindCode, flags, cpu, sequence, timeNs);
    }

    /**
     * Writes a header without building a record (the capture's hot path).
     *
     * @throws java.nio.BufferOverflowException when fewer than 16 bytes remain
     */
    static void write(ByteBuffer out, int version, int kindCode, int flags, int cpu, long sequence, long timeNs) {
        if (out.remaining() < SIZE) {
            throw new BufferOverflowException();
        }
        int p = out.position();
        writeAt(out, p, version, kindCode, flags, cpu, sequence, timeNs);
        out.position(p + SIZE);
    }

    /**
     * Writes a header at absolute index {@code at} (position unchanged): two 8-byte stores.
     *
     * @throws IndexOutOfBoundsException when the 16 bytes do not fit below the limit
     */
    static void writeAt(ByteBuffer out, int at, int version, int kindCode, int flags, int cpu, long sequence,
                        long timeNs) {
        // big-endian on the wire whatever the buffer's order: two 8-byte stores (no order switch)
        putAt(out, at, first(version, kindCode, flags, cpu, sequence), timeNs);
    }

    /**
     * Stores a header at absolute index {@code at}: its first 8 bytes ({@link #first}) and the time,
     * each big-endian whatever {@code out}'s byte order.
     */
    static void putAt(ByteBuffer out, int at, long first, long timeNs) {
        boolean big = out.order() == ByteOrder.BIG_ENDIAN;
        out.putLong(at, big ? first : Long.reverseBytes(first));
        out.putLong(at + 8, big ? timeNs : Long.reverseBytes(timeNs));
    }

    /** A header's first 8 bytes as one value, most significant byte first: version, kind | flags, cpu, sequence. */
    static long first(int version, int kindCode, int flags, int cpu, long sequence) {
        return ((long) (version & 0xff) << 56) | ((long) ((kindCode | flags) & 0xff) << 48)
                | ((long) (cpu & 0xffff) << 32) | (sequence & 0xffff_ffffL);
    }

    /**
     * Reads a header at absolute index {@code at}.
     *
     * @param frameOffset where {@code at} lies in the frame, for error offsets (14 in Ethernet, else 0)
     * @throws WireFormatException when fewer than 16 bytes remain, for a version-1 frame (said so) or
     *                             another version than 2
     */
    static WireHeader read(ByteBuffer in, int at, int frameOffset) {
        if (in.limit() - at < SIZE) {
            throw new WireFormatException(frameOffset + Math.max(0, in.limit() - at),
                    "truncated: the tracewire header needs " + SIZE + " bytes, " + Math.max(0, in.limit() - at) + " present");
        }
        int version = in.get(at) & 0xff;
        if (version == VERSION_1_MARK) {
            throw new WireFormatException(frameOffset, "tracewire wire format version 1: not read by this version (recapture with this tracewire)");
        }
        if (version != VERSION) {
            throw new WireFormatException(frameOffset, "unknown tracewire wire format version " + version);
        }
        int b1 = in.get(at + 1) & 0xff;
        ByteOrder o = in.order();
        in.order(ByteOrder.BIG_ENDIAN);
        int cpu = in.getShort(at + 2) & 0xffff;
        long seq = in.getInt(at + 4) & 0xffff_ffffL;
        long time = in.getLong(at + 8);
        in.order(o);
        return new WireHeader(version, b1 & 0x0f, b1 & FLAG_MASK, cpu, seq, time);
    }
}
