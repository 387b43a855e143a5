package org.tracewire.capture;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.KernelLayout;
import org.tracewire.posix.CpuAffinity;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.record.EventRecord;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferBuilder;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.ringbuffer.TracePipeRaw;
import org.tracewire.tracefs.RingBufferStats;
import org.tracewire.tracefs.TracefsInstance;
import org.tracewire.wire.FrameEncoder;

/**
 * Reads every CPU's ring buffer of a capture instance and hands the records, merged into one
 * stream in time-stamp order, to the frame outputs and the record sinks. docs/capture.md,
 * "Reading", describes the design; docs/decisions 0004-0006, 0009, 0010 and 0014 the figures behind it.
 *
 * <p>One <em>drainer</em> thread per CPU keeps the kernel's buffer empty at the pace of a copy,
 * whatever the per-record work costs: it waits in {@code poll()} (at most {@link #POLL_MS} ms), reads
 * sub-buffers non-blocking until EAGAIN or until it has caught up with the writer, into a bounded
 * pool of pages ({@link #STASH_PER_CPU}, {@link #STASH_TOTAL}), and queues them with a watermark (no
 * later record of that CPU is older). It runs on its own CPU when it may, where the sub-buffers it
 * copies are in the cache; one silent for {@link #RESCUE_NS} gets every CPU back, so a monopolised
 * CPU can lose events, counted, but never stall the capture.
 *
 * <p>One <em>emitter</em> thread does all per-record work, on the pages in place: it merges the
 * CPUs' records by time stamp within the watermarks (a bounded reorder window) and hands each to the
 * {@link FrameSink} (context first, then the frame) and, when there are record sinks, as an
 * {@link EventRecord}: one copy of a record's bytes, no allocation per record. When every output is
 * a file it defers that work while tracing ({@link ReadAhead}). {@link #stop()} drains until the
 * kernel counts no unread entry.
 *
 * <p>Lost events are counted exactly per CPU against the kernel's counters ({@link RingBufferStats}),
 * from the pages' {@code RB_MISSED_*} flags and, where a page does not store its count, the CPU's
 * stats; a count goes with the CPU's next record (a LOST message), the remainder at the end. Per
 * CPU, records read + lost = the events the kernel tried to record ({@link CpuStats#agreesWithKernel()}).
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
    private final SubBufferLayout layout;
    private final EventFormat[] formatsById;
    private final ClockSync clock;
    private final FrameSink frames;
    private final List<EventSink> sinks;
    private final List<CpuReader> readers = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicLong emitted = new AtomicLong();
    /**
     * Events emitted (emitter thread), published through {@link #emitted} with a release store at
     * each turn of the emitter's loop (a page or a run of records, not each record) and at the end.
     */
    private long emittedCount;
    /** True when frame times are wall-clock ns (a measured clock), false for the raw trace clock. */
    private final boolean wallClock;
    private final EventSink[] sinkArray;
    private final AtomicLong unknownEvents = new AtomicLong();
    /** Times the final drain re-reads when the kernel still counts unread entries. */
    static final int FINAL_DRAIN_TRIES = 20;
    private long limit = Long.MAX_VALUE;
    private volatile Thread emitter;
    /** Pages a CPU's drainer may hold ahead of the emitter. */
    private int stashPages;
    /** The read-ahead asked for, bytes over all CPUs ({@link #READ_AHEAD_DEFAULT}: the default; 0: none). */
    private long readAheadLimit = READ_AHEAD_DEFAULT;
    /** True when the emitter defers its work while tracing ({@link ReadAhead}); set by {@link #start()}. */
    private boolean deferring;
    /** Queued pages of a CPU at which a deferring emitter works at full speed (3/4 of {@link #stashPages}). */
    private int nearlyFull;
    /** Free pages a CPU keeps resident while a deferring capture traces ({@link ReadAhead#KEEP_FREE}). */
    private int keepFree;
    /** True while the emitter is parked to keep within its allowance ({@link ReadAhead.Pacer}). */
    private volatile boolean pacing;
    private volatile boolean stopping;
    /** The on-disk read-ahead ({@link Spool}), or null: set by {@link #spool(Spool)}. */
    private Spool spool;
    /** True when a deferring engine reads into {@link #spool}: slots are reused only once durable. */
    private boolean spooling;
    /** Set by {@link #abort()}: records are counted, not emitted. */
    private volatile boolean aborted;
    /** Records with a format not emitted because of {@link #abort()} (emitter thread; published at the end). */
    private volatile long notFramed;
    private long notFramedCount;
    /**
     * The CPUs the thread that started the engine may run on (what a rescued drainer gets), or null
     * when drainers are not pinned (fewer than two such CPUs, no affinity calls, or pinning off).
     */
    private BitSet allowedCpus;
    /** By event id: read only to follow task names ({@link TaskNaming}), not framed nor given to sinks. */
    private final boolean[] namingOnly = new boolean[0x10000];

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
        this.sinks = List.copyOf(sinks);
        this.sinkArray = this.sinks.toArray(new EventSink[0]);
    }

    /**
     * Wall time of the JIT warm-up ({@link #warmUp}) before a capture's tracing starts, ns: property
     * {@code tracewire.warmUpMs} (default 300; 0 turns it off).
     */
    public static final long WARM_UP_NS = Math.max(0, Long.getLong("tracewire.warmUpMs", 300)) * 1_000_000L;
    /** Synthetic sub-buffers per CPU that one round of the warm-up walks. */
    static final int WARM_UP_PAGES = 32;
    /** Most CPUs the warm-up's synthetic pages are for (the first of the capture's). */
    static final int WARM_UP_CPUS = 4;

    /**
     * Runs the emitter's per-record code over synthetic sub-buffers of the capture's events, into a
     * pcapng output that discards them, for {@code budgetNs} of wall time: the page walk, the merge of
     * the CPUs, the context check and the frame encoding, the code a capture runs millions of times a
     * second. Called before tracing starts, so that the JIT compiles this code then. Otherwise it is
     * compiled in the first traced second, and the compiler and the not yet compiled code take CPU
     * from the traced workload: under full-speed getppid loops the first second recorded 4.3-4.6 M
     * events/s against 5.0-5.4 M/s in the seconds after (docs/capture.md, "The per-event path
     * trimmed, and a JIT warm-up").
     *
     * <p>The synthetic records are of the capture's events ({@link EventFormat#fixedSize()} bytes,
     * {@code common_type} and {@code common_pid} set, the rest zeros), this process's pid as their
     * task, interleaved over {@code cpus} in time order, packed by {@link SubBufferBuilder}. They go
     * through a {@link CaptureEngine} of their own and a {@link FrameSink} of their own with the
     * capture's context (read, not changed) and clock; nothing reaches the capture's outputs, and the
     * capture's engine, numbering and context state are untouched.
     *
     * @param layout   the capture's sub-buffer layout
     * @param formats  the capture's events by id
     * @param clock    the capture's clock (read only)
     * @param context  what the capture's context messages say, or null (none sent)
     * @param cpus     the capture's CPUs (the first {@link #WARM_UP_CPUS} get synthetic pages)
     * @param budgetNs wall time to run, ns; at least one round runs when positive
     * @return records the warm-up emitted (0 when there was nothing to warm up)
     * @throws IOException when the engine failed on the synthetic records (a bug: the capture would too)
     */
    // public for the emit-loop benchmark (benchmarks/EmitLoopBenchmark), which reaches only public API
    public static long warmUp(SubBufferLayout layout, Map<Integer, EventFormat> formats, ClockSync clock,
                       CaptureContext context, List<Integer> cpus, long budgetNs) throws IOException {
        if (budgetNs <= 0 || formats.isEmpty() || cpus.isEmpty()) {
            return 0;
        }
        long until = System.nanoTime() + budgetNs;
        // the merge's code is the same for any count of CPUs: a few keep the synthetic pages small
        cpus = cpus.subList(0, Math.min(cpus.size(), WARM_UP_CPUS));
        List<List<Page>> pages = warmUpPages(layout, formats, cpus);
        if (pages.isEmpty()) {
            return 0; // only events too large for a page: nothing to warm up with
        }
        WritableByteChannel discard = Channels.newChannel(OutputStream.nullOutputStream());
        RingBufferStats zero = new RingBufferStats(0, 0, 0, 0, 0, 0);
        long emitted = 0;
        try (FrameSink sink = new FrameSink(List.of(new PcapngOutput("warm-up", discard, false, SectionInfo.host(),
                InterfaceInfo.tracewire("tracewire", "JIT warm-up", FrameEncoder.MAX_FRAME))), context)) {
            do {
                CaptureEngine e = new CaptureEngine(null, layout, formats, clock, sink, List.of());
                for (int i = 0; i < cpus.size(); i++) {
                    CpuReader r = e.new CpuReader(cpus.get(i), null, zero);
                    r.pagesRead.addAll(pages.get(i));
                    r.pagesRead.add(new Mark(Long.MAX_VALUE, true));
                    e.readers.add(r);
                }
                e.emitLoop();
                Throwable t = e.failure.get();
                if (t != null) {
                    throw new IOException("the capture engine failed on the JIT warm-up's synthetic records: " + t, t);
                }
                emitted += e.emittedCount;
            } while (System.nanoTime() < until);
        }
        return emitted;
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
        RingBufferStats zero = new RingBufferStats(0, 0, 0, 0, 0, 0);
        for (Map.Entry<Integer, List<ByteBuffer>> c : new TreeMap<>(pages).entrySet()) {
            CpuReader r = e.new CpuReader(c.getKey(), null, zero);
            long[] from = resume.get(c.getKey());
            if (from != null) {
                r.resuming = true;
                r.resumeTime = from[0];
                r.resumeEqual = from[1];
            }
            for (ByteBuffer b : c.getValue()) {
                Page pg = new Page(b);
                pg.header = SubBuffer.header(b, layout, c.getKey());
                r.pagesRead.add(pg);
            }
            r.pagesRead.add(new Mark(Long.MAX_VALUE, true));
            e.readers.add(r);
        }
        e.emitLoop();
        Throwable t = e.failure.get();
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

    /**
     * {@link #warmUp}'s sub-buffers: per CPU, {@link #WARM_UP_PAGES} pages of records of every event
     * in turn (events too large for a page left out); empty when no event fits a page.
     */
    private static List<List<Page>> warmUpPages(SubBufferLayout layout, Map<Integer, EventFormat> formats,
                                                List<Integer> cpus) {
        ByteOrder order = layout.kernel().byteOrder();
        List<ByteBuffer> payloads = new ArrayList<>();
        int pid = (int) ProcessHandle.current().pid();
        SubBufferBuilder fits = new SubBufferBuilder(layout);
        for (EventFormat f : formats.values()) {
            int size = Math.max(8, f.fixedSize());
            if (!fits.fitsEmptyPage(size)) {
                continue; // too large for any page: not an event the warm-up needs
            }
            ByteBuffer b = ByteBuffer.allocate(size).order(order);
            b.putShort(0, (short) f.id());
            Field pidField = f.fieldsByName().get("common_pid");
            if (pidField != null && pidField.size() == 4 && pidField.offset() + 4 <= b.capacity()) {
                b.putInt(pidField.offset(), pid);
            }
            payloads.add(b);
        }
        if (payloads.isEmpty()) {
            return List.of();
        }
        int n = cpus.size();
        List<List<Page>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            SubBufferBuilder builder = new SubBufferBuilder(layout);
            List<Page> cpuPages = new ArrayList<>();
            long k = 0;
            while (cpuPages.size() < WARM_UP_PAGES) {
                long ts = 1_000_000_000L + (k * n + i) * 100; // the CPUs' records interleave in time
                ByteBuffer payload = payloads.get((int) (k % payloads.size())).duplicate();
                if (!builder.isOpen()) {
                    builder.start(ts, 0);
                }
                if (!builder.tryAdd(ts, payload)) {
                    cpuPages.add(warmUpPage(builder.finish(), layout, cpus.get(i)));
                    continue; // the same record starts the next page
                }
                k++;
            }
            out.add(cpuPages);
        }
        return out;
    }

    private static Page warmUpPage(ByteBuffer bytes, SubBufferLayout layout, int cpu) {
        Page p = new Page(bytes.remaining(), layout.kernel().byteOrder());
        p.buf.put(0, bytes, bytes.position(), bytes.remaining());
        p.header = SubBuffer.header(p.buf, layout, cpu);
        return p;
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
            m.put(r.cpu, r.base);
        }
        return m;
    }

    /** Why the spool stopped taking pages on some CPU (out of disk; those after went to memory), or null. */
    public String spoolFailure() {
        for (CpuReader r : readers) {
            String f = r.arena == null ? r.spoolFailure : r.arena.spoolFailure();
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
            n += r.arenaBytes;
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
        stashPages = (int) Math.max(16, stashBytes / layout.subBufferSize());
        nearlyFull = stashPages * 3 / 4;
        keepFree = (int) Math.max(1, ReadAhead.KEEP_FREE / layout.subBufferSize());
        if (PIN_READERS) {
            try {
                BitSet allowed = CpuAffinity.get(0);
                // a drainer pinned to the only CPU it may use could not be rescued anywhere
                allowedCpus = allowed.cardinality() >= 2 ? allowed : null;
            } catch (RuntimeException | LinkageError e) {
                allowedCpus = null; // no affinity calls here (not Linux?): drainers stay where the scheduler puts them
            }
        }
        for (int cpu : instance.cpus()) {
            // the baseline of the kernel's counters: tracing is off, the clock markers were consumed
            RingBufferStats base = RingBufferStats.read(instance, cpu);
            readers.add(new CpuReader(cpu, TracePipeRaw.open(instance.tracePipeRaw(cpu), cpu), base));
        }
        emitter = new Thread(this::emitLoop, "tracewire-emitter");
        emitter.start();
        for (CpuReader r : readers) {
            r.drainer.start();
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
            if (r.arena != null) {
                r.arena.close(); // every thread that touched its pages has ended
            }
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

    /** The CPUs whose drainer runs pinned to its CPU now (see the class comment). */
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
            long k;
            try {
                k = RingBufferStats.read(instance, r.cpu).minus(r.base).lost();
            } catch (RuntimeException e) {
                k = 0; // the instance is gone: what was attributed is all there is
            }
            n += Math.max(k, r.lost.get());
        }
        return n;
    }

    /** Per-CPU counters so far. */
    public List<CpuStats> stats() {
        List<CpuStats> out = new ArrayList<>();
        for (CpuReader r : readers) {
            out.add(new CpuStats(r.cpu, r.records.get(), r.pages.get(), r.lost.get(), r.lostAfterLast,
                    r.statsReads.get(), r.kernel, r.named));
        }
        return out;
    }

    private void fail(Throwable t) {
        failure.compareAndSet(null, t);
        stopping = true;
    }

    /**
     * One CPU: its drainer thread, the queue of pages it read, and the emitter's cursor over the
     * page being emitted.
     */
    private final class CpuReader {
        final int cpu;
        final TracePipeRaw in;
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
        /** The drainer's Linux thread id once it runs (0 before). */
        volatile int tid;
        /** True while the drainer runs, pinned to {@link #cpu}. */
        volatile boolean pinned;
        /** True once the emitter unpinned a starved drainer ({@link #rescueIfStarved}). */
        volatile boolean rescued;
        /** {@link System#nanoTime()} of the drainer's last sign of life (a page read, a wake-up). */
        volatile long heartbeat;

        // drainer-thread state: pages read from the kernel, waiting for the emitter
        final Thread drainer;
        final BlockingQueue<Object> pagesRead = new LinkedBlockingQueue<>();
        final BlockingQueue<Page> freePages = new LinkedBlockingQueue<>();
        int pagesAllocated;
        /** Where new pages come from while {@link #deferring} (else direct buffers), or null. */
        volatile ReadAhead.Arena arena;
        /** Bytes {@link #arena} has mapped (read by other threads). */
        volatile long arenaBytes;
        /** Why this CPU's spool file could not be made (its pages then live in memory), or null. */
        volatile String spoolFailure;
        /**
         * Emitter: pages emitted whose frames may not be in the file yet, oldest first, each with the
         * sink's event count after its last record ({@link Page#durableAt}); back to the pool by
         * {@link #reclaim()} (only while {@link #spooling}).
         */
        final ArrayDeque<Page> notDurable = new ArrayDeque<>();
        int settleTries;
        /**
         * True while {@link #lost} equals the kernel's {@code last_overrun} − base exactly, so a
         * stored count can be taken as it is; false once a page had no stored count.
         */
        boolean inSync;

        // emitter-thread state: the page being emitted and the cursor on its next record
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
        long pageRecords;
        /** Records of the page walked whose event id has no format (counted, not emitted). */
        long unknown;
        /** Records of this CPU not framed because of {@link #abort()}: lost to the file (a LOST count at its end). */
        long notFramed;
        /** Lost events to put before this CPU's next emitted record. */
        long pendingLost;
        /** Lost counts of the frames emitted. */
        long lostInFrames;
        /** Per-CPU number of the next record with a format (the record sinks' sequence). */
        long sequence;
        /**
         * Replay ({@link #replay}): records up to {@link #resumeTime} (frame time) are skipped, and
         * {@link #resumeEqual} of those at that very time: the file holds them already.
         */
        boolean resuming;
        long resumeTime;
        long resumeEqual;
        /** Highest mark time seen: no record of this CPU still to come is older. */
        long watermark = Long.MIN_VALUE;
        /** The last mark was seen: nothing more will come. */
        boolean finished;

        CpuReader(int cpu, TracePipeRaw in, RingBufferStats base) {
            this.cpu = cpu;
            this.in = in;
            this.base = base;
            // last_overrun <= overrun: with no overrun yet, the reader's cursor is at the base too
            this.inSync = base.overrun() == 0;
            this.drainer = new Thread(this::drain, "tracewire-read" + cpu);
            this.drainer.setDaemon(true);
            this.cursor = new SubBuffer.Cursor(layout, cpu);
        }

        /**
         * The drainer: keeps the kernel's buffer of this CPU empty, whatever the per-record work
         * costs (at the start the JIT has not compiled it yet, and a page then takes ten times
         * longer): waits in {@code poll()}, reads sub-buffers non-blocking into pages of a pool (at
         * most {@link #stashPages} pages), settles their lost events and queues them for the
         * emitter, and after a read that found the buffer empty queues a {@link Mark} with the time
         * before that read. At stop, drains until the kernel counts no unread entry, settles the
         * counts and queues the last mark.
         */
        private void drain() {
            heartbeat = System.nanoTime();
            int fullEnough = (layout.subBufferSize() - layout.dataOffset()) * 3 / 4;
            try {
                pin();
                while (true) {
                    boolean last = stopping;
                    long now = clock.traceNow() - SLACK_NS;
                    boolean empty = false;
                    // a sub-buffer less than 3/4 full whose first record is not older than `now`: the
                    // CPU's records come in time order, so none older than `now` is left unread
                    boolean caughtUp = false;
                    while (true) {
                        heartbeat = System.nanoTime();
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
                        SubBuffer.PageHeader header = SubBuffer.header(pg.buf, layout, cpu);
                        pg.header = header;
                        pg.lost = header.lostEvents() != 0 ? attribute(header.lostEvents()) : 0;
                        pages.incrementAndGet();
                        pagesRead.add(pg);
                        if (!pacing || pagesRead.size() >= nearlyFull) {
                            // a pacing emitter wakes on its own: a wake-up per page would cost more than it saves
                            LockSupport.unpark(emitter);
                        }
                        if (!last && header.dataLength() < fullEnough && header.timestamp() >= now) {
                            caughtUp = true;
                            break;
                        }
                        // else the next read, with the same `now`: more, the rest, or EAGAIN
                    }
                    if (empty || caughtUp) {
                        pagesRead.add(new Mark(now, false));
                        if (!pacing) {
                            // a pacing emitter reads the mark when it wakes on its own
                            LockSupport.unpark(emitter);
                        }
                    }
                    if (last) {
                        if (empty && drained()) {
                            if (failure.get() == null) {
                                settle();
                            }
                            pagesRead.add(new Mark(now, true));
                            LockSupport.unpark(emitter);
                            return;
                        }
                        continue;
                    }
                    if (empty || caughtUp) {
                        // also after catching up: a capture of its own read() calls (--trace-self)
                        // would otherwise read one sub-buffer per event of its own, as fast as it can
                        in.awaitData(POLL_MS);
                    }
                }
            } catch (Throwable t) {
                fail(t);
                pagesRead.add(new Mark(Long.MIN_VALUE, true));
                LockSupport.unpark(emitter);
            } finally {
                pinned = false; // a drainer that ended needs no rescue (and its thread id is gone)
            }
        }

        /**
         * Drainer: runs on this CPU from now on when the process may run there (see the class
         * comment); stays unpinned when it may not, or the kernel refuses.
         */
        private void pin() {
            if (allowedCpus == null || !allowedCpus.get(cpu)) {
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
         * Emitter: gives a pinned drainer that showed no sign of life for {@link #RESCUE_NS} every
         * CPU it was allowed, so it can run elsewhere than its monopolised CPU.
         *
         * @param now {@link System#nanoTime()}
         */
        void rescueIfStarved(long now) {
            if (pinned && now - heartbeat > RESCUE_NS) {
                pinned = false;
                try {
                    CpuAffinity.set(tid, allowedCpus);
                    rescued = true;
                } catch (RuntimeException e) {
                    // the drainer ended meanwhile (ESRCH): nothing to rescue
                }
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
                if (deferring) {
                    if (arena == null) {
                        int fd = -1;
                        if (spooling) {
                            try {
                                fd = spool.file(cpu);
                            } catch (IOException e) {
                                spoolFailure = e.getMessage(); // this CPU's pages in memory, as without a spool
                            }
                        }
                        arena = fd >= 0 ? new ReadAhead.Arena(layout.subBufferSize(), layout.kernel().byteOrder(), fd,
                                spool::reserve)
                                : new ReadAhead.Arena(layout.subBufferSize(), layout.kernel().byteOrder());
                    }
                    Page fresh = new Page(arena.page(stashPages - pagesAllocated + 1));
                    arenaBytes = arena.mappedBytes();
                    return fresh;
                }
                return new Page(layout.subBufferSize(), layout.kernel().byteOrder());
            }
            while (failure.get() == null) {
                heartbeat = System.nanoTime(); // waiting for the emitter is not being starved
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

        /** Emitter: true when the current page has a record left to emit. */
        boolean hasRecord() {
            return hasHead;
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
                Mark m = (Mark) o;
                if (m.last) {
                    finished = true;
                    release();
                    return;
                }
                watermark = Math.max(watermark, m.time);
            }
        }

        /**
         * Emitter: gives the current page back to the drainer's pool; while tracing, a read-ahead page
         * beyond {@link ReadAhead#KEEP_FREE} of free pages also gives its memory back to the kernel.
         */
        void release() {
            if (page != null) {
                if (spooling) {
                    // the slot keeps the records until their frames are on the file (a kill before
                    // that leaves them for recover)
                    page.durableAt = frames.eventsHanded();
                    notDurable.add(page);
                    page = null;
                    reclaim();
                    return;
                }
                free(page);
                page = null;
            }
        }

        /** Emitter: a page back to the pool (and, beyond {@link ReadAhead#KEEP_FREE}, its memory to the kernel). */
        private void free(Page pg) {
            // a deferring engine's pages all come from the read-ahead
            if (deferring && !stopping && freePages.size() >= keepFree) {
                ReadAhead.Arena.release(pg.buf);
            }
            freePages.add(pg);
        }

        /** Emitter: the pages whose frames are all in the file's whole blocks go back to the pool. */
        void reclaim() {
            if (notDurable.isEmpty()) {
                return;
            }
            long durable = frames.eventsDurable();
            Page pg;
            while ((pg = notDurable.peek()) != null && pg.durableAt <= durable) {
                free(notDurable.poll());
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
            long t = wallClock ? clock.toWallNs(ts) : ts;
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
                unknownEvents.addAndGet(unknown);
                unknown = 0;
            }
        }
    }

    /**
     * A sub-buffer read from the kernel, with its header and lost count. While the emitter has it,
     * it is only read at absolute indexes (the cursor, the frame sink, the record copy).
     */
    private static final class Page {
        final ByteBuffer buf;
        SubBuffer.PageHeader header;
        /** Lost events the drainer attributed to this page (they go before its first record). */
        long lost;
        /** The sink's event count once this page's records were emitted ({@link CpuReader#notDurable}). */
        long durableAt;

        Page(int size, ByteOrder order) {
            buf = ByteBuffer.allocateDirect(size).order(order);
        }

        /** A page over memory of the read-ahead's ({@link ReadAhead.Arena}), in the kernel's byte order. */
        Page(ByteBuffer b) {
            buf = b;
        }
    }

    /**
     * In a CPU's page queue after a read that found its buffer empty: no later record of that CPU is
     * older than {@code time}; {@code last} after the final drain (or a failure).
     */
    private record Mark(long time, boolean last) {
    }

    private void emitLoop() {
        int n = readers.size();
        CpuReader[] rs = readers.toArray(new CpuReader[0]);
        KernelLayout kernel = layout.kernel();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        // deferring (ReadAhead): within the allowance while tracing, until a CPU's pages reach 3/4 of its share
        ReadAhead.Pacer pacer = deferring ? new ReadAhead.Pacer(ReadAhead.EMITTER_CORES, System.nanoTime(),
                threads.getCurrentThreadCpuTime(), IDLE_WAIT_NS) : null;
        long paced = 0;
        try {
            while (true) {
                if (pacer != null && !stopping) {
                    long now = System.nanoTime();
                    if (now - paced >= PACE_CHECK_NS) {
                        paced = now;
                        long park = anyNearlyFull(rs, nearlyFull) ? 0
                                : pacer.parkNanos(now, threads.getCurrentThreadCpuTime());
                        if (park > 0) {
                            // parked until within the allowance again, then work for at least
                            // PACE_CHECK_NS, so wake-ups do not use up the allowance; woken early
                            // (a permit a drainer left while we worked), park again for the rest
                            // (docs/decisions/0010-pacer.md)
                            for (CpuReader r : rs) {
                                r.rescueIfStarved(now);
                            }
                            pacing = true;
                            do {
                                LockSupport.parkNanos(this, park);
                                if (stopping || failure.get() != null || anyNearlyFull(rs, nearlyFull)) {
                                    break; // woken to stop, by a drainer that failed, or to make room
                                }
                                park = pacer.parkNanos(System.nanoTime(), threads.getCurrentThreadCpuTime());
                                // less than PACE_CHECK_NS left after a full park is the wake-up's own
                                // cost: parking for it would cost as much again
                            } while (park >= PACE_CHECK_NS);
                            pacing = false;
                            paced = System.nanoTime();
                            for (CpuReader r : rs) {
                                r.reclaim();
                            }
                            continue;
                        }
                    }
                }
                emitted.lazySet(emittedCount); // published per page or run, not per record
                boolean allFinished = true;
                long bound = Long.MAX_VALUE;
                int best = -1;
                long bestTs = Long.MAX_VALUE;
                for (int i = 0; i < n; i++) {
                    CpuReader r = rs[i];
                    if (!r.hasRecord()) {
                        r.advance();
                        if (!r.hasRecord()) {
                            if (!r.finished) {
                                allFinished = false;
                                bound = Math.min(bound, r.watermark);
                            }
                            continue;
                        }
                    }
                    allFinished = false;
                    long ts = r.head;
                    if (ts < bestTs) {
                        bestTs = ts;
                        best = i;
                    }
                }
                if (best >= 0 && bound == Long.MAX_VALUE) {
                    // every CPU still to be heard from has a record in hand: the steady state at high rates
                    mergeHeads(rs, kernel);
                    continue;
                }
                if (best >= 0 && bestTs <= bound) {
                    // emit a run of the best CPU's records: up to the next head of another CPU (or the bound)
                    long until = bound;
                    for (int i = 0; i < n; i++) {
                        CpuReader o = rs[i];
                        if (i != best && o.hasHead) {
                            until = Math.min(until, o.head);
                        }
                    }
                    CpuReader r = rs[best];
                    do {
                        emit(r, kernel);
                        r.step();
                    } while (r.hasHead && r.head <= until);
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
                    if (spooling && anyNotDurable(rs)) {
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
                // until a drainer queues a page or a mark (it unparks us)
                LockSupport.parkNanos(this, IDLE_WAIT_NS);
            }
            emitted.lazySet(emittedCount);
            notFramed = notFramedCount;
            for (CpuReader r : readers) {
                long after = r.lost.get() - r.lostInFrames;
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
        } catch (Throwable t) {
            fail(t);
        }
    }

    /** True when a CPU has pages whose frames may not be in the file yet. */
    private static boolean anyNotDurable(CpuReader[] rs) {
        for (CpuReader r : rs) {
            if (!r.notDurable.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** True when a CPU's queue holds at least {@code nearlyFull} pages (and marks). */
    private static boolean anyNearlyFull(CpuReader[] rs, int nearlyFull) {
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
    private void mergeHeads(CpuReader[] rs, KernelLayout kernel) throws IOException {
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
            emit(best, kernel);
            best.step();
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

    /** Emits the head record of {@code r} (the cursor stays on it). */
    private void emit(CpuReader r, KernelLayout kernel) throws IOException {
        if (namingOnly[r.headFormat.id() & 0xffff]) {
            r.named++;
            if (frames != null && !aborted) {
                frames.naming(r.page.buf, r.cursor.offset(), r.cursor.length(), r.headFormat,
                        wallClock ? clock.toWallNs(r.head) : r.head);
            }
            return;
        }
        long sequence = r.sequence++;
        if (emittedCount >= limit) {
            return;
        }
        if (aborted) {
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
        for (EventSink s : sinkArray) {
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
