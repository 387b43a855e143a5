package org.tracewire.capture;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.Tracefs;

/**
 * One capture's lifecycle, the same for {@code ./tracewire capture} ({@link CaptureRun}) and the
 * desktop app's backend ({@code BackendServer}):
 *
 * <ol>
 *   <li>{@link #open}: the tracefs instance and its settings ({@link CaptureSession}: filters
 *       verified before anything is enabled, clock measured), the frame outputs, the engine's
 *       reader and emitter threads; tracing is still off;</li>
 *   <li>{@link #startTracing()}: {@code tracing_on} = 1;</li>
 *   <li>{@link #drain()}: tracing off, every CPU buffer drained until EAGAIN, everything emitted;
 *       the {@link Summary} is taken here;</li>
 *   <li>{@link #close()}: the outputs and record sinks closed, the instance removed. Closing
 *       without a drain (an error path) stops the engine first, ignoring its errors.</li>
 * </ol>
 *
 * <p>Counters ({@link #emitted()}, {@link #cpuStats()}, {@link #frames()}, {@link #bytes()}) may
 * be read from any thread at any time. The lifecycle methods are called from one thread.
 */
public final class Capture implements AutoCloseable {
    /** Opens a capture's frame outputs once its session exists. */
    @FunctionalInterface
    public interface Outputs {
        /**
         * @param session the capture's session (events, clock)
         * @return the frame sink, or null for no frame output (records only)
         * @throws IOException when an output cannot be opened
         */
        FrameSink open(CaptureSession session) throws IOException;
    }

    /**
     * The outcome of a capture, taken at the end of {@link #drain()}.
     *
     * @param seconds    capture time, from {@link #startTracing()} to the end of the drain
     * @param read       records read from the ring buffers ({@code namingRead} included)
     * @param emitted    events handed to the outputs
     * @param frames     frames written: one per event, plus the context frames ({@code contextFrames})
     * @param contextFrames context frames written (CAPTURE, FORMAT, SYMBOLS, PROCESS, LOST; repeats included)
     * @param bytes      frame bytes written (bare frames, per output)
     * @param cpus       per-CPU counters
     * @param cpuSeconds CPU time this process used from {@link #startTracing()} to the end of the drain
     *                   (user + system, s), startup excluded
     * @param tracingSeconds    the tracing window: from {@link #startTracing()} to tracing off, s
     * @param tracingCpuSeconds CPU time this process used in the tracing window (user + system, s)
     * @param readAheadBytes    read-ahead memory the capture mapped ({@link ReadAhead}), bytes; 0 when it
     *                          framed the events while tracing
     * @param outputFailures    outputs that failed during the capture and were dropped (out of disk, a
     *                          broken pipe, a stalled reader), empty when none did
     * @param notWritten        events read but not written: to an output that failed (the most of any),
     *                          plus {@code notFramed}
     * @param notFramed         events read but not framed because a second signal aborted the framing
     * @param outputs           each output's description and the frames it holds or sent ("file F 8801 frames")
     * @param namingRead        of {@code read}, the records read only to follow task names ({@link TaskNaming})
     */
    public record Summary(double seconds, long read, long emitted, long frames, long contextFrames, long bytes,
                          List<CpuStats> cpus, double cpuSeconds, double tracingSeconds, double tracingCpuSeconds,
                          long readAheadBytes, List<OutputFailure> outputFailures, long notWritten,
                          long notFramed, List<String> outputs, long namingRead) {
        public Summary {
            outputFailures = List.copyOf(outputFailures);
            outputs = List.copyOf(outputs);
        }
        /** Events lost, all CPUs (exact: reconciled with the kernel's per-CPU stats). */
        public long lost() {
            return cpus.stream().mapToLong(CpuStats::lost).sum();
        }

        /** Every CPU's records read + lost equal the kernel's count ({@link CpuStats#agreesWithKernel()}). */
        public boolean agreesWithKernel() {
            return cpus.stream().allMatch(CpuStats::agreesWithKernel);
        }

        /** The closing summary line of {@code ./tracewire capture} ({@link SummaryLine}). */
        public String describe() {
            return SummaryLine.of(this);
        }
    }

    private final CaptureSession session;
    private final CaptureEngine engine;
    private final FrameSink frames;
    private final List<EventSink> sinks;
    private volatile long startNanos = System.nanoTime();
    private volatile long endNanos;
    private double cpuStart;
    private boolean drained;
    private boolean closed;
    /** The on-disk read-ahead, deleted by {@link #close()}; null when there is none. */
    private Spool spool;
    private Summary summary;

