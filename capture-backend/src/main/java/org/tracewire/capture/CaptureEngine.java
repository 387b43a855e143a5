package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.tracewire.format.EventFormat;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.ringbuffer.RawRecord;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.ringbuffer.TracePipeRaw;
import org.tracewire.tracefs.TracefsInstance;

/**
 * Reads every CPU's ring buffer of a capture instance and hands the records, merged into one
 * stream in time-stamp order, to the sinks.
 *
 * <p>One reader thread per CPU waits with {@code poll()} (at most {@link #POLL_MS} ms, since the
 * kernel wakes pollers only at the {@code buffer_percent} watermark) and then reads sub-buffers
 * non-blocking until EAGAIN or a page comes back less than 3/4 full. A blocking {@code read()}
 * would wake on every event (see {@code ../shared/README.md}). Each reader publishes a watermark:
 * the trace-clock time before its last read that found the buffer empty, minus
 * {@link #SLACK_NS}; no later record of that CPU can be older.
 *
 * <p>One emitter thread merges: it emits the oldest head record among the CPUs as long as it is
 * not newer than the watermark of every CPU that has nothing queued. This bounded reorder window
 * makes frames leave in the order the events happened. On {@link #stop()} the readers drain their
 * buffers until EAGAIN and everything queued is emitted.
 */
public final class CaptureEngine {
    /** Longest wait in poll(), ms. */
    public static final int POLL_MS = 50;
    /** Allowance for records committed just after a reader found the buffer empty, ns. */
    public static final long SLACK_NS = 20_000_000L;

    private final TracefsInstance instance;
    private final SubBufferLayout layout;
    private final Map<Integer, EventFormat> formats;
    private final ClockSync clock;
    private final List<EventSink> sinks;
    private final List<CpuReader> readers = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicLong emitted = new AtomicLong();
    private final AtomicLong unknownEvents = new AtomicLong();
    private Thread emitter;
    private volatile boolean stopping;

    /**
     * @param instance the capture instance (tracing may already be on)
     * @param layout   its sub-buffer layout
     * @param formats  formats by event id
     * @param clock    trace clock to wall clock
     * @param sinks    outputs, called in order for each event from the emitter thread
     */
    public CaptureEngine(TracefsInstance instance, SubBufferLayout layout, Map<Integer, EventFormat> formats,
                         ClockSync clock, List<EventSink> sinks) {
        this.instance = instance;
        this.layout = layout;
        this.formats = Map.copyOf(formats);
        this.clock = clock;
        this.sinks = List.copyOf(sinks);
    }

