package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.tracewire.format.EventFormat;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.ringbuffer.TracePipeRaw;
import org.tracewire.tracefs.RingBufferStats;
import org.tracewire.tracefs.TracefsInstance;
import org.tracewire.wire.FrameEncoder;

/**
 * Reads every CPU's ring buffer of a capture instance and hands the records, merged into one
 * stream in time-stamp order, to the frame outputs and the record sinks.
 *
 * <p>Two threads per CPU. Its <em>drainer</em> waits with {@code poll()} (at most {@link #POLL_MS}
 * ms, since the kernel wakes pollers only at the {@code buffer_percent} watermark) and then reads
 * sub-buffers non-blocking until EAGAIN or a page comes back less than 3/4 full (a blocking
 * {@code read()} would wake on every event, see {@code ../shared/README.md}), into pages of a pool
 * of at most {@link #STASH_PER_CPU} bytes ({@link #STASH_TOTAL} over all CPUs), which it queues: the
 * kernel's buffer is emptied at the pace of a copy, even while the per-record code still runs
 * interpreted (the first second at full-speed rates lost hundreds of thousands of events before).
 * Its <em>processor</em> does the per-record work, in the order the pages were read: it walks each
 * page in place ({@link SubBuffer#scan}), numbers the records, converts their time, attaches lost
 * counts and encodes each event frame with its own {@link FrameEncoder} (the 16-byte header and a
 * copy of the record payload, {@code docs/wire-format.md} §3) into an {@link EventBatch}, so the
 * CPUs' records are copied in parallel and nothing is allocated per record. After a read that found
 * the buffer empty the drainer queues a mark with the trace-clock time before that read, minus
 * {@link #SLACK_NS}; the processor, reaching it, publishes its batch and then that watermark: no
 * later record of that CPU can be older.
 *
 * <p>One emitter thread merges: it emits the oldest head entry among the CPUs as long as it is
 * not newer than the watermark of every CPU that has nothing queued, so frames leave in the order
 * the events happened (a bounded reorder window). Emitting is handing the ready frame to the
 * {@link FrameSink} (which sends the context it needs first, numbers it and writes it to the
 * outputs), plus building an {@link EventRecord} for record sinks (the desktop app's stream) when
 * there are any. On {@link #stop()} the readers drain their buffers until EAGAIN and everything
 * queued is emitted.
 *
 * <p>Lost events are counted exactly, per CPU, against the kernel's own counters
 * ({@link RingBufferStats}, {@code per_cpu/cpuN/stats} of the instance). A page the kernel flags
 * with {@code RB_MISSED_EVENTS} ({@code ring_buffer_read_page}) carries its count only when there
 * was room after the data ({@code RB_MISSED_STORED}); otherwise — and whenever an earlier page left
 * the reader unsure where the kernel's {@code last_overrun} stands — the reader reads the CPU's
 * stats and attributes the kernel's lost events (overrun + commit overrun + dropped) not attributed
 * yet, capped by the page's stored count when it has one. The attributed count goes with the CPU's
 * next record (a LOST message before its frame). After the final drain the reader reads the stats once more and
 * attributes the remainder: events lost after the last page read, which no event frame can carry
 * (they go into a LOST message at the end of the stream, and a pcapng file's Interface Statistics
 * drops). So per CPU, at the end, records read +
 * lost = the events the kernel tried to record ({@link RingBufferStats#attempted()}), checked in
 * {@link CpuStats#agreesWithKernel()}.
 */
