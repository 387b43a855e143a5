package org.tracewire.tracedat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.TreeMap;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.ringbuffer.CorruptPageException;
import org.tracewire.ringbuffer.RawRecord;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;

/**
 * The records of a trace.dat's buffers, read page by page with {@link SubBuffer} and merged in
 * the order of the kernel's text iterator: by time stamp, ties to the lower CPU (as
 * {@link org.tracewire.ringbuffer.RingBufferDrain#merge} does), each CPU's own order kept. Holds one
 * page (uncompressed data) or one decompressed chunk (v7 compressed data) per CPU at a time.
 * Records of event ids the file has no format for, and records shorter than their format's common
 * fields (a corrupt page), are skipped and counted.
 *
 * <p>Errors: {@link TraceDatException} with the file offset of the page or chunk that does not
 * decode (thrown by {@link #hasNext()} / {@link #next()}).
 */
public final class TraceDatRecords implements Iterator<TraceDatEvent>, AutoCloseable {
    private final TraceDatFile file;
    private final Map<Integer, EventFormat> byId;
    private final KernelLayout layout;
    private final PriorityQueue<CpuStream> queue = new PriorityQueue<>((a, b) -> {
        int c = Long.compareUnsigned(a.current.timestamp(), b.current.timestamp());
        if (c != 0) {
            return c;
        }
        c = Integer.compare(a.bufferIndex, b.bufferIndex);
        return c != 0 ? c : Integer.compare(a.cpu, b.cpu);
    });
    private final List<CpuStream> all = new ArrayList<>();
    private final long offsetNs;
    private final long[] tsc;
    private long unknown;
    private long tooShort;
    private final Map<Integer, Integer> commonSize = new HashMap<>();
    private boolean started;
    private TraceDatEvent peeked;

    TraceDatRecords(TraceDatFile file, List<TraceDatBuffer> buffers) {
        this.file = file;
        this.byId = file.catalog().byId();
        this.layout = file.kernelLayout();
        TraceDatOptions o = file.options();
        this.offsetNs = o.offset() == null ? 0 : o.offset();
        this.tsc = o.tsc2nsec();
        for (int i = 0; i < buffers.size(); i++) {
            TraceDatBuffer b = buffers.get(i);
            SubBufferLayout sl = file.subBufferLayout(b);
            for (TraceDatBuffer.CpuData d : b.cpus()) {
                if (d.size() > 0) {
                    all.add(new CpuStream(i, b.name(), d, sl));
                }
            }
        }
    }

    private void start() {
        if (!started) {
            started = true;
            for (CpuStream s : all) {
                if (s.advance()) {
                    queue.add(s);
                }
            }
        }
    }

    @Override
    public boolean hasNext() {
        start();
        if (peeked == null) {
            peeked = fetch();
        }
        return peeked != null;
    }

