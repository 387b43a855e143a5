package org.tracewire.wire;

/**
 * The fixed tracewire header that follows the Ethernet header ({@code docs/wire-format.md},
 * "Fixed header"). On the wire it is {@link #SIZE} bytes (version 1), all big-endian:
 *
 * <pre>
 * off size field
 *  0   2   magic "TW" (0x54 0x57)
 *  2   1   version (1)
 *  3   1   flags (FLAG_*)
 *  4   2   header length in bytes (48; receivers skip anything beyond the fields they know)
 *  6   2   cpu
 *  8   2   event id (common_type)
 * 10   1   common_flags
 * 11   1   common_preempt_count
 * 12   4   common_pid (signed)
 * 16   8   time: ns since 1970-01-01 UTC (raw trace clock when FLAG_RAW_CLOCK)
 * 24   8   per-CPU sequence number
 * 32   4   lost events since the previous frame of this CPU (saturating)
 * 36   2   original TLV length: TLV bytes before truncation (saturating at 65535)
 * 38   2   TLV length: TLV bytes in this frame (written by the encoder, not part of this record)
 * 40   8   format identity hash
 * </pre>
 * Offsets are from the header's first byte (frame offset = 14 + off).
 *
 * @param version        format version (1..255; this code writes 1)
 * @param flags          the flags byte (0..255), see {@code FLAG_*}
 * @param cpu            CPU whose ring buffer held the event (0..65535)
 * @param eventId        the record's {@code common_type} (0..65535)
 * @param commonFlags    {@code common_flags} (0..255)
 * @param preemptCount   {@code common_preempt_count} (0..255)
 * @param pid            {@code common_pid}
 * @param timeNs         event time in ns since the Unix epoch, UTC (or raw trace clock)
 * @param sequence       per-CPU sequence number (0 for the first frame of a CPU in a capture)
 * @param lostEvents     events lost on this CPU since its previous frame (0..0xFFFFFFFF)
 * @param originalLength TLV bytes the frame would have carried untruncated (0..65535)
 * @param formatHash     {@link org.tracewire.format.FormatIdentity} hash of the sender's formats
 */
public record WireHeader(int version, int flags, int cpu, int eventId, int commonFlags, int preemptCount,
                         int pid, long timeNs, long sequence, long lostEvents, int originalLength,
                         long formatHash) {

    /** Bytes of the version-1 header. */
    public static final int SIZE = 48;
    /** The magic, {@code "TW"} as a big-endian short. */
    public static final int MAGIC = 0x5457;
    /** The version this code writes. */
    public static final int VERSION = 1;

    /** Bit 0: field values (TLV values) are little-endian (the kernel's byte order); clear = big-endian. */
    public static final int FLAG_LITTLE_ENDIAN = 0x01;
    /** Bit 1: the event did not fit the maximum frame size; the last TLV is cut or TLVs are missing. */
    public static final int FLAG_TRUNCATED = 0x02;
    /** Bit 2: events were lost before this frame but the kernel did not say how many (lost field is 0). */
    public static final int FLAG_LOST_UNKNOWN = 0x04;
    /** Bit 3: the time is the raw trace clock (e.g. {@code local}), not wall-clock ns since the epoch. */
    public static final int FLAG_RAW_CLOCK = 0x08;
    /** Bits 4..7: reserved, sent as 0, ignored by receivers. */
    public static final int RESERVED_FLAGS = 0xf0;

    /** Field offsets within the header. */
    public static final int OFF_MAGIC = 0, OFF_VERSION = 2, OFF_FLAGS = 3, OFF_HEADER_LENGTH = 4, OFF_CPU = 6,
            OFF_EVENT_ID = 8, OFF_COMMON_FLAGS = 10, OFF_PREEMPT_COUNT = 11, OFF_PID = 12, OFF_TIME = 16,
            OFF_SEQUENCE = 24, OFF_LOST = 32, OFF_ORIGINAL_LENGTH = 36, OFF_TLV_LENGTH = 38, OFF_FORMAT_HASH = 40;

    public WireHeader {
        check("version", version, 1, 0xff);
        check("flags", flags, 0, 0xff);
        check("cpu", cpu, 0, 0xffff);
        check("eventId", eventId, 0, 0xffff);
        check("commonFlags", commonFlags, 0, 0xff);
        check("preemptCount", preemptCount, 0, 0xff);
        if (lostEvents < 0 || lostEvents > 0xffff_ffffL) {
            throw new IllegalArgumentException("lostEvents " + lostEvents + " outside 0..4294967295");
        }
        check("originalLength", originalLength, 0, 0xffff);
    }

    private static void check(String what, int v, int min, int max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(what + " " + v + " outside " + min + ".." + max);
        }
    }

    /** Whether TLV values are little-endian. */
    public boolean littleEndian() {
        return (flags & FLAG_LITTLE_ENDIAN) != 0;
    }

    /** Whether the frame was truncated. */
    public boolean truncated() {
        return (flags & FLAG_TRUNCATED) != 0;
    }

    /** Whether events were lost in an unknown number. */
    public boolean lostUnknown() {
        return (flags & FLAG_LOST_UNKNOWN) != 0;
    }

    /** Whether the time is the raw trace clock. */
    public boolean rawClock() {
        return (flags & FLAG_RAW_CLOCK) != 0;
    }
}