public final class CaptureEngine {
    /** Longest wait in poll(), ms. */
    public static final int POLL_MS = 50;
    /** Allowance for records committed just after a reader found the buffer empty, ns. */
    public static final long SLACK_NS = 20_000_000L;
    /** Longest idle wait of the emitter, ns (readers wake it when they have news). */
    static final long IDLE_WAIT_NS = 50_000_000L;
    /** Batches per CPU between its reader and the emitter. */
    static final int BATCHES_PER_CPU = 8;
    /** Entries per batch at most. */
    static final int BATCH_ENTRIES = 4096;
    /** Bytes per batch. */
    static final int BATCH_BYTES = 1 << 20;
    /** Most bytes of sub-buffers read and not yet processed, per CPU (and at most {@link #STASH_TOTAL} in all). */
    static final int STASH_PER_CPU = 64 << 20;
    /** Most bytes of sub-buffers read and not yet processed, all CPUs. */
    static final long STASH_TOTAL = 256L << 20;
    /** Batch bytes of an entry besides its record payload: headroom and the frame header. */
    static final int FRAME_EXTRA = FrameOutput.HEADROOM + org.tracewire.wire.WireHeader.SIZE;

    private final TracefsInstance instance;
    private final SubBufferLayout layout;
    private final EventFormat[] formatsById;
    private final ClockSync clock;
    private final FrameSink frames;
    private final List<EventSink> sinks;
    private final List<CpuReader> readers = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicLong emitted = new AtomicLong();
    /** Events emitted (emitter thread), published through {@link #emitted} with release stores. */
    private long emittedCount;
    private final EventSink[] sinkArray;
    private final AtomicLong unknownEvents = new AtomicLong();
    /** Times the final drain re-reads when the kernel still counts unread entries. */
    static final int FINAL_DRAIN_TRIES = 20;
    private long limit = Long.MAX_VALUE;
    private volatile Thread emitter;
    /** Pages a CPU's drainer may hold ahead of its processor. */
    private int stashPages;
    private volatile boolean stopping;

    /**
     * @param instance the capture instance (tracing may already be on)
     * @param layout   its sub-buffer layout
     * @param formats  formats by event id (records of other ids are counted, not emitted)
     * @param clock    trace clock to wall clock
     * @param frames   where encoded frames go, or null for none
     * @param sinks    record sinks, called in order for each event from the emitter thread
     */
    public CaptureEngine(TracefsInstance instance, SubBufferLayout layout, Map<Integer, EventFormat> formats,
                         ClockSync clock, FrameSink frames, List<EventSink> sinks) {
        this.instance = instance;
        this.layout = layout;
        int max = formats.keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
        this.formatsById = new EventFormat[Math.max(0, Math.min(max, 0xffff)) + 1];
        formats.forEach((id, f) -> {
            if (id >= 0 && id < formatsById.length) {
                formatsById[id] = f;
            }
        });
        this.clock = clock;
        this.frames = frames;
        this.sinks = List.copyOf(sinks);
        this.sinkArray = this.sinks.toArray(new EventSink[0]);
    }

    /**
     * Emits at most {@code maxEvents} events (the rest are read and counted, not emitted). Call
     * before {@link #start()}.
     */
    public void limit(long maxEvents) {
        this.limit = maxEvents;
    }

    /**
     * Opens every CPU's {@code trace_pipe_raw} and starts the threads.
     *
     * @throws IOException when a file cannot be opened
     */
    public void start() throws IOException {
        int cpus = Math.max(1, instance.cpus().size());
        stashPages = (int) Math.max(256, Math.min(STASH_PER_CPU, STASH_TOTAL / cpus) / layout.subBufferSize());
        for (int cpu : instance.cpus()) {
            // the baseline of the kernel's counters: tracing is off, the clock markers were consumed
            RingBufferStats base = RingBufferStats.read(instance, cpu);
            readers.add(new CpuReader(cpu, TracePipeRaw.open(instance.tracePipeRaw(cpu), cpu), base));
        }
        emitter = new Thread(this::emitLoop, "tracewire-emitter");
        for (CpuReader r : readers) {
            r.thread.start();
            r.drainer.start();
        }
        emitter.start();
    }

    /**
     * Stops reading after a final drain of every buffer, emits what remains, closes the files.
     * Call after tracing was stopped in the instance.
     *
     * @throws IOException when a reader or a sink failed during the capture
     */
    public void stop() throws IOException, InterruptedException {
        stopping = true;
        for (CpuReader r : readers) {
            r.drainer.join();
            r.thread.join();
        }
        if (emitter != null) {
            emitter.join();
        }
        for (CpuReader r : readers) {
            r.in.close();
        }
        Throwable t = failure.get();
        if (t instanceof IOException io) {
            throw io;
        }
        if (t != null) {
            throw new IOException("capture failed: " + t, t);
        }
    }

