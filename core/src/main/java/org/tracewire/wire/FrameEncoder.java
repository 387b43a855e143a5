package org.tracewire.wire;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.tracewire.format.DataLoc;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.record.EventRecord;

/**
 * Builds tracewire frames ({@code docs/wire-format.md}) straight from trace records into a
 * caller's {@link ByteBuffer}, without building {@link WireFrame} objects: the hot path of a
 * capture. Per event id it keeps a precomputed plan (event name bytes, where the common fields
 * are, how to extract each own field), so encoding a frame allocates nothing.
 *
 * <p>Field values (TLV type i = i-th own field, 1-based): scalars, pointers, opaque fields and
 * fixed non-char arrays as their {@code size} bytes; {@code char[N]} up to the first NUL
 * (without it and the padding after it); {@code char[]} from its offset to the record end, up to
 * the first NUL; other {@code type[]} flexible arrays to the record end; {@code __data_loc} /
 * {@code __rel_loc} fields as the bytes their location word points at (length from the word, so
 * a string includes the NUL the kernel stored). All in the kernel's byte order. A value's byte
 * range is clipped to the record payload (a corrupt location word gives a short or empty value,
 * never an exception).
 *
 * <p>Truncation: the TLV budget is {@code maxFrameSize - 62}. TLVs are emitted in order (event
 * name first) while they fit whole; the first one that does not fit is cut to the space left when
 * its 4-byte head and at least 1 value byte fit (its length field says the cut length), otherwise
 * omitted; every later TLV is omitted. Then {@link WireHeader#FLAG_TRUNCATED} is set. The
 * original-length header field always holds the untruncated TLV byte count (saturating at 65535).
 *
 * <p>Not thread-safe: use one encoder per thread.
 */
public final class FrameEncoder {
    private static final byte K_FIXED = 0, K_CHARS = 1, K_CHARS_FLEX = 2, K_FLEX = 3, K_DYN = 4, K_DYN_REL = 5;

    private final long destination;
    private final long source;
    private final long formatHash;
    private final int maxFrameSize;
    private Plan[] plans = new Plan[1024];
    private int[] starts = new int[64];
    private int[] lengths = new int[64];
    private boolean lastTruncated;
    private int lastOriginalLength;

    /**
     * @param destination  Ethernet destination ({@link MacAddress#TRACEWIRE})
     * @param source       Ethernet source ({@link MacAddress#localHost()})
     * @param formatHash   {@link org.tracewire.format.FormatIdentity} hash of the formats in use
     * @param maxFrameSize largest frame in bytes including the 14-byte Ethernet header and excluding
     *                     the FCS: {@value WireFrame#MIN_MAX_FRAME}..{@value WireFrame#MAX_MAX_FRAME};
     *                     {@value WireFrame#DEFAULT_MAX_FRAME} for MTU 1500
     */
    public FrameEncoder(MacAddress destination, MacAddress source, long formatHash, int maxFrameSize) {
        this.destination = Objects.requireNonNull(destination, "destination").bits();
        this.source = Objects.requireNonNull(source, "source").bits();
        this.formatHash = formatHash;
        if (maxFrameSize < WireFrame.MIN_MAX_FRAME || maxFrameSize > WireFrame.MAX_MAX_FRAME) {
            throw new IllegalArgumentException("max frame size " + maxFrameSize + " outside "
                    + WireFrame.MIN_MAX_FRAME + ".." + WireFrame.MAX_MAX_FRAME);
        }
        this.maxFrameSize = maxFrameSize;
    }

    /** An encoder with the default maximum frame size of 1514 bytes. */
    public FrameEncoder(MacAddress destination, MacAddress source, long formatHash) {
        this(destination, source, formatHash, WireFrame.DEFAULT_MAX_FRAME);
    }

    /** The largest frame this encoder writes, in bytes. */
    public int maxFrameSize() {
        return maxFrameSize;
    }