    private Capture(CaptureSession session, CaptureEngine engine, FrameSink frames, List<EventSink> sinks) {
        this.session = session;
        this.engine = engine;
        this.frames = frames;
        this.sinks = sinks;
    }

    /**
     * Creates the session, opens the outputs and starts the engine's threads; tracing stays off
     * until {@link #startTracing()}. On any failure everything opened so far is closed and the
     * instance removed.
     *
     * @param top      the live tracefs
     * @param events   what to capture (at least one)
     * @param bufferKb per-CPU ring buffer size in KiB, or 0 for the kernel's
     * @param clock    trace clock, or null for the kernel's
     * @param outputs  opens the frame outputs (may return null: records only)
     * @param sinks    record sinks, fed on the emitter thread (e.g. the app's stream); closed by {@link #close()}
     * @param count    emit at most this many events (0: no limit)
     * @return the open capture
     * @throws FilterRejectedException when the kernel refuses a filter (nothing is left behind)
     * @throws IOException             when an output or a {@code trace_pipe_raw} cannot be opened
     */
    public static Capture open(Tracefs top, List<EventSelection> events, int bufferKb, String clock, Outputs outputs,
                               List<EventSink> sinks, long count) throws FilterRejectedException, IOException {
        return open(top, events, bufferKb, clock, List.of(ProcessHandle.current().pid()), outputs, sinks, count);
    }

    /**
     * Like {@link #open(Tracefs, List, int, String, Outputs, List, long)}, with the processes whose
     * threads the capture must not record ({@link CaptureSession#open(Tracefs, List, int, String, List)};
     * the other overload excludes this process).
     *
     * @param untraced process ids to exclude (all their threads, now and later); empty: trace everything
     */
    public static Capture open(Tracefs top, List<EventSelection> events, int bufferKb, String clock,
                               List<Long> untraced, Outputs outputs, List<EventSink> sinks, long count)
            throws FilterRejectedException, IOException {
        return open(top, events, bufferKb, clock, untraced, outputs, sinks, count, CaptureEngine.READ_AHEAD_DEFAULT);
    }

    /**
     * Like {@link #open(Tracefs, List, int, String, List, Outputs, List, long)}, with the read-ahead
     * a capture whose outputs are all files may hold while its emitter defers its work
     * ({@link CaptureEngine#readAhead(long)}, {@link ReadAhead}).
     *
     * @param readAhead bytes over all CPUs; {@link CaptureEngine#READ_AHEAD_DEFAULT} for the default, 0 for none
     */
    public static Capture open(Tracefs top, List<EventSelection> events, int bufferKb, String clock,
                               List<Long> untraced, Outputs outputs, List<EventSink> sinks, long count, long readAhead)
            throws FilterRejectedException, IOException {
        return open(top, events, bufferKb, clock, untraced, outputs, sinks, count, readAhead, null);
    }

