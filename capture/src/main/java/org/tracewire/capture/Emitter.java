package org.tracewire.capture;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;
import org.tracewire.format.EventFormat;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.ringbuffer.SubBuffer;

/**
 * The emitter: all per-record work of a capture, on the CPUs' pages in place. It merges the CPUs'
 * records by time stamp within their watermarks (a bounded reorder window) and hands each to the
 * {@link FrameSink} (context first, then the frame) and, when there are record sinks, as an
 * {@link EventRecord}: one copy of a record's bytes, no allocation per record. While a deferring
 * capture traces, it keeps to its allowance ({@link ReadAhead.Pacer}, docs/decisions/0010-pacer.md).
 * One thread runs {@link #run()}; the drainers wake it when they queue news.
 */
final class Emitter {
    private final CaptureEngine engine;
    private final CpuReader[] rs;
    private final KernelLayout kernel;
    private final FrameSink frames;
    private final EventSink[] sinks;
    private final boolean[] namingOnly;
    private final boolean wallClock;
    private final ClockSync clock;
    private final long limit;
    private final boolean spooling;
    /** Events emitted, published through {@link CaptureEngine#emitted} per page or run and at the end. */
    private long emittedCount;
    /** Records with a format not emitted because of {@link CaptureEngine#abort()}. */
    private long notFramedCount;
    /** Keeps a deferring emitter to its allowance while tracing, or null. */
    private final ReadAhead.Pacer pacer;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    /** Queued pages of a CPU at which a deferring emitter works at full speed. */
    private final int nearlyFull;
    /** {@link System#nanoTime()} of the last look at the allowance. */
    private long paced;

    Emitter(CaptureEngine engine) {
        this.engine = engine;
        this.rs = engine.readers.toArray(new CpuReader[0]);
        this.kernel = engine.layout.kernel();
        this.frames = engine.frames;
        this.sinks = engine.sinkArray;
        this.namingOnly = engine.namingOnly;
        this.wallClock = engine.wallClock;
        this.clock = engine.clock;
        this.limit = engine.limit;
        this.spooling = engine.spooling;
        this.nearlyFull = engine.nearlyFull;
        // deferring (ReadAhead): within the allowance while tracing, until a CPU's pages reach 3/4 of its share
        this.pacer = engine.deferring ? new ReadAhead.Pacer(ReadAhead.EMITTER_CORES, System.nanoTime(),
                threads.getCurrentThreadCpuTime(), CaptureEngine.IDLE_WAIT_NS) : null;
    }

    /** Emits until every CPU's last mark, then finishes the outputs; a failure goes to the engine. */
    void run() {
        int n = rs.length;
        try {
            while (true) {
                if (pacer != null && !engine.stopping && pace()) {
                    continue;
                }
                engine.emitted.lazySet(emittedCount); // published per page or run, not per record
                boolean allFinished = true;
                long bound = Long.MAX_VALUE; // the lowest watermark of the CPUs without a record in hand
                int best = -1;
                long bestTs = Long.MAX_VALUE;
                for (int i = 0; i < n; i++) {
                    CpuReader r = rs[i];
                    if (!r.hasHead) {
                        r.advance();
                        if (!r.hasHead) {
                            if (!r.finished) {
                                allFinished = false;
                                bound = Math.min(bound, r.watermark);
                            }
                            continue;
                        }
                    }
                    allFinished = false;
                    if (r.head < bestTs) {
                        bestTs = r.head;
                        best = i;
                    }
                }
                if (best >= 0 && bound == Long.MAX_VALUE) {
                    // every CPU still to be heard from has a record in hand: the steady state at high rates
                    mergeHeads();
                } else if (best >= 0 && bestTs <= bound) {
                    emitRun(best, bound);
                } else if (allFinished) {
                    break;
                } else if (engine.failure() != null) {
                    return;
                } else {
                    idle();
                }
            }
            finish();
        } catch (Throwable t) {
            engine.fail(t);
        }
    }

    /**
     * While tracing, parks when the emitter is over its allowance (looked at every
     * {@link CaptureEngine#PACE_CHECK_NS}) unless a CPU's queue is nearly full; then works for at
     * least that long, so wake-ups do not use up the allowance.
     *
     * @return true when it parked
     */
    private boolean pace() {
        long now = System.nanoTime();
        if (now - paced < CaptureEngine.PACE_CHECK_NS) {
            return false;
        }
        paced = now;
        long park = anyNearlyFull() ? 0 : pacer.parkNanos(now, threads.getCurrentThreadCpuTime());
        if (park <= 0) {
            return false;
        }
        for (CpuReader r : rs) {
            r.rescueIfStarved(now);
        }
        engine.pacing = true;
        do {
            LockSupport.parkNanos(engine, park);
            if (engine.stopping || engine.failure() != null || anyNearlyFull()) {
                break; // woken to stop, by a drainer that failed, or to make room
            }
            // woken early (a permit a drainer left while we worked): park again for the rest, unless
            // less than PACE_CHECK_NS is left, the wake-up's own cost
            park = pacer.parkNanos(System.nanoTime(), threads.getCurrentThreadCpuTime());
        } while (park >= CaptureEngine.PACE_CHECK_NS);
        engine.pacing = false;
        paced = System.nanoTime();
        for (CpuReader r : rs) {
            r.reclaim();
        }
        return true;
    }

