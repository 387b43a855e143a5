package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.tracewire.format.EventFormat;
import org.tracewire.posix.CpuAffinity;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.ringbuffer.TracePipeRaw;
import org.tracewire.tracefs.RingBufferStats;
import org.tracewire.tracefs.TracefsInstance;

/**
 * Reads every CPU's ring buffer of a capture instance and hands the records, merged into one
 * stream in time-stamp order, to the frame outputs and the record sinks. docs/capture.md,
 * "Reading", describes the design; docs/decisions 0004-0006, 0009, 0010 and 0014 the reasons.
 *
 * <p>The parts: one {@link CpuReader} per CPU, whose drainer thread keeps the kernel's buffer empty
 * at the pace of a copy into its {@link PagePool}, and counts lost events ({@link LossAccount}); one
 * {@link Emitter} thread that merges the CPUs' records and does all per-record work, on the pages in
 * place, deferring it while tracing when every output is a file ({@link ReadAhead}); the
 * {@link WarmUp} that has the JIT compile the emitter before tracing. {@link #stop()} drains until
 * the kernel counts no unread entry.
 *
 * <p>Lost events are counted exactly per CPU; a count goes with the CPU's next record (a LOST
 * message), the remainder at the end ({@link CpuStats#agreesWithKernel()}).
 */
public final class CaptureEngine {
    /** How long a pinned drainer may go without a sign of life before it may run on any CPU again, ns. */
    static final long RESCUE_NS = 500_000_000L;
    /** Whether drainers run on their own CPU (property {@code tracewire.pinReaders}, default true). */
    static final boolean PIN_READERS = !"false".equals(System.getProperty("tracewire.pinReaders"));
    /** Longest wait in poll(), ms. */
    public static final int POLL_MS = 50;
    /** Allowance for records committed just after a reader found the buffer empty, ns. */
    public static final long SLACK_NS = 20_000_000L;
    /** Longest idle wait of the emitter, ns (readers wake it when they have news). */
    static final long IDLE_WAIT_NS = 50_000_000L;
    /** Most bytes of sub-buffers read and not yet processed, per CPU (and at most {@link #STASH_TOTAL} in all). */
    static final int STASH_PER_CPU = 64 << 20;
    /**
     * Most bytes of sub-buffers read and not yet emitted, per CPU, when the frames go to a live
     * reader ({@link FrameSink#live()}: Wireshark's extcap FIFO, a pipe, an interface): a reader
     * slower than the capture then sees the kernel's losses, counted, within about a second instead
     * of falling far behind (docs/decisions/0014-live-readers-get-a-smaller-stash.md).
     */
    static final int LIVE_STASH_PER_CPU = 8 << 20;
    /** Most bytes of sub-buffers read and not yet processed, all CPUs. */
    static final long STASH_TOTAL = 256L << 20;
    /** How often the emitter checks its allowance while it defers its work ({@link ReadAhead}), ns. */
    static final long PACE_CHECK_NS = 1_000_000L;
    /** {@link #readAhead(long)}'s value for {@link ReadAhead#defaultBytes()}. */
    public static final long READ_AHEAD_DEFAULT = -1;

