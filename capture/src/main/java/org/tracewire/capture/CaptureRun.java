package org.tracewire.capture;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.Tracefs;
import sun.misc.Signal;

/**
 * One capture from start to summary, as {@code ./tracewire capture} runs it: the {@link Capture}
 * lifecycle plus the command line's part (a delay before tracing, a progress line every second,
 * the stop conditions, a linger of the TAP interface), and cleanup on every path (normal end,
 * Ctrl-C/SIGTERM through a shutdown hook, an exception).
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
     * @param maxFrame   largest Ethernet frame on interfaces, bytes (a pcapng holds any event)
     * @param delayS     seconds to wait between opening the outputs and starting to trace (time to
     *                   point a capture tool at a new interface)
     * @param lingerS    seconds to keep a TAP interface after the last frame, so capture tools on it
     *                   read the tail before the interface disappears
     * @param traceSelf  also record this process's own threads (default false: they are excluded,
     *                   {@link SelfExclusion})
     * @param readAhead  read-ahead of a capture whose outputs are all files, bytes over all CPUs
     *                   ({@link CaptureEngine#readAhead(long)}; {@link CaptureEngine#READ_AHEAD_DEFAULT}
     *                   for {@link ReadAhead#defaultBytes()}, 0 for none)
     * @param scope      the only tasks to record ({@code -P}, a traced command), or null for all
     * @param followNames read {@link TaskNaming}'s events to name tasks as the kernel renames them
     *                   (default); false names them from {@code /proc} and {@code saved_cmdlines} only, and
     *                   every record read is then a frame
     * @param ring       write {@code pcapng} as a ring of files ({@link RingOutput}), or null for one file
     */
    public record Options(List<EventSelection> events, double durationS, long count, String tapName, String sendOn,
                          Path pcapng, int bufferKb, String clock, int maxFrame, double delayS, double lingerS,
                          boolean traceSelf, long readAhead, TaskScope scope, boolean followNames,
                          RingOutput.Spec ring) {
        /** Options that write one pcapng file (no ring). */
        public Options(List<EventSelection> events, double durationS, long count, String tapName, String sendOn,
                       Path pcapng, int bufferKb, String clock, int maxFrame, double delayS, double lingerS,
                       boolean traceSelf, long readAhead, TaskScope scope, boolean followNames) {
            this(events, durationS, count, tapName, sendOn, pcapng, bufferKb, clock, maxFrame, delayS, lingerS, traceSelf,
                    readAhead, scope, followNames, null);
        }

        /** Options that follow task names ({@link TaskNaming}) into one pcapng file. */
        public Options(List<EventSelection> events, double durationS, long count, String tapName, String sendOn,
                       Path pcapng, int bufferKb, String clock, int maxFrame, double delayS, double lingerS,
                       boolean traceSelf, long readAhead, TaskScope scope) {
            this(events, durationS, count, tapName, sendOn, pcapng, bufferKb, clock, maxFrame, delayS, lingerS, traceSelf,
                    readAhead, scope, true, null);
        }

        /** Options that record every task (no {@link TaskScope}). */
        public Options(List<EventSelection> events, double durationS, long count, String tapName, String sendOn,
                       Path pcapng, int bufferKb, String clock, int maxFrame, double delayS, double lingerS,
                       boolean traceSelf, long readAhead) {
            this(events, durationS, count, tapName, sendOn, pcapng, bufferKb, clock, maxFrame, delayS, lingerS, traceSelf,
                    readAhead, null);
        }

        /** Options with the default read-ahead. */
        public Options(List<EventSelection> events, double durationS, long count, String tapName, String sendOn,
                       Path pcapng, int bufferKb, String clock, int maxFrame, double delayS, double lingerS,
                       boolean traceSelf) {
            this(events, durationS, count, tapName, sendOn, pcapng, bufferKb, clock, maxFrame, delayS, lingerS, traceSelf,
                    CaptureEngine.READ_AHEAD_DEFAULT);
        }

        /** Options that exclude this process's threads. */
        public Options(List<EventSelection> events, double durationS, long count, String tapName, String sendOn,
                       Path pcapng, int bufferKb, String clock, int maxFrame, double delayS, double lingerS) {
            this(events, durationS, count, tapName, sendOn, pcapng, bufferKb, clock, maxFrame, delayS, lingerS, false);
        }
    }

    private CaptureRun() {
    }

    /**
     * Once the JVM shuts down (the first Ctrl-C or SIGTERM, whose hook stops the capture): the next
     * SIGINT or SIGTERM aborts the framing that goes on after tracing ({@link Capture#abortFraming()}),
     * so the capture ends at once with what it wrote, the rest counted.
     */
    private static void abortOnSignals(AtomicReference<Capture> running,
                                       PrintWriter progress) {
        for (String name : List.of("INT", "TERM")) {
            try {
                Signal.handle(new Signal(name), s -> {
                    Capture c = running.get();
                    if (c != null && c.abortFraming() && progress != null) {
                        progress.println("capture: framing aborted (second signal): the events not framed yet "
                                + "are counted as lost at the end of the file");
                        progress.flush();
                    }
                });
            } catch (IllegalArgumentException e) {
                // the signal is reserved here: the framing runs to its end
            }
        }
    }

    /**
     * The pcapng file to keep the read-ahead's spool beside ({@link Spool}): a regular file; none for
     * standard output, a FIFO, or when the Java property {@code tracewire.spool} is {@code false}
     * (the read-ahead then stays in memory, as before the spool: a killed capture loses it).
     */
    static Path spoolFor(Path pcapng) {
        if (pcapng == null || FrameOutputs.isStdout(pcapng) || PcapngOutput.isLive(pcapng)
                || "false".equals(System.getProperty("tracewire.spool"))) {
            return null;
        }
        return pcapng;
    }

    private static Capture open(Tracefs top, Options o, CountDownLatch done) throws FilterRejectedException, IOException {
        List<Long> untraced = o.traceSelf() ? List.of() : List.of(ProcessHandle.current().pid());
        return Capture.open(top, o.events(), o.bufferKb(), o.clock(), untraced, session -> {
            session.handOverCleanup(done); // its hook waits for our cleanup below instead of racing it
            if (o.scope() != null) {
                o.scope().apply(session.instance()); // tracing is still off
            }
            if (o.followNames()) {
                session.followTaskNames(); // before the outputs: their context knows these formats
            }
            FrameSink sink = FrameOutputs.open(session, o.tapName(), o.sendOn(), o.pcapng(), o.ring(), o.maxFrame(),
                    FrameOutputs.FileOpener.INVOKING_USER);
            if (sink == null) {
                throw new IllegalArgumentException("no output: give an interface, --send-on or -w FILE");
            }
            return sink;
        }, List.of(), o.count(), o.readAhead(), o.ring() != null ? null : spoolFor(o.pcapng()));
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
    public static Capture.Summary run(Tracefs top, Options o, PrintWriter progress)
            throws FilterRejectedException, IOException, InterruptedException {
        return run(top, o, progress, () -> false);
    }

    /**
     * Runs a capture to its end, or until {@code stopRequested} says so (checked every 50 ms; e.g.
     * standard input reached its end because the SSH connection of a remote capture went away);
     * such a stop drains and closes like the end of {@code --duration}.
     *
     * @param top           the live tracefs
     * @param o             options
     * @param progress      where the progress line goes (stderr), or null
     * @param stopRequested true once the capture should stop
     * @return the summary
     * @throws FilterRejectedException when the kernel refuses a filter
     * @throws IOException             when an output fails
     */
    public static Capture.Summary run(Tracefs top, Options o, PrintWriter progress, BooleanSupplier stopRequested)
            throws FilterRejectedException, IOException, InterruptedException {
        return run(top, o, progress, stopRequested, s -> { });
    }

    /**
     * As {@link #run(Tracefs, Options, PrintWriter, BooleanSupplier)}, handing the summary to
     * {@code report} before the capture lets a pending SIGTERM/Ctrl-C exit go on: the JVM ends as soon
     * as its shutdown hooks return, so a summary printed after {@code run} returns can be lost.
     *
     * @param report receives the summary once the capture has drained (e.g. prints the closing line)
     */
    public static Capture.Summary run(Tracefs top, Options o, PrintWriter progress, BooleanSupplier stopRequested,
                                      Consumer<Capture.Summary> report)
            throws FilterRejectedException, IOException, InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Capture> running = new AtomicReference<>();
        Thread hook = new Thread(() -> {
            stop.set(true);
            // a second Ctrl-C or SIGTERM while the capture drains and frames what it read: stop framing
            abortOnSignals(running, progress);
            try {
                done.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }, "tracewire-capture-stop");
        // before anything is opened: a SIGTERM during the start still ends in a drain and closed outputs
        Runtime.getRuntime().addShutdownHook(hook);
        warnFeedback(o, progress);
        try (Capture capture = open(top, o, done)) {
            running.set(capture);
            FrameSink sink = capture.frameSink();
            waitDelay(o, sink, progress, () -> stop.get() || stopRequested.getAsBoolean());
            capture.startTracing();
            if (o.scope() != null) {
                o.scope().tracingStarted();
            }
            traceUntilStopped(capture, o, progress, stop, stopRequested);
            Capture.Summary summary = capture.drain();
            report.accept(summary);
            if (o.tapName() != null && o.lingerS() > 0 && !stop.get()) {
                Thread.sleep((long) (o.lingerS() * 1000));
            }
            return summary;
        } finally {
            done.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // shutting down: the hook is waiting for us
            }
        }
    }

    /** Prints the warnings of a capture that would record its own output (feedback). */
    private static void warnFeedback(Options o, PrintWriter progress) {
        if (progress != null) {
            for (String w : SelfExclusion.feedbackWarnings(o.events(), o.traceSelf(),
                    o.tapName() != null || o.sendOn() != null)) {
                progress.println("capture: warning: " + w);
            }
            progress.flush();
        }
    }

    /** Waits {@code --delay} after the outputs opened (time to start a capture tool), unless stopped. */
    private static void waitDelay(Options o, FrameSink sink, PrintWriter progress, BooleanSupplier stopped)
            throws InterruptedException {
        if (o.delayS() > 0) {
            if (progress != null) {
                progress.printf(Locale.ROOT, "capture: outputs open (%s); tracing starts in %.1f s%n",
                        String.join(", ", sink.outputs().stream().map(FrameOutput::describe).toList()), o.delayS());
                progress.flush();
            }
            long until = System.nanoTime() + (long) (o.delayS() * 1e9);
            while (!stopped.getAsBoolean() && System.nanoTime() < until) {
                Thread.sleep(20);
            }
        }
    }

    /**
     * Traces until a stop: a signal ({@code stop}), {@code stopRequested}, the duration or count
     * reached, or a failed output; prints the progress line every second and warns once when the
     * spool takes no more pages.
     */
    private static void traceUntilStopped(Capture capture, Options o, PrintWriter progress, AtomicBoolean stop,
                                          BooleanSupplier stopRequested) throws InterruptedException {
        FrameSink sink = capture.frameSink();
        long start = System.nanoTime();
        long lastPrint = start;
        long lastCount = 0;
        boolean spoolWarned = false;
        while (!stop.get()) {
            Thread.sleep(50);
            long now = System.nanoTime();
            double secs = (now - start) / 1e9;
            // an output that failed (full disk, a reader gone) ends the tracing, as an error did before
            if (capture.failure() != null || !capture.outputFailures().isEmpty() || stopRequested.getAsBoolean() || (o.durationS() > 0 && secs >= o.durationS())
                    || (o.count() > 0 && capture.emitted() >= o.count())) {
                break;
            }
            String spoolFull = spoolWarned || progress == null ? null : capture.spoolFailure();
            if (spoolFull != null) {
                spoolWarned = true;
                progress.println("capture: warning: the spool beside the file takes no more pages (" + spoolFull
                        + "): the read-ahead goes on in memory, which a killed capture would lose");
                progress.flush();
            }
            if (progress != null && now - lastPrint >= 1_000_000_000L) {
                long n = capture.emitted();
                long lost = capture.kernelLost();
                long readAhead = capture.readAheadMapped();
                progress.printf(Locale.ROOT, "capture: %.0f s, %d events (%.0f/s), %d frames, lost %d%s%n", secs, n,
                        (n - lastCount) / ((now - lastPrint) / 1e9), sink.frames(), lost, readAhead == 0 ? ""
                                : ", read-ahead " + (readAhead >> 20) + " MiB (framed after tracing)");
                progress.flush();
                lastPrint = now;
                lastCount = n;
            }
        }
    }
}