    /** True when a CPU's queue holds at least {@link #nearlyFull} pages (and marks). */
    private boolean anyNearlyFull() {
        for (CpuReader r : rs) {
            if (r.pagesRead.size() >= nearlyFull) {
                return true;
            }
        }
        return false;
    }

    /**
     * Emits the oldest head record among the CPUs, again and again, as long as every CPU that has not
     * finished has a record in hand (no watermark then bounds the order); returns when one runs
     * out. At high rates the CPUs' records interleave one by one, so this is the per-record merge:
     * a compare per CPU, without the general loop's watermark bookkeeping.
     */
    private void mergeHeads() throws IOException {
        int n = rs.length;
        while (true) {
            CpuReader best = null;
            long bestTs = Long.MAX_VALUE;
            for (int i = 0; i < n; i++) {
                CpuReader r = rs[i];
                if (r.hasHead) {
                    long ts = r.head;
                    if (best == null || ts < bestTs) {
                        bestTs = ts;
                        best = r;
                    }
                } else if (!r.finished) {
                    return; // its next page decides: back to the general loop
                }
            }
            if (best == null) {
                return;
            }
            emit(best);
            best.step();
        }
    }

    /** Emits a run of CPU {@code best}'s records: up to the next head of another CPU, or {@code bound}. */
    private void emitRun(int best, long bound) throws IOException {
        long until = bound;
        for (int i = 0; i < rs.length; i++) {
            CpuReader o = rs[i];
            if (i != best && o.hasHead) {
                until = Math.min(until, o.head);
            }
        }
        CpuReader r = rs[best];
        do {
            emit(r);
            r.step();
        } while (r.hasHead && r.head <= until);
    }

    /**
     * Nothing to emit until a drainer queues a page or a mark (it unparks us): pushes out what a
     * live output holds, reclaims spooled pages whose frames are durable, rescues starved drainers.
     */
    private void idle() throws IOException {
        if (frames != null) {
            frames.idle(); // a live pcapng (FIFO) pushes out what it holds
            if (spooling && anyNotDurable()) {
                frames.flush(); // the frames to the file, so their pages' slots can be reused
                for (CpuReader r : rs) {
                    r.reclaim();
                }
            }
        }
        long now = System.nanoTime();
        for (CpuReader r : rs) {
            r.rescueIfStarved(now);
        }
        LockSupport.parkNanos(engine, CaptureEngine.IDLE_WAIT_NS);
    }

    /** True when a CPU has pages whose frames may not be in the file yet. */
    private boolean anyNotDurable() {
        for (CpuReader r : rs) {
            if (r.pool.holdsNotDurable()) {
                return true;
            }
        }
        return false;
    }

    /** After every CPU's last mark: publishes the counts, the losses after the last frames, finishes the outputs. */
    private void finish() throws IOException {
        engine.emitted.lazySet(emittedCount);
        engine.notFramed = notFramedCount;
        for (CpuReader r : rs) {
            long after = r.loss.lost.get() - r.lostInFrames;
            r.lostAfterLast = after;
            // records read but not framed (a second signal) are lost to the file as well
            if (frames != null && after + r.notFramed > 0) {
                frames.lostAtEnd(r.cpu, after + r.notFramed);
            }
        }
        if (frames != null) {
            frames.finish();
            frames.flush();
        }
    }

    /** Emits the head record of {@code r} (the cursor stays on it). */
    private void emit(CpuReader r) throws IOException {
        if (namingOnly[r.headFormat.id() & 0xffff]) {
            r.named++;
            if (frames != null && !engine.aborted) {
                frames.naming(r.page.buf, r.cursor.offset(), r.cursor.length(), r.headFormat,
                        wallClock ? clock.toWallNs(r.head) : r.head);
            }
            return;
        }
        long sequence = r.sequence++;
        if (emittedCount >= limit) {
            return;
        }
        if (engine.aborted) {
            notFramedCount++;
            r.notFramed++;
            return;
        }
        int cpu = r.cpu;
        ByteBuffer page = r.page.buf;
        SubBuffer.Cursor c = r.cursor;
        int offset = c.offset();
        int length = c.length();
        EventFormat format = r.headFormat;
        long lost = r.pendingLost;
        r.pendingLost = 0;
        r.lostInFrames += lost;
        long traceTs = r.head;
        long time = wallClock ? clock.toWallNs(traceTs) : traceTs;
        if (frames != null) {
            frames.event(page, offset, length, format, cpu, time, !wallClock, lost);
        }
        CapturedEvent e = null;
        for (EventSink s : sinks) {
            if (!s.wants()) {
                continue; // the sink has no room: no copy, no record (it counts what it did not take)
            }
            if (e == null) {
                byte[] copy = new byte[length];
                page.get(offset, copy);
                EventRecord rec = new EventRecord(format, kernel, cpu, traceTs, ByteBuffer.wrap(copy));
                e = new CapturedEvent(rec, time, sequence, lost);
            }
            s.accept(e);
        }
        emittedCount++;
    }
}