    /** True when the frame of the last {@link #encode} call was truncated ({@link WireHeader#FLAG_TRUNCATED} set). */
    public boolean lastTruncated() {
        return lastTruncated;
    }

    /**
     * The untruncated TLV byte count of the last {@link #encode} call (name TLV included; not
     * saturated, unlike the header's original-length field), in bytes.
     */
    public int lastOriginalLength() {
        return lastOriginalLength;
    }

    /** Computes the plans of these formats now, so the first frame of each event allocates nothing. */
    public void prepare(Collection<EventFormat> formats) {
        for (EventFormat f : formats) {
            plan(f);
        }
    }

    /**
     * Encodes a record (see {@link #encode(EventFormat, ByteOrder, ByteBuffer, int, long, long, long, int, ByteBuffer)}),
     * using its format, byte order and payload.
     */
    public int encode(EventRecord record, int cpu, long sequence, long lostEvents, long timeNs, int flags,
                      ByteBuffer out) {
        return encode(record.format(), record.byteOrder(), record.payload(), cpu, sequence, lostEvents, timeNs,
                flags, out);
    }

    /**
     * Writes one frame for one record at {@code out}'s position and advances it.
     *
     * @param format     the record's format
     * @param order      the kernel's byte order (sets {@link WireHeader#FLAG_LITTLE_ENDIAN})
     * @param payload    the record payload from its position ({@code common_type}) to its limit;
     *                   neither its position nor its byte order is changed
     * @param cpu        0..65535
     * @param sequence   per-CPU sequence number
     * @param lostEvents events lost on this CPU since its previous frame; -1 = lost, count unknown
     *                   (sets {@link WireHeader#FLAG_LOST_UNKNOWN}, field 0); saturates at 2^32-1
     * @param timeNs     ns since the Unix epoch (UTC), or the raw trace clock with {@link WireHeader#FLAG_RAW_CLOCK}
     * @param flags      {@link WireHeader#FLAG_RAW_CLOCK} and/or {@link WireHeader#FLAG_LOST_UNKNOWN};
     *                   the encoder sets the byte-order and truncation bits itself
     * @param out        destination; its byte order is restored afterwards
     * @return bytes written (62..maxFrameSize); whether it was truncated and the untruncated TLV
     *         length are then {@link #lastTruncated()} and {@link #lastOriginalLength()}
     * @throws BufferOverflowException  when {@code out} has less room than the frame (nothing written)
     * @throws IllegalArgumentException when cpu or flags are out of range
     */
    public int encode(EventFormat format, ByteOrder order, ByteBuffer payload, int cpu, long sequence,
                      long lostEvents, long timeNs, int flags, ByteBuffer out) {
        if (cpu < 0 || cpu > 0xffff) {
            throw new IllegalArgumentException("cpu " + cpu + " outside 0..65535");
        }
        if ((flags & ~(WireHeader.FLAG_RAW_CLOCK | WireHeader.FLAG_LOST_UNKNOWN
                | WireHeader.FLAG_LITTLE_ENDIAN | WireHeader.FLAG_TRUNCATED)) != 0) {
            throw new IllegalArgumentException(String.format("reserved flag bits set: 0x%02x", flags));
        }
        Plan plan = plan(format);
        boolean big = order == ByteOrder.BIG_ENDIAN;
        int base = payload.position();
        int plen = payload.remaining();
        int n = plan.kinds.length;

        // Pass 1: each value's byte range within the payload, and the untruncated TLV length.
        int total = Tlv.HEAD + plan.name.length;
        for (int i = 0; i < n; i++) {
            int off = plan.offsets[i];
            int len;
            switch (plan.kinds[i]) {
                case K_FIXED -> len = plan.sizes[i];
                case K_CHARS -> len = nulLength(payload, base, plen, off, plan.sizes[i]);
                case K_CHARS_FLEX -> len = nulLength(payload, base, plen, off, plen - off);
                case K_FLEX -> len = plen - off;
                default -> {
                    if (off < 0 || off + 4 > plen) {
                        len = 0;
                    } else {
                        int word = readInt(payload, base + off, big);
                        len = DataLoc.length(word);
                        off = DataLoc.offset(word, off, plan.kinds[i] == K_DYN_REL);
                    }
                }
            }
            // clip [off, off + len) to [0, plen)
            int s = Math.max(0, Math.min(off, plen));
            int e = (int) Math.max(s, Math.min((long) off + Math.max(len, 0), plen));
            starts[i] = s;
            lengths[i] = Math.min(e - s, 0xffff);
            total += Tlv.HEAD + lengths[i];
        }

        // Pass 2: how many TLVs fit whole, and the cut of the next one.
        int budget = maxFrameSize - WireFrame.MIN_MAX_FRAME;
        int used;
        int whole; // TLVs written whole, counting the name TLV as index 0
        int cut = -1; // value bytes of the cut TLV, -1 = none
        if (total <= budget) {
            used = total;
            whole = n + 1;
        } else {
            used = 0;
            whole = 0;
            while (whole <= n) {
                int need = Tlv.HEAD + (whole == 0 ? plan.name.length : lengths[whole - 1]);
                if (used + need > budget) {
                    break;
                }
                used += need;
                whole++;
            }
            int left = budget - used;
            if (left > Tlv.HEAD) {
                cut = left - Tlv.HEAD;
                used = budget;
            }
        }
        int frameSize = WireFrame.MIN_MAX_FRAME + used;
        if (out.remaining() < frameSize) {
            throw new BufferOverflowException();
        }

        int outFlags = (flags & (WireHeader.FLAG_RAW_CLOCK | WireHeader.FLAG_LOST_UNKNOWN))
                | (big ? 0 : WireHeader.FLAG_LITTLE_ENDIAN)
                | (total > budget ? WireHeader.FLAG_TRUNCATED : 0);
        long lost;
        if (lostEvents < 0) {
            outFlags |= WireHeader.FLAG_LOST_UNKNOWN;
            lost = 0;
        } else {
            lost = Math.min(lostEvents, 0xffff_ffffL);
        }

        ByteOrder saved = out.order();
        out.order(ByteOrder.BIG_ENDIAN);
        try {
            int at = out.position();
            WireEncoder.writeEthernet(out, at, destination, source);
            WireEncoder.writeHeader(out, at + WireFrame.ETHERNET_HEADER, WireHeader.VERSION, outFlags, cpu,
                    common(payload, base, plen, plan.typeOff, plan.typeSize, big) & 0xffff,
                    common(payload, base, plen, plan.flagsOff, plan.flagsSize, big) & 0xff,
                    common(payload, base, plen, plan.preemptOff, plan.preemptSize, big) & 0xff,
                    common(payload, base, plen, plan.pidOff, plan.pidSize, big),
                    timeNs, sequence, lost, Math.min(total, 0xffff), used, formatHash);
            int p = at + WireFrame.MIN_MAX_FRAME;
            for (int t = 0; t <= n && (t < whole || (t == whole && cut >= 0)); t++) {
                int len = t == 0 ? plan.name.length : lengths[t - 1];
                if (t == whole) {
                    len = cut;
                }
                out.putShort(p, (short) t);
                out.putShort(p + 2, (short) len);
                p += Tlv.HEAD;
                if (t == 0) {
                    out.put(p, plan.name, 0, len);
                } else {
                    out.put(p, payload, base + starts[t - 1], len);
                }
                p += len;
            }
            out.position(at + frameSize);
            lastTruncated = total > budget;
            lastOriginalLength = total;
        } finally {
            out.order(saved);
        }
        return frameSize;
    }

