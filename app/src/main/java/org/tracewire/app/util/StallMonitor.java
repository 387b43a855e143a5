package org.tracewire.app.util;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * How long the UI thread keeps a task waiting: a heartbeat posted to it (for JavaFX
 * {@code Platform::runLater}) every period, one at a time; each heartbeat's wait, from its post to
 * its run, is a stall of the UI thread (its work plus the queue before it). Records the longest
 * wait, when it ended, how many waits were over a threshold, and, given the UI thread's CPU clock,
 * the CPU time that thread used during the longest wait: near the wait, the UI thread's own work
 * held it; far below, the thread waited for a CPU (a loaded machine) or for the garbage collector.
 * Any thread reads the figures; a heartbeat still waiting counts with its age so far. With
 * {@link #sampleOver}, a heartbeat that has waited long has the UI thread's stack told at each
 * period it still waits (what the thread does during a stall). For benchmarks
 * ({@code TRACEWIRE_TIMING=1}), not a timed assertion. A part of the run (a live capture's) has
 * its own figures from the same heartbeats through {@link #window}: one monitor, one heartbeat.
 */
public final class StallMonitor implements AutoCloseable {
    private final Executor ui;
    private final LongSupplier nanos;
    private final LongSupplier uiCpuNanos;
    private final long thresholdNs;
    private final AtomicBoolean waiting = new AtomicBoolean();
    private volatile long postedAt;
    private volatile long postedCpu;
    private long longestNs;
    private long longestCpuNs;
    private long longestEndedAt;
    private long over;
    private long beats;
    private ScheduledExecutorService timer;
    private volatile Thread sampled;
    private volatile long sampleNs;
    private volatile Consumer<String> samples;
    private final List<Window> windows = new ArrayList<>();

    /**
     * @param ui          runs a task on the UI thread ({@code Platform::runLater})
     * @param nanos       a monotonic clock in ns ({@code System::nanoTime})
     * @param thresholdMs a wait longer than this counts as a stall ({@link #stallsOver()})
     */
    public StallMonitor(Executor ui, LongSupplier nanos, long thresholdMs) {
        this(ui, nanos, () -> 0, thresholdMs);
    }

    /**
     * @param ui          runs a task on the UI thread ({@code Platform::runLater})
     * @param nanos       a monotonic clock in ns ({@code System::nanoTime})
     * @param uiCpuNanos  the UI thread's CPU time in ns ({@code ThreadMXBean.getThreadCpuTime(id)})
     * @param thresholdMs a wait longer than this counts as a stall ({@link #stallsOver()})
     */
    public StallMonitor(Executor ui, LongSupplier nanos, LongSupplier uiCpuNanos, long thresholdMs) {
        this.ui = ui;
        this.nanos = nanos;
        this.uiCpuNanos = uiCpuNanos;
        this.thresholdNs = TimeUnit.MILLISECONDS.toNanos(thresholdMs);
    }

    /**
     * Posts heartbeats every {@code periodMs} from a daemon thread until {@link #close()}.
     *
     * @param periodMs the period in ms (50 gives the longest stall within 50 ms)
     * @return this
     */
    public synchronized StallMonitor start(long periodMs) {
        if (timer == null) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "tracewire-stall-monitor");
                t.setDaemon(true);
                return t;
            });
            timer.scheduleAtFixedRate(this::beat, 0, periodMs, TimeUnit.MILLISECONDS);
        }
        return this;
    }

    /**
     * Tells the UI thread's stack whenever a heartbeat has waited longer than {@code afterMs}, at
     * each period it still waits: one line, {@code stall sample: waited N ms, UI thread STATE at
     * frame < caller < ...} (innermost first, at most {@code depth} frames).
     *
     * @param uiThread the UI thread
     * @param afterMs  a wait longer than this is sampled
     * @param out      receives the lines (the heartbeat thread)
     * @return this
     */
    public StallMonitor sampleOver(Thread uiThread, long afterMs, Consumer<String> out) {
        this.sampleNs = TimeUnit.MILLISECONDS.toNanos(afterMs);
        this.samples = out;
        this.sampled = uiThread;
        return this;
    }

    /** Posts one heartbeat unless the previous one still waits (any thread). */
    public void beat() {
        if (!waiting.compareAndSet(false, true)) {
            sample();
            return;
        }
        long at = nanos.getAsLong();
        long cpu = uiCpuNanos.getAsLong();
        postedAt = at;
        postedCpu = cpu;
        ui.execute(() -> ran(at, cpu));
    }

    /** A heartbeat still waits: the UI thread's stack when it has waited long enough. */
    private void sample() {
        Thread t = sampled;
        long age = nanos.getAsLong() - postedAt;
        if (t == null || age <= sampleNs) {
            return;
        }
        StackTraceElement[] stack = t.getStackTrace();
        StringBuilder line = new StringBuilder(String.format("stall sample: waited %d ms, UI thread %s at ",
                TimeUnit.NANOSECONDS.toMillis(age), t.getState()));
        for (int i = 0; i < Math.min(stack.length, 40); i++) {
            line.append(i == 0 ? "" : " < ").append(stack[i]);
        }
        samples.accept(line.toString());
    }

    private void ran(long at, long cpu) {
        long now = nanos.getAsLong();
        record(now - at, uiCpuNanos.getAsLong() - cpu, now);
        waiting.set(false);
    }

    private synchronized void record(long waitNs, long cpuNs, long now) {
        for (Window w : windows) {
            w.record(waitNs, cpuNs);
        }
        beats++;
        if (waitNs > thresholdNs) {
            over++;
        }
        if (waitNs > longestNs) {
            longestNs = waitNs;
            longestCpuNs = cpuNs;
            longestEndedAt = now;
        }
    }

    /** The UI thread's CPU time during the longest wait that ended, ms (0 without its CPU clock). */
    public synchronized long longestCpuMs() {
        return TimeUnit.NANOSECONDS.toMillis(longestCpuNs);
    }

    /** The longest wait so far in ms, a heartbeat still waiting included. */
    public synchronized long longestMs() {
        long pending = waiting.get() ? nanos.getAsLong() - postedAt : 0;
        return TimeUnit.NANOSECONDS.toMillis(Math.max(longestNs, pending));
    }

    /** Heartbeats that waited longer than the threshold. */
    public synchronized long stallsOver() {
        return over;
    }

    /** Heartbeats that ran. */
    public synchronized long beats() {
        return beats;
    }

    /** The clock's time ({@code nanos}) when the longest wait ended, 0 before any. */
    public synchronized long longestEndedAt() {
        return longestEndedAt;
    }

    /**
     * One line: {@code longest UI-thread stall N ms (the thread ran C ms of it); W waits over T ms of
     * B heartbeats}.
     *
     * @return the line
     */
    public synchronized String summary() {
        long pending = waiting.get() ? nanos.getAsLong() - postedAt : 0;
        return line(Math.max(longestNs, pending), longestCpuNs, over, beats);
    }

    /**
     * Opens a window: the figures of the heartbeats that end from now until its {@link Window#close}.
     *
     * @return the window, open
     */
    public synchronized Window window() {
        Window w = new Window();
        windows.add(w);
        return w;
    }

    /** The figures of a part of the monitor's run ({@link #window}); read and closed from any thread. */
    public final class Window {
        private long wLongestNs;
        private long wLongestCpuNs;
        private long wOver;
        private long wBeats;

        private Window() {
        }

        private void record(long waitNs, long cpuNs) {
            wBeats++;
            if (waitNs > thresholdNs) {
                wOver++;
            }
            if (waitNs > wLongestNs) {
                wLongestNs = waitNs;
                wLongestCpuNs = cpuNs;
            }
        }

        /** Stops counting heartbeats in this window; its figures stay. */
        public void close() {
            synchronized (StallMonitor.this) {
                windows.remove(this);
            }
        }

        /** The longest wait in the window in ms. */
        public long longestMs() {
            synchronized (StallMonitor.this) {
                return TimeUnit.NANOSECONDS.toMillis(wLongestNs);
            }
        }

        /** Heartbeats of the window that waited longer than the threshold. */
        public long stallsOver() {
            synchronized (StallMonitor.this) {
                return wOver;
            }
        }

        /** Heartbeats that ran in the window. */
        public long beats() {
            synchronized (StallMonitor.this) {
                return wBeats;
            }
        }

        /** The window's line, as {@link StallMonitor#summary()}. */
        public String summary() {
            synchronized (StallMonitor.this) {
                return line(wLongestNs, wLongestCpuNs, wOver, wBeats);
            }
        }
    }

    private String line(long longestNs, long cpuNs, long overs, long ran) {
        return String.format("longest UI-thread stall %d ms (the thread ran %d ms of it); %d waits over %d ms of %d"
                + " heartbeats", TimeUnit.NANOSECONDS.toMillis(longestNs), TimeUnit.NANOSECONDS.toMillis(cpuNs), overs,
                TimeUnit.NANOSECONDS.toMillis(thresholdNs), ran);
    }

    /** Stops the heartbeats; the figures stay. */
    @Override
    public synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }
}