    /**
     * Like {@link #open(Tracefs, List, int, String, List, Outputs, List, long, long)}, with the read-ahead
     * kept on disk beside the pcapng file ({@link Spool}) when the capture defers its framing and that
     * file is its one output: a capture killed at any moment then loses at most what
     * docs/capture-recovery.md states, the rest framed by {@code tracewire recover}.
     *
     * @param spoolFor the pcapng file to keep a spool beside, or null for none
     */
    public static Capture open(Tracefs top, List<EventSelection> events, int bufferKb, String clock,
                               List<Long> untraced, Outputs outputs, List<EventSink> sinks, long count, long readAhead,
                               Path spoolFor) throws FilterRejectedException, IOException {
        CaptureSession session = CaptureSession.open(top, events, bufferKb, clock, untraced);
        FrameSink frames = null;
        Spool spool = null;
        try {
            frames = outputs.open(session);
            List<EventSelection> read = new ArrayList<>(session.events());
            read.addAll(session.namingEvents());
            Map<Integer, EventFormat> formats = frames != null && frames.context() != null
                    ? frames.context().formats() : CaptureFormats.of(top, EventSelection.recorded(read));
            if (frames != null) {
                // tracing is off: the JIT compiles the per-record code now, not in the first traced second
                WarmUp.run(session.layout(), formats, session.clock(), frames.context(),
                        List.copyOf(session.instance().cpus()), WarmUp.DEFAULT_NS);
            }
            CaptureEngine engine = new CaptureEngine(session.instance(), session.layout(), formats,
                    session.clock(), frames, sinks);
            if (count > 0) {
                engine.limit(count);
            }
            engine.namingOnly(CaptureFormats.namingIds(formats, session.namingEvents()));
            engine.readAhead(readAhead);
            if (spoolFor != null && frames != null && frames.outputs().size() == 1
                    && frames.outputs().get(0) instanceof PcapngOutput p && p.regularFile() && sinks.isEmpty()
                    && count <= 0 && readAhead != 0) {
                spool = Spool.create(spoolFor);
                engine.spool(spool);
            }
            engine.start();
            if (spool != null && !engine.spooling()) {
                spool.delete();
                spool = null;
            } else if (spool != null) {
                spool.writeHeader(Spool.Header.of(session, frames, engine));
                if (session.watchdog() != null) {
                    session.watchdog().spool(spool.dir()); // on our death it saves the kernel's tail there
                }
            }
            Capture c = new Capture(session, engine, frames, List.copyOf(sinks));
            c.spool = spool;
            return c;
        } catch (IOException | RuntimeException e) {
            closeAll(frames, sinks, e);
            if (spool != null) {
                try {
                    spool.delete();
                } catch (IOException ex) {
                    e.addSuppressed(ex);
                }
            }
            try {
                session.close();
            } catch (RuntimeException ex) {
                e.addSuppressed(ex);
            }
            throw e;
        }
    }