    /** The first error a thread hit, or null. */
    public Throwable failure() {
        return failure.get();
    }

    /** Events handed to the outputs so far. */
    public long emitted() {
        return emitted.get();
    }

    /** Records whose event id had no format (skipped, counted). */
    public long unknownEvents() {
        return unknownEvents.get();
    }

    /** Per-CPU counters so far. */
    public List<CpuStats> stats() {
        List<CpuStats> out = new ArrayList<>();
        for (CpuReader r : readers) {
            out.add(new CpuStats(r.cpu, r.records.get(), r.pages.get(), r.lost.get(), r.lostAfterLast,
                    r.statsReads.get(), r.kernel));
        }
        return out;
    }

    private void fail(Throwable t) {
        failure.compareAndSet(null, t);
        stopping = true;
    }

    private final class CpuReader implements Runnable, SubBuffer.RecordVisitor {
        final int cpu;
        final TracePipeRaw in;
        final Thread thread;
        /** Filled batches, oldest first, for the emitter. */
        final BlockingQueue<EventBatch> full = new ArrayBlockingQueue<>(BATCHES_PER_CPU);
        /** Emptied batches, back from the emitter. */
        final BlockingQueue<EventBatch> free = new ArrayBlockingQueue<>(BATCHES_PER_CPU);
        volatile long watermark = Long.MIN_VALUE;
        volatile boolean finished;
        final AtomicLong records = new AtomicLong();
        final AtomicLong pages = new AtomicLong();
        /** Lost events attributed so far (to frames, or after the last one). */
        final AtomicLong lost = new AtomicLong();
        /** The kernel's counters when the engine started. */
        final RingBufferStats base;
        /** The kernel's counters over the capture, set after the final drain. */
        volatile RingBufferStats kernel;
        /** Reads of the CPU's stats file (missed-events pages that needed them, and the final ones). */
        final AtomicLong statsReads = new AtomicLong();
        /** Lost events no emitted frame carried (after the last one, or on frames not emitted); set by the emitter at the end. */
        volatile long lostAfterLast;
        /** Lost counts of the frames emitted (emitter thread). */
        long lostInFrames;
        /**
         * True while {@link #lost} equals the kernel's {@code last_overrun} − base exactly, so a
         * stored count can be taken as it is; false once a page had no stored count.
         */
        boolean inSync;
        // reader-thread state
        final FrameEncoder encoder = new FrameEncoder();
        final boolean wallClock = clock.measured();
        final ByteOrder order = layout.kernel().byteOrder();
        ByteBuffer payload;
        EventBatch batch;
        long sequence;
        long pendingLost;
        int settleTries;
        long unknown;
        long pageRecords;

        // drainer-thread state: pages read from the kernel, waiting here to be processed
        final Thread drainer;
        final BlockingQueue<Object> pagesRead = new LinkedBlockingQueue<>();
        final BlockingQueue<Page> freePages = new LinkedBlockingQueue<>();
        int pagesAllocated;

        CpuReader(int cpu, TracePipeRaw in, RingBufferStats base) {
            this.cpu = cpu;
            this.in = in;
            this.base = base;
            // last_overrun <= overrun: with no overrun yet, the reader's cursor is at the base too
            this.inSync = base.overrun() == 0;
            this.thread = new Thread(this, "tracewire-cpu" + cpu);
            this.thread.setDaemon(true);
            this.drainer = new Thread(this::drain, "tracewire-read" + cpu);
            this.drainer.setDaemon(true);
            for (int i = 0; i < BATCHES_PER_CPU; i++) {
                free.add(new EventBatch(BATCH_ENTRIES, BATCH_BYTES));
            }
        }