    @Override
    public TraceDatEvent next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        TraceDatEvent e = peeked;
        peeked = null;
        return e;
    }

    private TraceDatEvent fetch() {
        while (true) {
            CpuStream s = queue.poll();
            if (s == null) {
                return null;
            }
            RawRecord r = s.current;
            long lost = s.pendingLost;
            long seq = s.sequence++;
            s.pendingLost = 0;
            if (s.advance()) {
                queue.add(s);
            }
            EventFormat f = r.payload().limit() >= 2 ? byId.get(r.eventId()) : null;
            if (f == null) {
                unknown++;
                continue;
            }
            if (r.payload().limit() < commonSize.computeIfAbsent(f.id(), id -> commonSize(f))) {
                tooShort++; // a corrupt page: the record cannot hold the pid and flags every line shows
                continue;
            }
            EventRecord rec = new EventRecord(f, layout, r.cpu(), time(r.timestamp()), r.payload());
            return new TraceDatEvent(s.bufferName, rec, r.timestamp(), seq, lost);
        }
    }

    /** Converts a raw time stamp as {@code trace-cmd report} does: TSC2NSEC, then OFFSET. */
    long time(long raw) {
        long t = raw;
        if (tsc != null && tsc[1] < 64) {
            long hi = Math.multiplyHigh(t, tsc[0]);
            long lo = t * tsc[0];
            int shift = (int) tsc[1];
            t = shift == 0 ? lo : (lo >>> shift) | (hi << (64 - shift));
            t += tsc[2];
        }
        return t + offsetNs;
    }

    private static int commonSize(EventFormat f) {
        int end = 0;
        for (Field x : f.commonFields()) {
            end = Math.max(end, x.offset() + x.size());
        }
        return end;
    }

    /** Records skipped because they are shorter than their format's common fields (so far). */
    public long shortRecords() {
        return tooShort;
    }

    /** Records skipped because the file has no format for their event id (so far). */
    public long unknownRecords() {
        return unknown;
    }

    /**
     * Lost events per CPU so far (summed over buffers): the counts the pages stored; pages that
     * say "lost" without a count add nothing here but count in {@link #pagesLostUncounted()}.
     */
    public Map<Integer, Long> lostEvents() {
        Map<Integer, Long> m = new TreeMap<>();
        for (CpuStream s : all) {
            m.merge(s.cpu, s.lostTotal, Long::sum);
        }
        return m;
    }

    /** Pages so far that said events were lost before them without storing the count, per CPU. */
    public Map<Integer, Long> pagesLostUncounted() {
        Map<Integer, Long> m = new TreeMap<>();
        for (CpuStream s : all) {
            m.merge(s.cpu, s.lostUnknownPages, Long::sum);
        }
        return m;
    }

    @Override
    public void close() {
        queue.clear();
    }

    /** One CPU's pages and records. */
    private final class CpuStream {
        final int bufferIndex;
        final String bufferName;
        final int cpu;
        final TraceDatBuffer.CpuData data;
        final SubBufferLayout sl;
        final int pageSize;
        RawRecord current;
        long pendingLost;
        long lostTotal;
        long lostUnknownPages;
        long sequence;
        // position in the file (uncompressed) or in the chunk list (compressed)
        long filePos;
        long end;
        long chunksLeft = -1;
        byte[] chunk;
        long chunkOffset;
        int chunkPos;
        long pageFileOffset;
        List<RawRecord> records = List.of();
        int index;

        CpuStream(int bufferIndex, String bufferName, TraceDatBuffer.CpuData data, SubBufferLayout sl) {
            this.bufferIndex = bufferIndex;
            this.bufferName = bufferName;
            this.cpu = data.cpu();
            this.data = data;
            this.sl = sl;
            this.pageSize = sl.subBufferSize();
            this.filePos = data.offset();
            // compressed: the stated size counts the chunks, not the u32 chunk count before them
            this.end = Math.min(file.fileSize(), data.offset() + data.size() + (data.compressed() ? 4 : 0));
        }

        /** Moves to the next record; false at the end. */
        boolean advance() {
            while (index >= records.size()) {
                ByteBuffer page = nextPage();
                if (page == null) {
                    current = null;
                    return false;
                }
                SubBuffer sb;
                try {
                    sb = SubBuffer.decode(page, sl, cpu);
                } catch (CorruptPageException e) {
                    throw new TraceDatException(pageFileOffset, "buffer '" + bufferName + "' " + e.getMessage());
                }
                if (sb.missedEvents()) {
                    if (sb.lostEvents() < 0) {
                        lostUnknownPages++;
                        pendingLost = -1;
                    } else {
                        lostTotal += sb.lostEvents();
                        if (pendingLost >= 0) {
                            pendingLost += sb.lostEvents();
                        }
                    }
                }
                records = sb.records();
                index = 0;
            }
            current = records.get(index++);
            return true;
        }

        private ByteBuffer nextPage() {
            if (!data.compressed()) {
                if (filePos >= end) {
                    return null;
                }
                int len = (int) Math.min(pageSize, end - filePos);
                ByteBuffer b = ByteBuffer.allocate(len);
                Cursor.readFully(file.channel(), filePos, b);
                pageFileOffset = filePos;
                filePos += len;
                return b;
            }
            while (chunk == null || chunkPos >= chunk.length) {
                if (!nextChunk()) {
                    return null;
                }
            }
            int len = Math.min(pageSize, chunk.length - chunkPos);
            ByteBuffer b = ByteBuffer.wrap(chunk, chunkPos, len).slice();
            pageFileOffset = chunkOffset;
            chunkPos += len;
            return b;
        }

        private boolean nextChunk() {
            Cursor c = Cursor.ofFile(file.channel(), end, file.byteOrder());
            if (chunksLeft < 0) {
                c.seek(filePos);
                chunksLeft = c.count32("cpu " + cpu + " chunk count", 8);
                filePos = c.position();
            }
            if (chunksLeft == 0) {
                chunk = null;
                return false;
            }
            chunksLeft--;
            c.seek(filePos);
            chunkOffset = filePos;
            long csize = c.size32("cpu " + cpu + " chunk");
            long usize = c.u32("cpu " + cpu + " chunk uncompressed size");
            if (csize > c.remaining()) {
                throw new TraceDatException(chunkOffset, "cpu " + cpu + " chunk of " + csize
                        + " bytes runs past its data");
            }
            byte[] src = c.bytes(csize, "cpu " + cpu + " chunk").array();
            filePos = c.position();
            chunk = file.decompressor().decompress(src, usize, chunkOffset);
            chunkPos = 0;
            return true;
        }
    }
}
