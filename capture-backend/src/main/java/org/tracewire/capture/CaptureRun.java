package org.tracewire.capture;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.tracewire.format.FormatCatalog;
import org.tracewire.tracefs.Tracefs;

/**
 * One capture from start to summary, as {@code ./tracewire capture} runs it: session, outputs,
 * engine, a progress line every second, and cleanup on every path (normal end, Ctrl-C/SIGTERM
 * through a shutdown hook, an exception).
 */
public final class CaptureRun {
    /**
     * What to capture and where.
     *
     * @param events     events and filters
     * @param durationS  stop after this many seconds (0: no limit)
     * @param count      stop after this many events (0: no limit)
     * @param tapName    TAP interface to create, or null
     * @param sendOn     existing interface to send on, or null
     * @param pcapng     pcapng file to write, or null
     * @param bufferKb   per-CPU buffer size, 0 for the default
     * @param clock      trace clock, e.g. {@code mono}
     * @param maxFrame   largest frame in bytes
     * @param delayS     seconds to wait between opening the outputs and starting to trace (time to
     *                   point a capture tool at a new interface)
     * @param lingerS    seconds to keep a TAP interface after the last frame, so capture tools on it
     *                   read the tail before the interface disappears
     */
    public record Options(List<EventSelection> events, double durationS, long count, String tapName, String sendOn,
                          Path pcapng, int bufferKb, String clock, int maxFrame, double delayS, double lingerS) {
    }

    /**
     * The outcome.
     *
     * @param seconds  capture time
     * @param read     records read from the ring buffers
     * @param emitted  events handed to the outputs
     * @param frames   frames written
     * @param bytes    frame bytes written (per output)
     * @param cpus     per-CPU counters
     * @param cpuSeconds CPU time this process used while tracing (user + system, s), startup excluded
     */
    public record Summary(double seconds, long read, long emitted, long frames, long bytes, List<CpuStats> cpus,
                          double cpuSeconds) {
        /** Events the kernel dropped and counted, all CPUs. */
        public long lostKnown() {
            return cpus.stream().mapToLong(CpuStats::lostKnown).sum();
        }

        /** Sub-buffers that reported an uncounted loss, all CPUs. */
        public long lostUnknownPages() {
            return cpus.stream().mapToLong(CpuStats::lostUnknownPages).sum();
        }

        /** The closing summary line(s). */
        public String describe() {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                    "capture: %.1f s, %d events read, %d frames emitted (%d bytes), lost events:", seconds, read,
                    frames, bytes));
            for (CpuStats c : cpus) {
                sb.append(String.format(Locale.ROOT, " cpu%d %d%s", c.cpu(), c.lostKnown(),
                        c.lostUnknownPages() > 0 ? " (+ unknown in " + c.lostUnknownPages() + " pages)" : ""));
            }
            sb.append(String.format(Locale.ROOT, ", cpu %.0f%% of one core", seconds > 0 ? cpuSeconds / seconds * 100 : 0));
            return sb.toString();
        }
    }

    private static double processCpuSeconds() {
        return ProcessHandle.current().info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0);
    }

    private CaptureRun() {
    }

    /**
     * Runs a capture to its end.
     *
     * @param top      the live tracefs
     * @param o        options
     * @param progress where the progress line goes (stderr), or null
     * @return the summary
     * @throws FilterRejectedException when the kernel refuses a filter
     * @throws IOException             when an output fails
     */
    public static Summary run(Tracefs top, Options o, PrintWriter progress)
            throws FilterRejectedException, IOException, InterruptedException {
        FormatCatalog catalog = top.formats();
        CaptureSession session = CaptureSession.open(top, o.events(), o.bufferKb(), o.clock());
        CaptureEngine engine = null;
        FrameSink sink = null;
        CountDownLatch done = new CountDownLatch(1);
        AtomicBoolean stop = new AtomicBoolean();
        Thread hook = new Thread(() -> {
            stop.set(true);
            try {
                done.await(java.util.concurrent.TimeUnit.SECONDS.toMillis(10),
                        java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }, "tracewire-capture-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        long start = System.nanoTime();
        try {
            sink = FrameOutputs.open(catalog, session, o.tapName(), o.sendOn(), o.pcapng(), o.maxFrame());
            if (sink == null) {
                throw new IllegalArgumentException("no output: give an interface, --send-on or -w FILE");
            }
            engine = new CaptureEngine(session.instance(), session.layout(), catalog.byId(), session.clock(),
                    sink, List.of());
            if (o.count() > 0) {
                engine.limit(o.count());
            }
            engine.start();
            if (o.delayS() > 0) {
                if (progress != null) {
                    progress.printf(Locale.ROOT, "capture: outputs open (%s); tracing starts in %.1f s%n",
                            String.join(", ", sink.outputs().stream().map(FrameOutput::describe).toList()), o.delayS());
                    progress.flush();
                }
                long until = System.nanoTime() + (long) (o.delayS() * 1e9);
                while (!stop.get() && System.nanoTime() < until) {
                    Thread.sleep(20);
                }
            }
            session.start();
            start = System.nanoTime();
            double cpuStart = processCpuSeconds();
            long lastPrint = start;
            long lastCount = 0;
            while (!stop.get()) {
                Thread.sleep(50);
                long now = System.nanoTime();
                double secs = (now - start) / 1e9;
                if (engine.failure() != null || (o.durationS() > 0 && secs >= o.durationS())
                        || (o.count() > 0 && engine.emitted() >= o.count())) {
                    break;
                }
                if (progress != null && now - lastPrint >= 1_000_000_000L) {
                    long n = engine.emitted();
                    long lost = engine.stats().stream().mapToLong(CpuStats::lostKnown).sum();
                    progress.printf(Locale.ROOT, "capture: %.0f s, %d events (%.0f/s), %d frames, lost %d%n", secs, n,
                            (n - lastCount) / ((now - lastPrint) / 1e9), sink.frames(), lost);
                    progress.flush();
                    lastPrint = now;
                    lastCount = n;
                }
            }
            session.stop();
            CaptureEngine finished = engine;
            engine = null;
            finished.stop();
            double secs = (System.nanoTime() - start) / 1e9;
            double cpu = processCpuSeconds() - cpuStart;
            if (o.tapName() != null && o.lingerS() > 0 && !stop.get()) {
                Thread.sleep((long) (o.lingerS() * 1000));
            }
            long read = finished.stats().stream().mapToLong(CpuStats::records).sum();
            return new Summary(secs, read, finished.emitted(), sink.frames(), sink.bytes(), finished.stats(), cpu);
        } finally {
            if (engine != null) {
                // an error before the normal stop: the readers must let go of trace_pipe_raw first
                session.stop();
                try {
                    engine.stop();
                } catch (IOException | RuntimeException ignored) {
                    // the error that brought us here is the one reported
                }
            }
            IOException closeError = null;
            if (sink != null) {
                try {
                    sink.close();
                } catch (IOException e) {
                    closeError = e;
                }
            }
            session.close();
            done.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // shutting down: the hook is waiting for us
            }
            if (closeError != null) {
                throw closeError;
            }
        }
    }
}