        /**
         * The drainer: keeps the kernel's buffer of this CPU empty, whatever the processing costs
         * (at the start the JIT has not compiled the per-record code yet, and a page then takes ten
         * times longer): waits in {@code poll()}, reads sub-buffers non-blocking into pages of a pool
         * (at most {@link #stashPages} pages), queues them for {@link #run}, and after a read that found
         * the buffer empty queues a {@link Mark} with the time before that read. At stop, drains
         * until the kernel counts no unread entry, then queues the last mark.
         */
        private void drain() {
            int fullEnough = (layout.subBufferSize() - layout.dataOffset()) * 3 / 4;
            try {
                while (true) {
                    boolean last = stopping;
                    long now = clock.traceNow() - SLACK_NS;
                    boolean empty = false;
                    while (true) {
                        Page pg = freePage();
                        if (pg == null) {
                            return; // failed elsewhere
                        }
                        pg.buf.clear();
                        int n = in.readSubBuffer(pg.buf);
                        if (n == 0) {
                            freePages.add(pg);
                            empty = true;
                            break;
                        }
                        int data = SubBuffer.header(pg.buf, layout, cpu).dataLength();
                        pagesRead.add(pg);
                        if (!last && data < fullEnough) {
                            break;
                        }
                    }
                    if (empty) {
                        pagesRead.add(new Mark(now, false));
                    }
                    if (last) {
                        if (empty && drained()) {
                            pagesRead.add(new Mark(now, true));
                            return;
                        }
                        continue;
                    }
                    if (empty) {
                        in.awaitData(POLL_MS);
                    }
                }
            } catch (Throwable t) {
                fail(t);
                pagesRead.add(new Mark(Long.MIN_VALUE, true));
            }
        }

        /** A page of the pool: a free one, a new one while under the cap, else waits for one. */
        private Page freePage() throws InterruptedException {
            Page pg = freePages.poll();
            if (pg != null) {
                return pg;
            }
            if (pagesAllocated < stashPages) {
                pagesAllocated++;
                return new Page(layout.subBufferSize(), order);
            }
            while (failure.get() == null) {
                pg = freePages.poll(100, TimeUnit.MILLISECONDS);
                if (pg != null) {
                    return pg;
                }
            }
            return null;
        }

        /**
         * After a drain found the buffer empty with tracing off: true when the kernel counts no
         * unread entry (a writer may commit just after tracing_on=0), or after
         * {@link #FINAL_DRAIN_TRIES} tries.
         */
        private boolean drained() {
            RingBufferStats now = RingBufferStats.read(instance, cpu);
            statsReads.incrementAndGet();
            return now.entries() == 0 || ++settleTries >= FINAL_DRAIN_TRIES;
        }

        /** The processor: pages in the order read, into batches; marks move the watermark. */
        @Override
        public void run() {
            try {
                batch = free.take();
                while (true) {
                    Object o = pagesRead.poll(100, TimeUnit.MILLISECONDS);
                    if (o == null) {
                        if (failure.get() != null) {
                            return;
                        }
                        continue;
                    }
                    if (o instanceof Page pg) {
                        payload = pg.view;
                        take(pg.buf);
                        freePages.add(pg);
                        continue;
                    }
                    Mark m = (Mark) o;
                    publish();
                    if (m.last) {
                        if (failure.get() == null) {
                            settle();
                        }
                        return;
                    }
                    watermark = Math.max(watermark, m.time);
                    LockSupport.unpark(emitter);
                }
            } catch (Throwable t) {
                fail(t);
            } finally {
                finished = true;
                LockSupport.unpark(emitter);
            }
        }

        /** Decodes and encodes one page into the batch; returns its data length. */
        private int take(ByteBuffer page) throws InterruptedException {
            SubBuffer.PageHeader header = SubBuffer.header(page, layout, cpu);
            pages.incrementAndGet();
            if (header.lostEvents() != 0) {
                pendingLost += attribute(header.lostEvents());
            }
            pageRecords = 0;
            try {
                SubBuffer.scan(page, layout, header, cpu, this);
            } catch (Interrupted e) {
                throw e.cause;
            } finally {
                records.addAndGet(pageRecords);
                if (unknown > 0) {
                    unknownEvents.addAndGet(unknown);
                    unknown = 0;
                }
            }
            return header.dataLength();
        }

