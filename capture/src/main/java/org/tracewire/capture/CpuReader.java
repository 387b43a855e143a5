package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.tracewire.format.EventFormat;
import org.tracewire.posix.CpuAffinity;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.ringbuffer.TracePipeRaw;

/**
 * One CPU of a capture: its <em>drainer</em> thread, which keeps the kernel's buffer empty at the
 * pace of a copy, the queue of pages it read, and the emitter's cursor over the page being emitted.
 *
 * <p>The drainer waits in {@code poll()} (at most {@link CaptureEngine#POLL_MS} ms), reads
 * sub-buffers non-blocking into pages of its {@link PagePool} until EAGAIN or until it has caught up
 * with the writer, and queues them with a {@link Page.Mark} (no later record of the CPU is older). It
 * runs on its own CPU when it may, where the sub-buffers it copies are in the cache; the emitter gives
 * one silent for {@link CaptureEngine#RESCUE_NS} every CPU back ({@link #rescueIfStarved}).
 */
final class CpuReader {
    private final CaptureEngine engine;
    private final SubBufferLayout layout;
    final int cpu;
    final TracePipeRaw in;
    final PagePool pool;
    final LossAccount loss;
    final AtomicLong records = new AtomicLong();
    final AtomicLong pages = new AtomicLong();
    /** Lost events no emitted frame carried (after the last one, or on frames not emitted); set at the end. */
    volatile long lostAfterLast;
    /** The drainer's Linux thread id once it runs (0 before). */
    private volatile int tid;
    /** True while the drainer runs, pinned to {@link #cpu}. */
    volatile boolean pinned;
    /** True once the emitter unpinned a starved drainer ({@link #rescueIfStarved}). */
    volatile boolean rescued;
    /** {@link System#nanoTime()} of the drainer's last sign of life (a page read, a wake-up). */
    private volatile long heartbeat;

    // drainer-thread state: pages read from the kernel, waiting for the emitter
    final Thread drainer;
    /** {@link Page}s and {@link Page.Mark}s, in the order read. */
    final BlockingQueue<Object> pagesRead = new LinkedBlockingQueue<>();

    // emitter-thread state: the page being emitted and the cursor on its next record
    private final EventFormat[] formatsById;
    /** The page being emitted, or null. */
    Page page;
    /** On {@link #page}'s record to emit next, while {@link #hasHead}. */
    final SubBuffer.Cursor cursor;
    /** True when the cursor is on a record to emit: {@link #head} and {@link #headFormat} are its. */
    boolean hasHead;
    /** The trace-clock time stamp of the record to emit next. */
    long head;
    /** The format of the record to emit next. */
    EventFormat headFormat;
    /** Records read only to name tasks (the naming-only ids); emitter thread. */
    volatile long named;
    /** Records of {@link #page} walked so far (known ids or not), counted into {@link #records} at its end. */
    private long pageRecords;
    /** Records of the page walked whose event id has no format (counted, not emitted). */
    private long unknown;
    /** Records not framed because of {@link CaptureEngine#abort()}: lost to the file (a LOST count at its end). */
    long notFramed;
    /** Lost events to put before this CPU's next emitted record. */
    long pendingLost;
    /** Lost counts of the frames emitted. */
    long lostInFrames;
    /** Per-CPU number of the next record with a format (the record sinks' sequence). */
    long sequence;
    /**
     * Replay ({@link CaptureEngine#replay}): records up to {@link #resumeTime} (frame time) are
     * skipped, and {@link #resumeEqual} of those at that very time: the file holds them already.
     */
    private boolean resuming;
    private long resumeTime;
    private long resumeEqual;
    /** Highest mark time seen: no record of this CPU still to come is older. */
    long watermark = Long.MIN_VALUE;
    /** The last mark was seen: nothing more will come. */
    boolean finished;

    /**
     * @param engine the engine (its shared state: stopping, pacing, the emitter thread, failure)
     * @param cpu    the CPU
     * @param in     its {@code trace_pipe_raw}, or null for pages queued by the caller
     * @param loss   its loss account
     * @param pool   its pages
     */
    CpuReader(CaptureEngine engine, int cpu, TracePipeRaw in, LossAccount loss, PagePool pool) {
        this.engine = engine;
        this.layout = engine.layout;
        this.formatsById = engine.formatsById;
        this.cpu = cpu;
        this.in = in;
        this.loss = loss;
        this.pool = pool;
        this.drainer = new Thread(this::drain, "tracewire-read" + cpu);
        this.drainer.setDaemon(true);
        this.cursor = new SubBuffer.Cursor(layout, cpu);
    }