    private final TracefsInstance instance;
    final SubBufferLayout layout;
    final EventFormat[] formatsById;
    final ClockSync clock;
    final FrameSink frames;
    final EventSink[] sinkArray;
    final List<CpuReader> readers = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** Events emitted, published by the emitter per page or run of records and at the end. */
    final AtomicLong emitted = new AtomicLong();
    /** True when frame times are wall-clock ns (a measured clock), false for the raw trace clock. */
    final boolean wallClock;
    final AtomicLong unknownEvents = new AtomicLong();
    long limit = Long.MAX_VALUE;
    /** The emitter's thread, which the drainers wake (null for an engine over queued pages). */
    volatile Thread emitter;
    /** The read-ahead asked for, bytes over all CPUs ({@link #READ_AHEAD_DEFAULT}: the default; 0: none). */
    private long readAheadLimit = READ_AHEAD_DEFAULT;
    /** True when the emitter defers its work while tracing ({@link ReadAhead}); set by {@link #start()}. */
    boolean deferring;
    /** Queued pages of a CPU at which a deferring emitter works at full speed (3/4 of a CPU's pages). */
    int nearlyFull;
    /** True while the emitter is parked to keep within its allowance ({@link ReadAhead.Pacer}). */
    volatile boolean pacing;
    volatile boolean stopping;
    /** The on-disk read-ahead ({@link Spool}), or null: set by {@link #spool(Spool)}. */
    private Spool spool;
    /** True when a deferring engine reads into {@link #spool}: slots are reused only once durable. */
    boolean spooling;
    /** Set by {@link #abort()}: records are counted, not emitted. */
    volatile boolean aborted;
    /** Records with a format not emitted because of {@link #abort()} (published by the emitter at the end). */
    volatile long notFramed;
    /**
     * The CPUs the thread that started the engine may run on (what a rescued drainer gets), or null
     * when drainers are not pinned (fewer than two such CPUs, no affinity calls, or pinning off).
     */
    BitSet allowedCpus;
    /** By event id: read only to follow task names ({@link TaskNaming}), not framed nor given to sinks. */
    final boolean[] namingOnly = new boolean[0x10000];

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
        this.wallClock = clock.measured();
        this.frames = frames;
        this.sinkArray = List.copyOf(sinks).toArray(new EventSink[0]);
    }

    /**
     * Frames sub-buffers read earlier (a killed capture's spool, {@link Recovery}) into {@code sink},
     * through the same emitter as a capture: merged across CPUs in time order, each record's context
     * before it. Per CPU, the records up to the frame time {@code resume[0]} (and the first
     * {@code resume[1]} at that very time) are skipped: the file holds them already.
     *
     * @param layout the sub-buffers' layout
     * @param formats the captured events by id
     * @param clock   the capture's clock (frame times as the capture made them)
     * @param sink    where the frames go
     * @param pages   per CPU, its sub-buffers in time order (each from position 0 to its limit, in the
     *                kernel's byte order)
     * @param resume  per CPU, {time, count}: what to skip; absent for none
     * @param namingOnly event ids read only to follow task names ({@link #namingOnly(Collection)})
     * @return per CPU, the records framed
     * @throws IOException when framing fails (a corrupt page, an output that cannot be written)
     */
    static Map<Integer, Long> replay(SubBufferLayout layout, Map<Integer, EventFormat> formats, ClockSync clock,
                                     FrameSink sink, Map<Integer, List<ByteBuffer>> pages, Map<Integer, long[]> resume,
                                     Collection<Integer> namingOnly) throws IOException {
        CaptureEngine e = new CaptureEngine(null, layout, formats, clock, sink, List.of());
        e.namingOnly(namingOnly);
        for (Map.Entry<Integer, List<ByteBuffer>> c : new TreeMap<>(pages).entrySet()) {
            List<Page> cpuPages = new ArrayList<>();
            for (ByteBuffer b : c.getValue()) {
                Page pg = new Page(b);
                pg.header = SubBuffer.header(b, layout, c.getKey());
                cpuPages.add(pg);
            }
            CpuReader r = e.queued(c.getKey(), cpuPages);
            long[] from = resume.get(c.getKey());
            if (from != null) {
                r.resumeAfter(from[0], from[1]);
            }
        }
        Throwable t = e.emitHere();
        if (t instanceof IOException io) {
            throw io;
        }
        if (t != null) {
            throw new IOException("framing the spool failed: " + t, t);
        }
        Map<Integer, Long> framed = new TreeMap<>();
        for (CpuReader r : e.readers) {
            framed.put(r.cpu, r.sequence);
        }
        return framed;
    }

    /** An engine over pages read earlier (no instance): a CPU's pages, then its last mark. */
    CpuReader queued(int cpu, List<Page> pages) {
        LossAccount loss = new LossAccount(null, cpu, new RingBufferStats(0, 0, 0, 0, 0, 0));
        CpuReader r = new CpuReader(this, cpu, null, loss, new PagePool(layout, cpu, 0, false, 0, null));
        r.pagesRead.addAll(pages);
        r.pagesRead.add(new Page.Mark(Long.MAX_VALUE, true));
        readers.add(r);
        return r;
    }

    /** An engine over {@link #queued} pages: runs the emitter in this thread; returns its failure, or null. */
    Throwable emitHere() {
        new Emitter(this).run();
        return failure.get();
    }

    /**
     * Emits at most {@code maxEvents} events (the rest are read and counted, not emitted). Call
     * before {@link #start()}.
     */
    public void limit(long maxEvents) {
        this.limit = maxEvents;
    }

    /**
     * The read-ahead of a capture whose outputs are all files ({@link ReadAhead}): the most bytes of
     * sub-buffers, over all CPUs, held while the emitter defers its work until tracing stops (each
     * CPU gets an equal share, at least 1 MiB). Ignored when an output is live or a record sink is
     * attached (the frames must leave as the events come), and with a {@link #limit(long)}. Call
     * before {@link #start()}.
     *
     * @param bytes bytes, {@link #READ_AHEAD_DEFAULT} for {@link ReadAhead#defaultBytes()}, 0 to emit
     *              while tracing (the pool is then the usual {@link #STASH_PER_CPU})
     * @throws IllegalArgumentException when {@code bytes} is negative and not the default
     */
    public void readAhead(long bytes) {
        if (bytes < 0 && bytes != READ_AHEAD_DEFAULT) {
            throw new IllegalArgumentException("read-ahead must be >= 0 bytes: " + bytes);
        }
        this.readAheadLimit = bytes;
    }

    /**
     * Keeps the read-ahead in a spool on disk instead of anonymous memory ({@link Spool}), when the
     * engine defers its work; a page's slot is then reused only once the frames of its records are
     * in the pcapng file's whole blocks ({@link FrameSink#eventsDurable()}). Call before {@link #start()}.
     *
     * @param spool the spool, or null for none
     */
    public void spool(Spool spool) {
        this.spool = spool;
    }

    /** True when the read-ahead is in the spool ({@link #spool(Spool)}); known after {@link #start()}. */
    public boolean spooling() {
        return spooling;
    }

    /** Each CPU's ring-buffer counters when the engine started (after {@link #start()}). */
    public Map<Integer, RingBufferStats> bases() {
        Map<Integer, RingBufferStats> m = new LinkedHashMap<>();
        for (CpuReader r : readers) {
            m.put(r.cpu, r.loss.base);
        }
        return m;
    }

    /** Why the spool stopped taking pages on some CPU (out of disk; those after went to memory), or null. */
    public String spoolFailure() {
        for (CpuReader r : readers) {
            String f = r.pool.spoolFailure();
            if (f != null) {
                return "cpu" + r.cpu + ": " + f;
            }
        }
        return null;
    }

    /** True when this capture defers the emitter's work while tracing ({@link ReadAhead}); known after {@link #start()}. */
    public boolean deferring() {
        return deferring;
    }

    /** Bytes of read-ahead memory mapped so far, all CPUs: the peak, as mappings are given back only by {@link #stop()} (0 when not {@link #deferring()}). */
    public long readAheadMapped() {
        long n = 0;
        for (CpuReader r : readers) {
            n += r.pool.mappedBytes();
        }
        return n;
    }

    /**
     * Opens every CPU's {@code trace_pipe_raw} and starts the threads.
     *
     * @throws IOException when a file cannot be opened
     */
    public void start() throws IOException {
        int cpus = Math.max(1, instance.cpus().size());
        long readAhead = readAheadLimit == READ_AHEAD_DEFAULT ? ReadAhead.defaultBytes() : readAheadLimit;
        // a --count capture stops when enough are emitted: deferring would only trace (and discard) longer
        deferring = readAhead > 0 && frames != null && !frames.live() && sinkArray.length == 0
                && limit == Long.MAX_VALUE;
        spooling = deferring && spool != null;
        int perCpu = frames != null && frames.live() ? LIVE_STASH_PER_CPU : STASH_PER_CPU;
        // at least 1 MiB per CPU (and 16 pages), whatever the sub-buffer size
        long stashBytes = deferring ? Math.max(1 << 20, readAhead / cpus)
                : Math.max(1 << 20, Math.min(perCpu, STASH_TOTAL / cpus));
        int stashPages = (int) Math.max(16, stashBytes / layout.subBufferSize());
        nearlyFull = stashPages * 3 / 4;
        int keepFree = (int) Math.max(1, ReadAhead.KEEP_FREE / layout.subBufferSize());
        allowedCpus = PIN_READERS ? pinnable() : null;
        for (int cpu : instance.cpus()) {
            // the baseline of the kernel's counters: tracing is off, the clock markers were consumed
            LossAccount loss = new LossAccount(instance, cpu, RingBufferStats.read(instance, cpu));
            PagePool pool = new PagePool(layout, cpu, stashPages, deferring, keepFree, spooling ? spool : null);
            readers.add(new CpuReader(this, cpu, TracePipeRaw.open(instance.tracePipeRaw(cpu), cpu), loss, pool));
        }
        emitter = new Thread(() -> new Emitter(this).run(), "tracewire-emitter");
        emitter.start();
        for (CpuReader r : readers) {
            r.drainer.start();
        }
    }

    /** The CPUs this thread may run on when drainers can be pinned and rescued there, else null. */
    private static BitSet pinnable() {
        try {
            BitSet allowed = CpuAffinity.get(0);
            // a drainer pinned to the only CPU it may use could not be rescued anywhere
            return allowed.cardinality() >= 2 ? allowed : null;
        } catch (RuntimeException | LinkageError e) {
            return null; // no affinity calls here (not Linux?): drainers stay where the scheduler puts them
        }
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
        }
        if (emitter != null) {
            emitter.join();
        }
        for (CpuReader r : readers) {
            r.in.close();
            r.pool.close(); // every thread that touched its pages has ended
        }
        Throwable t = failure.get();
        if (t instanceof IOException io) {
            throw io;
        }
        if (t != null) {
            throw new IOException("capture failed: " + t, t);
        }
    }

    /**
     * Stops emitting: from now on the records read are walked and counted ({@link #notFramed()}),
     * not framed; the drainers go on emptying the kernel's buffers. Any thread.
     *
     * @return true when this call aborted (false when already aborted)
     */
    public boolean abort() {
        if (aborted) {
            return false;
        }
        aborted = true;
        Thread e = emitter;
        if (e != null) {
            LockSupport.unpark(e);
        }
        return true;
    }

    /**
     * Marks event ids whose records only name tasks ({@link CaptureSession#followTaskNames()}): the
     * frame sink's context follows them; they are neither framed nor given to sinks, nor counted
     * against {@link #limit}. Before {@link #start()}.
     *
     * @param ids event ids
     */
    public void namingOnly(Collection<Integer> ids) {
        for (int id : ids) {
            namingOnly[id & 0xffff] = true;
        }
    }

    /** Records read and not emitted because of {@link #abort()}. */
    public long notFramed() {
        return notFramed;
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

    /** The CPUs whose drainer runs pinned to its CPU now ({@link CpuReader}). */
    List<Integer> pinnedReaders() {
        return readers.stream().filter(r -> r.pinned).map(r -> r.cpu).toList();
    }

    /** The CPUs whose pinned drainer was starved and given back every CPU ({@link #RESCUE_NS}). */
    List<Integer> rescuedReaders() {
        return readers.stream().filter(r -> r.rescued).map(r -> r.cpu).toList();
    }

    /**
     * Events the kernel lost so far, all CPUs: its per-CPU {@code stats} read now minus those at the
     * start ({@link RingBufferStats#lost()}), or what the engine attributed when that is more (after
     * the instance is gone).
     */
    public long kernelLost() {
        long n = 0;
        for (CpuReader r : readers) {
            n += r.loss.kernelLost();
        }
        return n;
    }

    /** Per-CPU counters so far. */
    public List<CpuStats> stats() {
        List<CpuStats> out = new ArrayList<>();
        for (CpuReader r : readers) {
            LossAccount l = r.loss;
            out.add(new CpuStats(r.cpu, r.records.get(), r.pages.get(), l.lost.get(), r.lostAfterLast,
                    l.statsReads.get(), l.kernel, r.named));
        }
        return out;
    }

    /** Records the first failure and stops the capture's threads. */
    void fail(Throwable t) {
        failure.compareAndSet(null, t);
        stopping = true;
    }
}