    /** Bytes before the first NUL in {@code [off, off + max)} clipped to the payload; 0 when outside. */
    private static int nulLength(ByteBuffer payload, int base, int plen, int off, int max) {
        if (off < 0 || off >= plen || max <= 0) {
            return 0;
        }
        int end = (int) Math.min((long) off + max, plen);
        int i = off;
        while (i < end && payload.get(base + i) != 0) {
            i++;
        }
        return i - off;
    }

    /** A common field's value (1, 2 or 4 bytes, zero-extended; 4 bytes as is), 0 when absent or outside. */
    private static int common(ByteBuffer payload, int base, int plen, int off, int size, boolean big) {
        if (off < 0 || off + size > plen) {
            return 0;
        }
        return switch (size) {
            case 1 -> payload.get(base + off) & 0xff;
            case 2 -> big ? ((payload.get(base + off) & 0xff) << 8) | (payload.get(base + off + 1) & 0xff)
                    : ((payload.get(base + off + 1) & 0xff) << 8) | (payload.get(base + off) & 0xff);
            case 4 -> readInt(payload, base + off, big);
            default -> 0;
        };
    }

    private static int readInt(ByteBuffer b, int at, boolean big) {
        int b0 = b.get(at) & 0xff, b1 = b.get(at + 1) & 0xff, b2 = b.get(at + 2) & 0xff, b3 = b.get(at + 3) & 0xff;
        return big ? (b0 << 24) | (b1 << 16) | (b2 << 8) | b3 : (b3 << 24) | (b2 << 16) | (b1 << 8) | b0;
    }

