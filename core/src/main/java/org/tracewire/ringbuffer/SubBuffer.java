package org.tracewire.ringbuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.tracewire.format.HeaderEvent;

/**
 * One decoded ring-buffer sub-buffer (a "page" of {@code trace_pipe_raw}), per the layout of
 * {@code kernel/trace/ring_buffer.c}: a header ({@code u64 timestamp}, {@code local_t commit})
 * followed by {@code commit} bytes of records. Bit 31 of {@code commit} (RB_MISSED_EVENTS) says
 * events were lost before this page; bit 30 (RB_MISSED_STORED) says their count is stored as an
 * unsigned long right after the data.
 *
 * <p>Record headers are 32-bit words: {@code type_len} (5 bits) and {@code time_delta} (27 bits),
 * low bits first on little-endian kernels, high bits first on big-endian ones. {@code type_len}
 * 1..28: data of {@code type_len * 4} bytes follows; 0: the length (including its own 4 bytes) is
 * in the next word, data after it; 29: padding (a discarded event of {@code array[0]} bytes, or
 * with delta 0 the empty rest of the page); 30: time extend ({@code array[0] << 27 | delta} added
 * to the time); 31: absolute time stamp. Time stamps accumulate as the kernel's reader does
 * ({@code rb_update_read_stamp}): padding adds nothing.
 *
 * @param cpu          the CPU the page came from
 * @param timestamp    the page's base time stamp (trace-clock units)
 * @param dataLength   bytes of record data ({@code commit} without its flag bits)
 * @param missedEvents true when events were lost before this page
 * @param lostEvents   the stored count of lost events, or -1 when events were lost but the
 *                     count was not stored (0 when none were lost)
 * @param records      the data records in order
 * @param bytes        read-only view of the whole sub-buffer as read
 */
