package org.tracewire.ringbuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Packs records into one sub-buffer the way the kernel's ring buffer writes them
 * ({@code kernel/trace/ring_buffer.c}; what {@link SubBuffer} reads back): the page header's u64
 * time stamp of the first record, each record a header word (type_len and a time delta) and its
 * payload padded to 4 bytes (type_len 0 and a length word when the payload is longer than
 * {@code type_len} can say), a time-extend record before a delta too large for the header word, and
 * at {@link #finish} the commit field with the data length, {@link SubBuffer#MISSED_EVENTS} and the
 * stored lost count ({@link SubBuffer#MISSED_STORED}) when events were lost before the page. The
 * kernel's byte order and sizes come from the {@link SubBufferLayout}.
 *
 * <p>One page at a time: {@link #start}, {@link #tryAdd} until it answers false, {@link #finish};
 * the page is then {@link #page()} and the builder can start again. For trace.dat export and for
 * pages made without a kernel (the capture's JIT warm-up, tests). Not thread-safe.
 */
public final class SubBufferBuilder {
    private final SubBufferLayout layout;
    private final int pageSize;
    private final ByteBuffer page;
    private final int tdBits;
    private final long tdMask;
    private final boolean big;
    private boolean open;
    private int pos;
    private long lastTs;
    private long lost;
    private int records;

    /**
     * @param layout the page layout: byte order, long size, sub-buffer size, record-header packing
     */
    public SubBufferBuilder(SubBufferLayout layout) {
        this.layout = Objects.requireNonNull(layout, "layout");
        this.pageSize = layout.subBufferSize();
        ByteOrder order = layout.kernel().byteOrder();
        this.page = ByteBuffer.allocate(pageSize).order(order);
        this.tdBits = layout.headerEvent().timeDeltaBits();
        this.tdMask = (1L << tdBits) - 1;
        this.big = order == ByteOrder.BIG_ENDIAN;
    }

    /**
     * True when a record of {@code payloadLength} bytes fits an empty page (with room for a lost
     * count after it): a record that does not can be written into no page of this layout.
     */
    public boolean fitsEmptyPage(int payloadLength) {
        return recordBytes(payloadLength) + 8 + layout.kernel().longSize() <= pageSize - layout.dataOffset();
    }

    /** Bytes a record of {@code payloadLength} bytes takes: its header (4 or 8 bytes) and the padded payload. */
    private int recordBytes(int payloadLength) {
        int padded = (payloadLength + 3) & ~3;
        boolean small = padded > 0 && padded <= layout.headerEvent().maxDataType() * 4;
        return (small ? 4 : 8) + padded;
    }

    /**
     * Starts a page: zeros, the header's time stamp.
     *
     * @param timestamp  the page's time stamp (the first record's), raw trace-clock units
     * @param lostBefore events lost before this page: 0, a count (stored after the data), or -1 for
     *                   lost events of unknown number (only {@link SubBuffer#MISSED_EVENTS} set)
     * @throws IllegalStateException when a page is open
     */
    public void start(long timestamp, long lostBefore) {
        if (open) {
            throw new IllegalStateException("a page is open: finish it first");
        }
        page.clear();
        page.put(0, new byte[pageSize]);
        page.putLong(layout.timestampOffset(), timestamp);
        pos = layout.dataOffset();
        lastTs = timestamp;
        lost = lostBefore;
        records = 0;
        open = true;
    }

    /** True between {@link #start} and {@link #finish}. */
    public boolean isOpen() {
        return open;
    }

    /** The time stamp of the page's last record (its start time before any), raw trace-clock units. */
    public long lastTimestamp() {
        return lastTs;
    }

    /** Records in the open (or last finished) page. */
    public int records() {
        return records;
    }

    /**
     * Appends a record when it fits the open page (its time extend and the lost count's room
     * included); otherwise changes nothing.
     *
     * @param timestamp the record's time stamp, raw trace-clock units, not before {@link #lastTimestamp()}
     *                  (unsigned)
     * @param payload   the record payload from its position to its limit (not changed), from
     *                  {@code common_type} on
     * @return false when the record does not fit: finish the page and start another
     * @throws IllegalStateException    when no page is open
     * @throws IllegalArgumentException for a time stamp before the last one
     */
    public boolean tryAdd(long timestamp, ByteBuffer payload) {
        if (!open) {
            throw new IllegalStateException("no page is open: start one first");
        }
        if (Long.compareUnsigned(timestamp, lastTs) < 0) {
            throw new IllegalArgumentException("time stamp " + Long.toUnsignedString(timestamp) + " before the page's last "
                    + Long.toUnsignedString(lastTs) + ": start a new page");
        }
        int len = payload.remaining();
        int padded = (len + 3) & ~3;
        int recBytes = recordBytes(len);
        long delta = timestamp - lastTs;
        int ext = Long.compareUnsigned(delta, tdMask) > 0 ? 8 : 0;
        if (pos + ext + recBytes + (lost > 0 ? layout.kernel().longSize() : 0) > pageSize) {
            return false;
        }
        if (ext > 0) {
            page.putInt(pos, word(layout.headerEvent().timeExtendType(), delta & tdMask));
            page.putInt(pos + 4, (int) (delta >>> tdBits));
            pos += 8;
            delta = 0;
        }
        if (recBytes == 4 + padded) {
            page.putInt(pos, word(padded / 4, delta));
            pos += 4;
        } else {
            page.putInt(pos, word(0, delta));
            page.putInt(pos + 4, padded + 4);
            pos += 8;
        }
        page.put(pos, payload, payload.position(), len);
        for (int i = len; i < padded; i++) {
            page.put(pos + i, (byte) 0);
        }
        pos += padded;
        lastTs = timestamp;
        records++;
        return true;
    }

    /** A record header word: type_len and time delta in the kernel's packing. */
    private int word(int typeLen, long delta) {
        int tlBits = layout.headerEvent().typeLenBits();
        return big ? (typeLen << tdBits) | (int) delta : typeLen | (int) (delta << tlBits);
    }

    /**
     * Ends the open page: writes its commit field (data length, and the lost-event flags and count)
     * and closes it.
     *
     * @return the page, {@link SubBufferLayout#subBufferSize()} bytes from index 0 (a view of this
     *         builder's buffer: copy it before the next {@link #start})
     * @throws IllegalStateException when no page is open
     */
    public ByteBuffer finish() {
        if (!open) {
            throw new IllegalStateException("no page is open");
        }
        long commit = pos - layout.dataOffset();
        if (lost != 0) {
            commit |= SubBuffer.MISSED_EVENTS;
            if (lost > 0) {
                commit |= SubBuffer.MISSED_STORED;
                if (layout.kernel().longSize() == 8) {
                    page.putLong(pos, lost);
                } else {
                    page.putInt(pos, (int) Math.min(lost, 0xffffffffL));
                }
            }
        }
        if (layout.commitSize() == 8) {
            page.putLong(layout.commitOffset(), commit);
        } else {
            page.putInt(layout.commitOffset(), (int) commit);
        }
        open = false;
        return page();
    }

    /** The page buffer, from index 0 to the sub-buffer size, in the kernel's byte order (a view). */
    public ByteBuffer page() {
        return page.duplicate().order(page.order()).position(0).limit(pageSize);
    }
}