    private static double processCpuSeconds() {
        return ProcessHandle.current().info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0);
    }

    /** Turns tracing on; the capture's time starts now. */
    public void startTracing() {
        session.start();
        startNanos = System.nanoTime();
        cpuStart = processCpuSeconds();
    }

    /**
     * Turns tracing off, drains every buffer and emits what remains; takes the {@link #summary()}.
     * Idempotent.
     *
     * @throws IOException when a reader or an output failed during the capture
     */
    public Summary drain() throws IOException, InterruptedException {
        if (drained) {
            return summary;
        }
        drained = true;
        session.stop();
        long tracingEnd = System.nanoTime();
        double tracingCpu = processCpuSeconds() - cpuStart;
        Thread guard = stallGuard();
        try {
            engine.stop();
        } finally {
            guard.interrupt();
            endNanos = System.nanoTime();
            double secs = (endNanos - startNanos) / 1e9;
            List<CpuStats> cpus = engine.stats();
            long read = cpus.stream().mapToLong(CpuStats::records).sum();
            summary = new Summary(secs, read, engine.emitted(), frames(), frames == null ? 0 : frames.contextFrames(),
                    bytes(), cpus, processCpuSeconds() - cpuStart, (tracingEnd - startNanos) / 1e9, tracingCpu,
                    engine.readAheadMapped(), frames == null ? List.of() : frames.failures(),
                    (frames == null ? 0 : frames.notWritten()) + engine.notFramed(), engine.notFramed(),
                    frames == null ? List.of() : frames.outputs().stream()
                            .map(FrameOutput::held).toList(), cpus.stream().mapToLong(CpuStats::named).sum());
        }
        return summary;
    }

    /**
     * How long the end of a capture waits for a live output's reader (a pipe, a FIFO) that takes
     * nothing, before it gives up on that output (counting what it did not write): property
     * {@code tracewire.outputStallSeconds}, default 5 s.
     */
    static final long STALL_NS = (long) (Double.parseDouble(System.getProperty("tracewire.outputStallSeconds", "5"))
            * 1e9);

    /**
     * After tracing stopped: a daemon thread that watches the engine's progress (events emitted,
     * bytes written) while it drains, and gives up on the live outputs when nothing moved for
     * {@link #STALL_NS} ({@link FrameSink#abandonStalled}): a reader that stopped reading must not
     * hold the capture, its summary and the instance's removal hostage. Interrupt it to end it.
     */
    private Thread stallGuard() {
        Thread t = new Thread(() -> {
            long last = -1;
            long since = System.nanoTime();
            try {
                while (frames != null) {
                    Thread.sleep(100);
                    long progress = engine.emitted() + frames.bytes();
                    long now = System.nanoTime();
                    if (progress != last) {
                        last = progress;
                        since = now;
                    } else if (now - since >= STALL_NS) {
                        frames.abandonStalled(String.format(Locale.ROOT, "its reader took nothing for %.0f s",
                                STALL_NS / 1e9));
                        since = now;
                    }
                }
            } catch (InterruptedException e) {
                // the drain is over
            }
        }, "tracewire-stall-guard");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * Why the spool stopped taking pages ({@link CaptureEngine#spoolFailure()}: its share of the
     * disk used up, or the disk full; those pages live in memory and a kill would lose them), or null.
     */
    public String spoolFailure() {
        return engine.spooling() ? engine.spoolFailure() : null;
    }

    /**
     * Stops framing: the events the engine has read and not emitted yet are only counted from now
     * on ({@link CaptureEngine#abort()}); the drain still empties the kernel's buffers, so every
     * loss stays counted. For a second Ctrl-C while a capture frames its read-ahead. Any thread.
     *
     * @return true when this call aborted it (false: already aborted)
     */
    public boolean abortFraming() {
        return engine.abort();
    }

    /**
     * Events the kernel lost so far in this capture's instance, all CPUs, read from its per-CPU
     * {@code stats} now (overrun + commit overrun + dropped since the start): what the progress line
     * shows, since the engine attributes a loss only when it reads the next page (which a stalled
     * output can hold up).
     */
    public long kernelLost() {
        return engine.kernelLost();
    }

    /** The summary taken by {@link #drain()}, or null before it. */
    public Summary summary() {
        return summary;
    }

    /** The session (its instance, events, clock). */
    public CaptureSession session() {
        return session;
    }

    /** The frame outputs, or null when there are none. */
    public FrameSink frameSink() {
        return frames;
    }

    /**
     * Bytes of read-ahead mapped so far ({@link CaptureEngine#readAheadMapped()}): 0 unless the
     * capture frames its events after tracing ({@link ReadAhead}).
     */
    public long readAheadMapped() {
        return engine.readAheadMapped();
    }

    /** The first error a reader or the emitter hit, or null. */
    public Throwable failure() {
        return engine.failure();
    }

    /**
     * Outputs that failed and were dropped so far ({@link FrameSink#failures()}; empty when none):
     * a capture stops tracing when one fails (its owner checks), the summary then says what each holds.
     */
    public List<OutputFailure> outputFailures() {
        return frames == null ? List.of() : frames.failures();
    }

    /** Events handed to the outputs so far. */
    public long emitted() {
        return engine.emitted();
    }

    /** Per-CPU counters so far. */
    public List<CpuStats> cpuStats() {
        return engine.stats();
    }

    /** Frames written so far (0 without frame outputs). */
    public long frames() {
        return frames == null ? 0 : frames.frames();
    }

    /** Frame bytes written so far, per output (0 without frame outputs). */
    public long bytes() {
        return frames == null ? 0 : frames.bytes();
    }

    /** Seconds since {@link #startTracing()} (since {@link #open} before it), up to the end of the drain. */
    public double seconds() {
        long end = endNanos != 0 ? endNanos : System.nanoTime();
        return (end - startNanos) / 1e9;
    }

    /**
     * Closes the outputs and record sinks and removes the instance; without a {@link #drain()}
     * before, stops the engine first (its errors ignored: the error that led here is the one to
     * report). Idempotent.
     *
     * @throws IOException when closing an output failed (the first failure; the instance is removed anyway)
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (!drained) {
            drained = true;
            // the readers must let go of trace_pipe_raw before the instance can be removed
            try {
                session.stop();
                engine.stop();
            } catch (IOException | RuntimeException ignored) {
                // the error that brought us here is the one reported
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        IOException first = closeAll(frames, sinks, null);
        if (spool != null) {
            // the file holds every frame it can (or the output failed and nothing more can go there)
            try {
                spool.delete();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        session.close();
        if (first != null) {
            throw first;
        }
    }

    /** Closes a frame sink and record sinks (either may be null/empty); returns the first failure, others suppressed. */
    private static IOException closeAll(FrameSink frames, List<EventSink> sinks, Exception primary) {
        List<AutoCloseable> all = new ArrayList<>();
        all.add(frames);
        all.addAll(sinks);
        IOException first = null;
        for (AutoCloseable s : all) {
            if (s == null) {
                continue;
            }
            try {
                s.close();
            } catch (Exception e) {
                if (primary != null) {
                    primary.addSuppressed(e);
                } else if (first == null) {
                    first = e instanceof IOException io ? io : new IOException(e.toString(), e);
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        return first;
    }
}