    /** Before the emitter runs (replay): skips the records up to frame time {@code time}, and {@code equal} at it. */
    void resumeAfter(long time, long equal) {
        resuming = true;
        resumeTime = time;
        resumeEqual = equal;
    }

    /**
     * The drainer: at most {@link PagePool}'s capacity of pages read ahead of the emitter, whatever
     * the per-record work costs (at the start the JIT has not compiled it yet). After a read that
     * found the buffer empty it queues a mark with the time before that read. At stop, drains until
     * the kernel counts no unread entry, settles the counts and queues the last mark.
     */
    private void drain() {
        heartbeat = System.nanoTime();
        int fullEnough = (layout.subBufferSize() - layout.dataOffset()) * 3 / 4;
        try {
            pin();
            while (true) {
                boolean last = engine.stopping;
                long now = engine.clock.traceNow() - CaptureEngine.SLACK_NS;
                int read = readBatch(last, now, fullEnough);
                if (read == BATCH_FAILED) {
                    return; // failed elsewhere
                }
                boolean empty = read == BATCH_EMPTY;
                if (!pacing()) {
                    // a pacing emitter reads the mark when it wakes on its own
                    LockSupport.unpark(engine.emitter);
                }
                if (last) {
                    if (empty && loss.drained()) {
                        if (engine.failure() == null) {
                            loss.settle();
                        }
                        queueLastMark(now);
                        return;
                    }
                    continue;
                }
                // also after catching up: a capture of its own read() calls (--trace-self) would
                // otherwise read one sub-buffer per event of its own, as fast as it can
                in.awaitData(CaptureEngine.POLL_MS);
            }
        } catch (Throwable t) {
            engine.fail(t);
            queueLastMark(Long.MIN_VALUE);
        } finally {
            pinned = false; // a drainer that ended needs no rescue (and its thread id is gone)
        }
    }

    private static final int BATCH_EMPTY = 0;
    private static final int BATCH_CAUGHT_UP = 1;
    private static final int BATCH_FAILED = 2;

    /**
     * Drainer: reads sub-buffers until the buffer is empty or (while tracing) the reader caught up
     * with the writer: a sub-buffer less than 3/4 full whose first record is not older than
     * {@code now} (the CPU's records come in time order, so none older is left unread). Queues a mark
     * at {@code now} then.
     *
     * @return {@link #BATCH_EMPTY}, {@link #BATCH_CAUGHT_UP} or {@link #BATCH_FAILED}
     */
    private int readBatch(boolean last, long now, int fullEnough) throws IOException, InterruptedException {
        while (true) {
            heartbeat = System.nanoTime();
            Page pg = freePage();
            if (pg == null) {
                return BATCH_FAILED;
            }
            pg.buf.clear();
            int n = in.readSubBuffer(pg.buf);
            if (n == 0) {
                pool.unused(pg);
                pagesRead.add(new Page.Mark(now, false));
                return BATCH_EMPTY;
            }
            SubBuffer.PageHeader header = SubBuffer.header(pg.buf, layout, cpu);
            pg.header = header;
            pg.lost = header.lostEvents() != 0 ? loss.attribute(header.lostEvents()) : 0;
            pages.incrementAndGet();
            pagesRead.add(pg);
            if (!pacing() || pagesRead.size() >= engine.nearlyFull) {
                // a pacing emitter wakes on its own: a wake-up per page would cost more than it saves
                LockSupport.unpark(engine.emitter);
            }
            if (!last && header.dataLength() < fullEnough && header.timestamp() >= now) {
                pagesRead.add(new Page.Mark(now, false));
                return BATCH_CAUGHT_UP;
            }
            // else the next read, with the same `now`: more, the rest, or EAGAIN
        }
    }

    private boolean pacing() {
        return engine.pacing;
    }

    private void queueLastMark(long time) {
        pagesRead.add(new Page.Mark(time, true));
        LockSupport.unpark(engine.emitter);
    }

    /** Drainer: a page of the pool, waiting for the emitter to give one back; null once the capture failed. */
    private Page freePage() throws InterruptedException {
        Page pg = pool.take();
        while (pg == null && engine.failure() == null) {
            heartbeat = System.nanoTime(); // waiting for the emitter is not being starved
            pg = pool.await(100);
        }
        return pg;
    }