    /**
     * Opens every CPU's {@code trace_pipe_raw} and starts the threads.
     *
     * @throws IOException when a file cannot be opened
     */
    public void start() throws IOException {
        for (int cpu : instance.cpus()) {
            readers.add(new CpuReader(cpu, TracePipeRaw.open(instance.tracePipeRaw(cpu), cpu)));
        }
        for (CpuReader r : readers) {
            r.thread.start();
        }
        emitter = new Thread(this::emitLoop, "tracewire-emitter");
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

    /** Events handed to the sinks so far. */
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
            out.add(new CpuStats(r.cpu, r.records.get(), r.pages.get(), r.lostKnown.get(), r.lostUnknownPages.get()));
        }
        return out;
    }

    private void fail(Throwable t) {
        failure.compareAndSet(null, t);
        stopping = true;
    }

    private final class CpuReader implements Runnable {
        final int cpu;
        final TracePipeRaw in;
        final Thread thread;
        final BlockingQueue<SubBuffer> queue = new ArrayBlockingQueue<>(4096);
        volatile long watermark = Long.MIN_VALUE;
        volatile boolean finished;
        final AtomicLong records = new AtomicLong();
        final AtomicLong pages = new AtomicLong();
        final AtomicLong lostKnown = new AtomicLong();
        final AtomicLong lostUnknownPages = new AtomicLong();

        CpuReader(int cpu, TracePipeRaw in) {
            this.cpu = cpu;
            this.in = in;
            this.thread = new Thread(this, "tracewire-cpu" + cpu);
            this.thread.setDaemon(true);
        }

        @Override
        public void run() {
            ByteBuffer page = ByteBuffer.allocateDirect(layout.subBufferSize());
            int fullEnough = (layout.subBufferSize() - layout.dataOffset()) * 3 / 4;
            try {
                while (true) {
                    boolean last = stopping;
                    long now = clock.traceNow() - SLACK_NS;
                    boolean empty = false;
                    while (true) {
                        int n = in.readSubBuffer(page);
                        if (n == 0) {
                            empty = true;
                            break;
                        }
                        SubBuffer sb = take(page);
                        if (!last && sb.dataLength() < fullEnough) {
                            break;
                        }
                    }
                    if (empty) {
                        watermark = Math.max(watermark, now);
                    }
                    if (last) {
                        if (empty) {
                            break;
                        }
                        continue;
                    }
                    if (empty) {
                        in.awaitData(POLL_MS);
                    }
                }
            } catch (Throwable t) {
                fail(t);
            } finally {
                finished = true;
            }
        }

        private SubBuffer take(ByteBuffer page) throws InterruptedException {
            ByteBuffer copy = ByteBuffer.allocate(page.limit());
            copy.put(page.duplicate().position(0));
            copy.flip();
            SubBuffer sb = SubBuffer.decode(copy, layout, cpu);
            pages.incrementAndGet();
            records.addAndGet(sb.records().size());
            if (sb.lostEvents() > 0) {
                lostKnown.addAndGet(sb.lostEvents());
            } else if (sb.lostEvents() < 0) {
                lostUnknownPages.incrementAndGet();
            }
            while (!queue.offer(sb, 100, TimeUnit.MILLISECONDS)) {
                if (failure.get() != null) {
                    throw new InterruptedException("capture failed");
                }
            }
            return sb;
        }
    }

    /** The emitter's view of one CPU: the page being emitted and where in it. */
    private static final class Head {
        SubBuffer page;
        int index;
        long sequence;
        long pendingLost;
        boolean pendingUnknown;
    }

    private void emitLoop() {
        int n = readers.size();
        Head[] heads = new Head[n];
        for (int i = 0; i < n; i++) {
            heads[i] = new Head();
        }
        KernelLayout kernel = layout.kernel();
        try {
            while (true) {
                boolean allFinished = true;
                long bound = Long.MAX_VALUE;
                int best = -1;
                long bestTs = Long.MAX_VALUE;
                for (int i = 0; i < n; i++) {
                    CpuReader r = readers.get(i);
                    Head h = heads[i];
                    boolean finishedBefore = r.finished;
                    while (h.page == null || h.index >= h.page.records().size()) {
                        SubBuffer next = r.queue.poll();
                        if (next == null) {
                            h.page = null;
                            break;
                        }
                        h.page = next;
                        h.index = 0;
                        if (next.lostEvents() > 0) {
                            h.pendingLost += next.lostEvents();
                        } else if (next.lostEvents() < 0) {
                            h.pendingUnknown = true;
                        }
                    }
                    if (h.page != null) {
                        allFinished = false;
                        long ts = h.page.records().get(h.index).timestamp();
                        if (ts < bestTs) {
                            bestTs = ts;
                            best = i;
                        }
                    } else if (!finishedBefore) {
                        allFinished = false;
                        bound = Math.min(bound, r.watermark);
                    }
                }
                if (best >= 0 && bestTs <= bound) {
                    Head h = heads[best];
                    RawRecord raw = h.page.records().get(h.index++);
                    emit(raw, h, kernel);
                    continue;
                }
                if (allFinished) {
                    break;
                }
                if (failure.get() != null) {
                    return;
                }
                Thread.sleep(1);
            }
            for (EventSink s : sinks) {
                if (s instanceof Flushable f) {
                    f.flush();
                }
            }
        } catch (Throwable t) {
            fail(t);
        }
    }

    private void emit(RawRecord raw, Head h, KernelLayout kernel) throws IOException {
        EventFormat f = formats.get(raw.eventId());
        if (f == null) {
            unknownEvents.incrementAndGet();
            return;
        }
        long lost = h.pendingUnknown ? -1 : h.pendingLost;
        h.pendingLost = 0;
        h.pendingUnknown = false;
        EventRecord rec = new EventRecord(f, kernel, raw.cpu(), raw.timestamp(), raw.payload());
        long wall = clock.measured() ? clock.toWallNs(raw.timestamp()) : raw.timestamp();
        CapturedEvent e = new CapturedEvent(rec, wall, h.sequence++, lost);
        for (EventSink s : sinks) {
            s.accept(e);
        }
        emitted.incrementAndGet();
    }

    /** A sink that can push out buffered output when the capture has nothing more for now. */
    public interface Flushable {
        /** Writes out anything buffered. */
        void flush() throws IOException;
    }
}