    private Plan plan(EventFormat format) {
        int id = format.id();
        if (id >= 0 && id < 0x10000) {
            if (id >= plans.length) {
                Plan[] grown = new Plan[Math.max(id + 1, Math.min(0x10000, plans.length * 2))];
                System.arraycopy(plans, 0, grown, 0, plans.length);
                plans = grown;
            }
            Plan p = plans[id];
            if (p == null || p.format != format) {
                p = new Plan(format);
                plans[id] = p;
            }
            ensureScratch(p.kinds.length);
            return p;
        }
        Plan p = new Plan(format);
        ensureScratch(p.kinds.length);
        return p;
    }

    private void ensureScratch(int n) {
        if (starts.length < n) {
            starts = new int[n];
            lengths = new int[n];
        }
    }

    /** How to encode one event: its name and field extraction, computed once per event format. */
    private static final class Plan {
        final EventFormat format;
        final byte[] name;
        final byte[] kinds;
        final int[] offsets;
        final int[] sizes;
        final int typeOff, typeSize, flagsOff, flagsSize, preemptOff, preemptSize, pidOff, pidSize;

        Plan(EventFormat format) {
            this.format = format;
            byte[] n = format.fullName().getBytes(StandardCharsets.UTF_8);
            this.name = n.length > 0xffff ? java.util.Arrays.copyOf(n, 0xffff) : n;
            List<Field> fields = format.fields();
            kinds = new byte[fields.size()];
            offsets = new int[fields.size()];
            sizes = new int[fields.size()];
            for (int i = 0; i < fields.size(); i++) {
                Field f = fields.get(i);
                offsets[i] = f.offset();
                sizes[i] = f.size();
                kinds[i] = kindOf(f);
            }
            Field t = format.field("common_type");
            Field fl = format.field("common_flags");
            Field pc = format.field("common_preempt_count");
            Field pid = format.field("common_pid");
            typeOff = t == null ? -1 : t.offset();
            typeSize = t == null ? 0 : t.size();
            flagsOff = fl == null ? -1 : fl.offset();
            flagsSize = fl == null ? 0 : fl.size();
            preemptOff = pc == null ? -1 : pc.offset();
            preemptSize = pc == null ? 0 : pc.size();
            pidOff = pid == null ? -1 : pid.offset();
            pidSize = pid == null ? 0 : pid.size();
        }

        private static byte kindOf(Field f) {
            if (f.kind().isDynamic()) {
                return f.relative() ? K_DYN_REL : K_DYN;
            }
            if (f.kind() == FieldKind.CHAR_ARRAY) {
                return f.isFlexible() ? K_CHARS_FLEX : K_CHARS;
            }
            if (f.isFlexible()) {
                return K_FLEX;
            }
            return K_FIXED;
        }
    }
}