        @Override
        public void record(long timestamp, ByteBuffer page, int offset, int length, int pageOffset) {
            pageRecords++;
            int id = page.getShort(offset) & 0xffff;
            EventFormat f = id < formatsById.length ? formatsById[id] : null;
            if (f == null) {
                unknown++;
                return;
            }
            int need = FRAME_EXTRA + length;
            if (!batch.fits(need)) {
                try {
                    publish();
                } catch (InterruptedException e) {
                    throw new Interrupted(e);
                }
            }
            long lost = pendingLost;
            pendingLost = 0;
            long time = wallClock ? clock.toWallNs(timestamp) : timestamp;
            EventBatch b = batch;
            int i = b.count++;
            ByteBuffer out = b.bytes;
            b.traceTs[i] = timestamp;
            b.timeNs[i] = time;
            b.sequence[i] = sequence;
            b.lost[i] = lost;
            b.eventId[i] = id;
            payload.limit(offset + length).position(offset);
            int start = out.position() + FrameOutput.HEADROOM;
            out.position(start);
            b.frameOffset[i] = start;
            b.frameLength[i] = encoder.event(order, payload, cpu, time, !wallClock, out);
            sequence++;
        }

        /**
         * The lost events to attribute for a page flagged with missed events.
         *
         * @param stored the page's stored count ({@code > 0}), or -1 when the kernel had no room for it
         * @return events to add to the next frame's lost field (may be 0 when earlier pages took them)
         */
        private long attribute(long stored) {
            if (stored > 0 && inSync) {
                lost.addAndGet(stored);
                return stored;
            }
            RingBufferStats now = RingBufferStats.read(instance, cpu);
            statsReads.incrementAndGet();
            // the kernel's overrun has moved on since the page was swapped in: what we take beyond the
            // page's own loss is loss of a later page, which then finds it already attributed
            long open = now.lost() - base.lost() - lost.get();
            long n = Math.max(0, stored > 0 ? Math.min(stored, open) : open);
            inSync = false;
            lost.addAndGet(n);
            return n;
        }

        /**
         * After the last page: reads the kernel's counters once more, attributes the lost events not
         * attributed yet (lost after the last page read) and records the kernel's counts.
         */
        private void settle() {
            RingBufferStats now = RingBufferStats.read(instance, cpu);
            statsReads.incrementAndGet();
            RingBufferStats delta = now.minus(base);
            long open = delta.lost() - lost.get();
            if (open > 0) {
                lost.addAndGet(open);
            }
            kernel = delta;
        }

        /** Hands the current batch to the emitter when it holds anything. */
        private void publish() throws InterruptedException {
            if (batch == null || batch.count == 0) {
                return;
            }
            EventBatch b = batch;
            batch = null;
            while (!full.offer(b, 100, TimeUnit.MILLISECONDS)) {
                if (failure.get() != null) {
                    throw new InterruptedException("capture failed");
                }
            }
            LockSupport.unpark(emitter);
            batch = nextFree();
        }

        private EventBatch nextFree() throws InterruptedException {
            while (true) {
                EventBatch b = free.poll(100, TimeUnit.MILLISECONDS);
                if (b != null) {
                    b.clear();
                    return b;
                }
                if (failure.get() != null) {
                    throw new InterruptedException("capture failed");
                }
            }
        }
    }

    /** A sub-buffer of the stash between a CPU's drainer and processor, with its view for the encoder. */
    private static final class Page {
        final ByteBuffer buf;
        final ByteBuffer view;

        Page(int size, ByteOrder order) {
            buf = ByteBuffer.allocateDirect(size).order(order);
            view = buf.duplicate().order(order);
        }
    }

    /**
     * In a CPU's page queue after a read that found its buffer empty: no later record of that CPU is
     * older than {@code time}; {@code last} after the final drain (or a failure).
     */
    private record Mark(long time, boolean last) {
    }