public record SubBuffer(int cpu, long timestamp, int dataLength, boolean missedEvents, long lostEvents,
                        List<RawRecord> records, ByteBuffer bytes) {

    /** RB_MISSED_EVENTS: events were dropped before this page. */
    public static final long MISSED_EVENTS = 1L << 31;
    /** RB_MISSED_STORED: the count of dropped events follows the data. */
    public static final long MISSED_STORED = 1L << 30;
    private static final long TS_MSB = 0xf8L << 56;

    public SubBuffer {
        records = Collections.unmodifiableList(records);
        bytes = bytes.asReadOnlyBuffer();
    }

    /** A copy of the sub-buffer's bytes. */
    public byte[] rawBytes() {
        byte[] b = new byte[bytes.limit()];
        bytes.get(0, b);
        return b;
    }

    /**
     * Decodes a sub-buffer.
     *
     * @param page   the bytes read from {@code trace_pipe_raw}, position 0 at the page start; at
     *               least the header must be present; records are not copied (views of {@code page})
     * @param layout the sub-buffer layout and the kernel's byte order
     * @param cpu    the CPU, for the records and for error messages
     * @return the decoded page
     * @throws CorruptPageException when the page does not follow the layout (names CPU and offset)
     */
    public static SubBuffer decode(ByteBuffer page, SubBufferLayout layout, int cpu) {
        ByteBuffer buf = page.slice().order(layout.kernel().byteOrder());
        PageHeader header = header(buf, layout, cpu);
        List<RawRecord> records = new ArrayList<>();
        scan(buf, layout, header, cpu,
                (ts, b, offset, length, pageOffset) -> records.add(new RawRecord(cpu, ts, view(b, offset, length), pageOffset)));
        return new SubBuffer(cpu, header.timestamp(), header.dataLength(), header.missedEvents(), header.lostEvents(),
                records, buf);
    }

    /**
     * The header of a sub-buffer: its base time stamp, data length and lost-events marks.
     *
     * @param timestamp    the page's base time stamp (trace-clock units)
     * @param dataLength   bytes of record data after the header ({@code commit} without its flag bits)
     * @param missedEvents true when events were lost before this page
     * @param lostEvents   the stored count of lost events, -1 when lost but not counted, 0 when none
     */
    public record PageHeader(long timestamp, int dataLength, boolean missedEvents, long lostEvents) {
    }

    /**
     * Receives the data records of a sub-buffer, in order, without any object per record.
     */
    @FunctionalInterface
    public interface RecordVisitor {
        /**
         * @param timestamp  absolute time in trace-clock units (see {@link RawRecord#timestamp()})
         * @param page       the page buffer passed to {@link #scan} (do not keep or modify it)
         * @param offset     byte offset of the payload ({@code common_type}) in {@code page}
         * @param length     payload length in bytes, including the kernel's alignment padding
         * @param pageOffset byte offset of the record header in the page
         */
        void record(long timestamp, ByteBuffer page, int offset, int length, int pageOffset);
    }

    /**
     * Reads a sub-buffer's header and checks it against the layout.
     *
     * @param page   the sub-buffer, position 0 at its start, limit at the bytes read, in the
     *               kernel's byte order
     * @param layout the sub-buffer layout
     * @param cpu    the CPU, for error messages
     * @return the header
     * @throws CorruptPageException when the page is shorter than its header, {@code commit} exceeds
     *                              the page, or the stored lost count does not fit
     */
    public static PageHeader header(ByteBuffer page, SubBufferLayout layout, int cpu) {
        int limit = page.limit();
        if (limit < layout.dataOffset()) {
            throw new CorruptPageException(cpu, 0, "page of " + limit + " bytes is shorter than its "
                    + layout.dataOffset() + "-byte header");
        }
        long timestamp = page.getLong(layout.timestampOffset());
        long commit = layout.commitSize() == 8 ? page.getLong(layout.commitOffset())
                : page.getInt(layout.commitOffset()) & 0xffffffffL;
        // The kernel ORs the flags in as int constants ((1 << 31) sign-extends into a 64-bit
        // local_t), so only the low 32 bits carry meaning, as libtraceevent's kbuffer reads them.
        commit &= 0xffffffffL;
        boolean missed = (commit & MISSED_EVENTS) != 0;
        boolean stored = (commit & MISSED_STORED) != 0;
        long length = commit & 0x3fffffffL;
        int capacity = Math.min(limit, layout.subBufferSize()) - layout.dataOffset();
        if (length > capacity) {
            throw new CorruptPageException(cpu, layout.commitOffset(), "commit says " + length
                    + " bytes of data but the page holds " + capacity);
        }
        int end = layout.dataOffset() + (int) length;
        long lost = 0;
        if (stored) {
            int longSize = layout.kernel().longSize();
            if (end + longSize > limit) {
                throw new CorruptPageException(cpu, end, "lost-events count does not fit after the data");
            }
            lost = longSize == 8 ? page.getLong(end) : page.getInt(end) & 0xffffffffL;
        } else if (missed) {
            lost = -1;
        }
        return new PageHeader(timestamp, (int) length, missed, lost);
    }

    /**
     * Walks the records of a sub-buffer and hands each data record to {@code visitor}; padding,
     * time extends and absolute time stamps only move the running time stamp. Allocates nothing per
     * record (a {@link Cursor} does the walk).
     *
     * @param page    the sub-buffer as for {@link #header}
     * @param layout  the sub-buffer layout
     * @param header  {@code header(page, layout, cpu)}
     * @param cpu     the CPU, for error messages
     * @param visitor receives each data record
     * @throws CorruptPageException when a record runs past the data or has an unknown type (the
     *                              records before it have been visited)
     */
    public static void scan(ByteBuffer page, SubBufferLayout layout, PageHeader header, int cpu, RecordVisitor visitor) {
        Cursor c = new Cursor(layout, cpu);
        c.reset(page, header);
        while (c.next()) {
            visitor.record(c.timestamp, page, c.offset, c.length, c.recordOffset);
        }
    }

    /**
     * A walk over the data records of one sub-buffer at a time, one record per {@link #next()},
     * as libtraceevent's {@code kbuffer_next_event} walks a page: the reader's position and running
     * time stamp, with no object per record. Padding, time extends and absolute time stamps only
     * move the time stamp ({@code rb_update_read_stamp}), as in {@link #scan}, which walks with one.
     * A cursor is reused from page to page ({@link #reset}); it is not thread-safe.
     */
    public static final class Cursor {
        private final int cpu;
        private final boolean big;
        private final int tlBits;
        private final int tdBits;
        private final int tlMask;
        private final int tdMask;
        private final int paddingType;
        private final int timeExtendType;
        private final int timeStampType;
        private final int maxDataType;
        private final int dataOffset;
        private ByteBuffer page;
        private int pos;
        private int end;
        private long timestamp;
        private int offset;
        private int length;
        private int recordOffset;

        /**
         * @param layout the sub-buffer layout (record header bits, byte order, data offset)
         * @param cpu    the CPU the pages come from, for error messages
         */
        public Cursor(SubBufferLayout layout, int cpu) {
            HeaderEvent he = layout.headerEvent();
            this.cpu = cpu;
            this.big = layout.kernel().byteOrder() == ByteOrder.BIG_ENDIAN;
            this.tlBits = he.typeLenBits();
            this.tdBits = he.timeDeltaBits();
            this.tlMask = (1 << tlBits) - 1;
            this.tdMask = (int) ((1L << tdBits) - 1);
            this.paddingType = he.paddingType();
            this.timeExtendType = he.timeExtendType();
            this.timeStampType = he.timeStampType();
            this.maxDataType = he.maxDataType();
            this.dataOffset = layout.dataOffset();
        }

        /**
         * Starts on a page, before its first record.
         *
         * @param page   the sub-buffer as for {@link SubBuffer#header}; kept (not copied) until the
         *               next reset: do not change it meanwhile
         * @param header {@code header(page, layout, cpu)}
         */
        public void reset(ByteBuffer page, PageHeader header) {
            this.page = page;
            this.pos = dataOffset;
            this.end = dataOffset + header.dataLength();
            this.timestamp = header.timestamp();
        }

        /**
         * Moves to the next data record.
         *
         * @return true when there is one ({@link #timestamp()}, {@link #offset()}, {@link #length()}
         *         describe it), false at the end of the page's data
         * @throws CorruptPageException when a record runs past the data or has an unknown type
         *                              (names the CPU and the offset); the cursor then stays at
         *                              that record
         */
        public boolean next() {
            // the common case inline (a data record with its length in type_len), the rest apart:
            // small enough for the JIT to inline into the caller's loop
            int p = pos;
            if (p + 4 <= end) {
                int word = page.getInt(p);
                int typeLen = big ? word >>> tdBits : word & tlMask;
                if (typeLen != 0 && typeLen <= maxDataType) {
                    int next = p + 4 + typeLen * 4;
                    if (next <= end) {
                        return take(p, p + 4, typeLen * 4, next, big ? word & tdMask : word >>> tlBits);
                    }
                }
            }
            return nextSlow();
        }

        /** {@link #next} past its common case: the end, padding, time records, long records, errors. */
        private boolean nextSlow() {
            ByteBuffer b = page;
            while (pos < end) {
                if (pos + 4 > end) {
                    throw new CorruptPageException(cpu, pos, "record header runs past the data end " + end);
                }
                int word = b.getInt(pos);
                int typeLen = big ? word >>> tdBits : word & tlMask;
                long delta = big ? word & tdMask : word >>> tlBits;
                if (typeLen != 0 && typeLen <= maxDataType) {
                    int len = typeLen * 4;
                    return take(pos, pos + 4, len, advance(pos, 4 + len, end, cpu, "record"), delta);
                } else if (typeLen == paddingType) {
                    if (delta == 0) {
                        pos = end; // the empty rest of the page
                        return false;
                    }
                    long padLen = array0(b, pos, end, cpu, "padding");
                    pos = advance(pos, 4 + padLen, end, cpu, "padding");
                } else if (typeLen == timeExtendType) {
                    long ext = array0(b, pos, end, cpu, "time extend");
                    timestamp += (ext << tdBits) | delta;
                    pos = advance(pos, 8, end, cpu, "time extend");
                } else if (typeLen == timeStampType) {
                    long abs = (array0(b, pos, end, cpu, "time stamp") << tdBits) | delta;
                    timestamp = fixAbsoluteTimeStamp(abs, timestamp);
                    pos = advance(pos, 8, end, cpu, "time stamp");
                } else if (typeLen == 0) {
                    long len = array0(b, pos, end, cpu, "record length");
                    if (len < 4) {
                        throw new CorruptPageException(cpu, pos, "record length word " + len + " is less than 4");
                    }
                    return take(pos, pos + 8, (int) len - 4, advance(pos, 4 + len, end, cpu, "record"), delta);
                } else {
                    throw new CorruptPageException(cpu, pos, "unknown record type_len " + typeLen);
                }
            }
            return false;
        }

        /** Makes the record at {@code at} the current one and moves past it, to {@code next}. */
        private boolean take(int at, int payload, int len, int next, long delta) {
            timestamp += delta;
            recordOffset = at;
            offset = payload;
            length = len;
            pos = next;
            return true;
        }

        /** The current record's absolute time in trace-clock units (see {@link RawRecord#timestamp()}). */
        public long timestamp() {
            return timestamp;
        }

        /** Byte offset of the current record's payload ({@code common_type}) in the page. */
        public int offset() {
            return offset;
        }

        /** The current record's payload length in bytes, including the kernel's alignment padding. */
        public int length() {
            return length;
        }

        /** Byte offset of the current record's header in the page. */
        public int recordOffset() {
            return recordOffset;
        }
    }

    /**
     * Restores the top bits an absolute time stamp record drops (it stores 59 bits), as the
     * kernel's {@code rb_fix_abs_ts()} does.
     */
    static long fixAbsoluteTimeStamp(long abs, long current) {
        if ((current & TS_MSB) != 0) {
            abs |= current & TS_MSB;
            if (Long.compareUnsigned(abs, current) < 0) {
                abs += 1L << 59;
            }
        }
        return abs;
    }

    private static long array0(ByteBuffer buf, int pos, int end, int cpu, String what) {
        if (pos + 8 > end) {
            throw new CorruptPageException(cpu, pos, what + " word runs past the data end " + end);
        }
        return buf.getInt(pos + 4) & 0xffffffffL;
    }

    private static int advance(int pos, long length, int end, int cpu, String what) {
        long next = pos + length;
        if (next > end) {
            throw new CorruptPageException(cpu, pos, what + " of " + length + " bytes runs past the data end " + end);
        }
        return (int) next;
    }

    private static ByteBuffer view(ByteBuffer buf, int offset, int length) {
        return buf.slice(offset, length).asReadOnlyBuffer().order(buf.order());
    }
}