    /**
     * Drainer: runs on this CPU from now on when the process may run there; stays unpinned when it
     * may not, or the kernel refuses.
     */
    private void pin() {
        BitSet allowed = engine.allowedCpus;
        if (allowed == null || !allowed.get(cpu)) {
            return;
        }
        BitSet own = new BitSet();
        own.set(cpu);
        try {
            tid = CpuAffinity.currentThreadId(); // first: only a drainer the emitter can unpin is pinned
            CpuAffinity.set(0, own);
            pinned = true;
        } catch (RuntimeException | LinkageError e) {
            // no /proc, CPU gone offline or outside our cpuset since start(), no such libc call:
            // the scheduler places us, as without pinning
        }
    }

    /**
     * Emitter: gives a pinned drainer that showed no sign of life for {@link CaptureEngine#RESCUE_NS}
     * every CPU it was allowed, so it can run elsewhere than its monopolised CPU (a monopolised CPU
     * can then lose events, counted, but never stall the capture).
     *
     * @param now {@link System#nanoTime()}
     */
    void rescueIfStarved(long now) {
        if (pinned && now - heartbeat > CaptureEngine.RESCUE_NS) {
            pinned = false;
            try {
                CpuAffinity.set(tid, engine.allowedCpus);
                rescued = true;
            } catch (RuntimeException e) {
                // the drainer ended meanwhile (ESRCH): nothing to rescue
            }
        }
    }

    /**
     * Emitter: when the current page is done, takes what the drainer queued until a page with
     * records to emit: pages are walked to their first record with a format, marks move the
     * watermark, the last mark finishes. Returns the emptied page to the pool.
     */
    void advance() {
        while (!hasHead && !finished) {
            Object o = pagesRead.poll();
            if (o == null) {
                return;
            }
            if (o instanceof Page pg) {
                release();
                begin(pg);
                continue;
            }
            Page.Mark m = (Page.Mark) o;
            if (m.last()) {
                finished = true;
                release();
                return;
            }
            watermark = Math.max(watermark, m.time());
        }
    }

    /** Emitter: gives the current page back to the pool (with a spool: once its frames are durable). */
    void release() {
        if (page != null) {
            if (pool.spooling()) {
                // the slot keeps the records until their frames are on the file (a kill before
                // that leaves them for recover)
                pool.holdUntilDurable(page, engine.frames.eventsHanded());
                page = null;
                reclaim();
                return;
            }
            pool.free(page, !engine.stopping);
            page = null;
        }
    }

    /** Emitter: the pages whose frames are all in the file's whole blocks go back to the pool. */
    void reclaim() {
        if (pool.holdsNotDurable()) {
            pool.reclaim(engine.frames.eventsDurable(), !engine.stopping);
        }
    }

    /** Emitter: starts on a page; its lost events go before the CPU's next record. */
    private void begin(Page pg) {
        page = pg;
        pendingLost += pg.lost;
        cursor.reset(pg.buf, pg.header);
        step();
    }

    /**
     * Emitter: moves the cursor to the page's next record with a format (records of unknown ids
     * are counted, not emitted); at the page's end, counts its records and has no head.
     *
     * @throws org.tracewire.ringbuffer.CorruptPageException from the walk, as
     *         {@link SubBuffer#scan} (the records before it have been emitted)
     */
    void step() {
        SubBuffer.Cursor c = cursor;
        ByteBuffer buf = page.buf;
        try {
            while (c.next()) {
                pageRecords++;
                int id = buf.getShort(c.offset()) & 0xffff;
                EventFormat f = id < formatsById.length ? formatsById[id] : null;
                if (f != null && resuming && skipResumed(c.timestamp())) {
                    continue;
                }
                if (f != null) {
                    head = c.timestamp();
                    headFormat = f;
                    hasHead = true;
                    return;
                }
                unknown++;
            }
        } catch (RuntimeException e) {
            pageDone();
            throw e;
        }
        pageDone();
    }

    /** Replay: true when the record at {@code ts} is one the file holds already (and is skipped). */
    private boolean skipResumed(long ts) {
        long t = engine.wallClock ? engine.clock.toWallNs(ts) : ts;
        if (t < resumeTime || (t == resumeTime && resumeEqual > 0)) {
            if (t == resumeTime) {
                resumeEqual--;
            }
            return true;
        }
        resuming = false;
        return false;
    }

    /** Emitter: the page walked to its end: its records counted, no head until the next page. */
    private void pageDone() {
        hasHead = false;
        records.addAndGet(pageRecords);
        pageRecords = 0;
        if (unknown > 0) {
            engine.unknownEvents.addAndGet(unknown);
            unknown = 0;
        }
    }
}