    /** Carries an InterruptedException out of a {@link SubBuffer.RecordVisitor}. */
    private static final class Interrupted extends RuntimeException {
        final InterruptedException cause;

        Interrupted(InterruptedException cause) {
            super(cause);
            this.cause = cause;
        }
    }

    private void emitLoop() {
        int n = readers.size();
        EventBatch[] heads = new EventBatch[n];
        KernelLayout kernel = layout.kernel();
        try {
            while (true) {
                boolean allFinished = true;
                long bound = Long.MAX_VALUE;
                int best = -1;
                long bestTs = Long.MAX_VALUE;
                for (int i = 0; i < n; i++) {
                    CpuReader r = readers.get(i);
                    EventBatch h = heads[i];
                    if (h != null && h.exhausted()) {
                        r.free.add(h);
                        h = heads[i] = null;
                    }
                    if (h == null) {
                        // the watermark before the queue: a reader publishes its batch first
                        boolean finishedBefore = r.finished;
                        long mark = r.watermark;
                        h = heads[i] = r.full.poll();
                        if (h == null) {
                            if (!finishedBefore) {
                                allFinished = false;
                                bound = Math.min(bound, mark);
                            }
                            continue;
                        }
                    }
                    allFinished = false;
                    long ts = h.traceTs[h.next];
                    if (ts < bestTs) {
                        bestTs = ts;
                        best = i;
                    }
                }
                if (best >= 0 && bestTs <= bound) {
                    // emit a run of the best CPU's events: up to the next head of another CPU (or the bound)
                    long until = bound;
                    for (int i = 0; i < n; i++) {
                        EventBatch o = heads[i];
                        if (i != best && o != null && !o.exhausted()) {
                            until = Math.min(until, o.traceTs[o.next]);
                        }
                    }
                    EventBatch h = heads[best];
                    CpuReader r = readers.get(best);
                    do {
                        emit(h, h.next++, r, kernel);
                    } while (h.next < h.count && h.traceTs[h.next] <= until);
                    continue;
                }
                if (allFinished) {
                    break;
                }
                if (failure.get() != null) {
                    return;
                }
                if (frames != null) {
                    frames.idle(); // a live pcapng (FIFO) pushes out what it holds
                }
                // until a reader publishes a batch or moves its watermark (it unparks us)
                LockSupport.parkNanos(this, IDLE_WAIT_NS);
            }
            for (CpuReader r : readers) {
                long after = r.lost.get() - r.lostInFrames;
                r.lostAfterLast = after;
                if (frames != null && after > 0) {
                    frames.lostAtEnd(r.cpu, after);
                }
            }
            if (frames != null) {
                frames.finish();
                frames.flush();
            }
        } catch (Throwable t) {
            fail(t);
        }
    }

    private void emit(EventBatch b, int i, CpuReader reader, KernelLayout kernel) throws IOException {
        if (emittedCount >= limit) {
            return;
        }
        int cpu = reader.cpu;
        reader.lostInFrames += b.lost[i];
        EventFormat format = formatsById[b.eventId[i]];
        int frame = b.frameOffset[i];
        int length = b.frameLength[i];
        if (frames != null) {
            frames.event(b.bytes, frame, length, format, cpu, b.timeNs[i], b.lost[i]);
        }
        CapturedEvent e = null;
        for (EventSink s : sinkArray) {
            if (!s.wants()) {
                continue; // the sink has no room: no copy, no record (it counts what it did not take)
            }
            if (e == null) {
                byte[] copy = new byte[length - org.tracewire.wire.WireHeader.SIZE];
                b.bytes.clear().get(frame + org.tracewire.wire.WireHeader.SIZE, copy);
                EventRecord rec = new EventRecord(format, kernel, cpu, b.traceTs[i], ByteBuffer.wrap(copy));
                e = new CapturedEvent(rec, b.timeNs[i], b.sequence[i], b.lost[i]);
            }
            s.accept(e);
        }
        emitted.lazySet(++emittedCount);
    }
}
