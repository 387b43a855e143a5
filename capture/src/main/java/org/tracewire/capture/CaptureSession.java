package org.tracewire.capture;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.tracefs.ErrorLog;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.KernelFilterCheck;
import org.tracewire.tracefs.OwnInstances;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsException;
import org.tracewire.tracefs.TracefsInstance;

/**
 * The tracefs side of a capture: an instance of our own, {@code instances/tracewire-<pid>}, with
 * its buffer size and trace clock set, each selected event's filter written and verified, then
 * the trace clock's offset to wall time measured ({@link ClockSync}), then the events enabled. The top-level buffer and other tools' instances are never touched.
 *
 * <p>Filters are verified before anything is enabled: a filter the kernel refuses leaves the event
 * unfiltered, so the session reads back {@code filter} and the instance's {@code error_log} and
 * aborts with the kernel's message and position.
 *
 * <p>{@link #close()} disables everything and removes the instance; a JVM shutdown hook does the
 * same on Ctrl-C and SIGTERM, and the session's {@link Watchdog} (a child process) does it the
 * moment this process dies without cleaning up ({@code kill -9}). An instance left all the same
 * (the watchdog killed too) is removed at the next start of any tracewire instance
 * ({@link org.tracewire.tracefs.OwnInstances#removeStale}: every name tracewire gives an instance,
 * whose pid is no longer running).
 */
public final class CaptureSession implements AutoCloseable {
    private static final Set<String> COUNTER_CLOCKS = Set.of("counter", "uptime", "x86-tsc");

    /**
     * Per-CPU buffer size captures use unless told otherwise, KiB: 8 MiB, larger than the kernel's
     * default, so the JVM's readers ride out scheduling delays on busy CPUs and JIT warm-up
     * (measured in BENCHMARKS.md).
     */
    public static final int DEFAULT_BUFFER_KB = 8192;

    /**
     * The largest {@code buffer_subbuf_size_kb} a capture gives its instance (kernel 6.8+; older
     * kernels keep their page-size sub-buffers), KiB. The drainers read one sub-buffer per
     * {@code read()}, so larger ones cost fewer reads, queue hand-offs and wake-ups per event;
     * larger than 64 KiB was no better (decision 0004, {@code docs/decisions/0004-drainers-and-a-pool-of-pages.md}).
     */
    public static final int MAX_SUB_BUFFER_KB = 64;

    /**
     * The sub-buffer size for a per-CPU buffer of {@code bufferKb}: a sixteenth of it, a power of two
     * from 4 to {@link #MAX_SUB_BUFFER_KB} KiB, so even a small buffer has sub-buffers enough to
     * swap with its reader and lose events at fine grain. The system property
     * {@code tracewire.subbufKb} overrides it (0 keeps the kernel's default).
     *
     * @param bufferKb the per-CPU buffer size asked for, KiB, or 0 or less for the kernel's default
     * @return KiB
     */
    static int subBufferKb(int bufferKb) {
        int kb = bufferKb > 0 ? bufferKb : DEFAULT_BUFFER_KB;
        return Integer.highestOneBit(Math.max(4, Math.min(MAX_SUB_BUFFER_KB, kb / 16)));
    }

    /** The instance's {@code buffer_percent}: pollers of trace_pipe_raw wake at this fill level. */
    public static final int BUFFER_PERCENT = 20;

    private final TracefsInstance instance;
    private SubBufferLayout layout;
    private ClockSync clock = ClockSync.none();
    private final List<EventSelection> events;
    private List<EventSelection> namingEvents = List.of();
    /** Kernel stacks through {@code options/stacktrace} ({@link #kernelStacksByOption}). */
    private boolean stacksByOption;
    private Set<Long> untraced = Set.of();
    private final Thread shutdownHook;
    private volatile boolean closed;
    private volatile CountDownLatch ownerDone;
    /** Stops tracing and removes the instance if this process dies without cleaning up ({@link Watchdog}). */
    private volatile Watchdog watchdog;

    private CaptureSession(TracefsInstance instance, List<EventSelection> events) {
        this.instance = instance;
        this.events = List.copyOf(events);
        this.shutdownHook = new Thread(this::closeQuietly, "tracewire-session-cleanup");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Like {@link #open(Tracefs, List, int, String, List)}, excluding this process's threads.
     */
    public static CaptureSession open(Tracefs top, List<EventSelection> events, int bufferKb, String clock)
            throws FilterRejectedException {
        return open(top, events, bufferKb, clock, List.of(ProcessHandle.current().pid()));
    }

    /**
     * Creates and configures the instance; events are enabled but tracing is off until {@link #start()}.
     * Before the events are enabled, every thread of the {@code untraced} processes is excluded from
     * them ({@link SelfExclusion}: {@code set_event_notrace_pid} with {@code options/event-fork},
     * read back).
     *
     * @param top      the live tracefs
     * @param events   what to capture (at least one)
     * @param bufferKb per-CPU ring buffer size in KiB, or 0 to keep the kernel's default
     * @param clock    trace clock name (e.g. {@code mono}), or null for the default
     * @param untraced processes whose threads (now and later) the instance must not record: the
     *                 capture's own, the desktop app's; empty to trace everything ({@code --trace-self})
     * @throws IllegalArgumentException when an event does not exist or the clock is unknown
     * @throws FilterRejectedException  when the kernel refuses a filter (nothing is left behind)
     * @throws TracefsException         when tracefs refuses a setting
     */
    public static CaptureSession open(Tracefs top, List<EventSelection> events, int bufferKb, String clock,
                                      List<Long> untraced) throws FilterRejectedException {
        check(top, events, clock);
        TracefsInstance inst = OwnInstances.create(top, null);
        CaptureSession session = new CaptureSession(inst, events);
        try {
            inst.setTracingOn(false);
            int subKb = Integer.getInteger("tracewire.subbufKb", subBufferKb(bufferKb));
            try {
                // from now on a killed capture's instance stops tracing at once (not at the next capture)
                session.watchdog = Watchdog.start(inst.root(), Math.max(4, subKb) * 1024);
            } catch (IOException e) {
                throw new TracefsException("cannot start the capture's watchdog (setsid, /bin/sh): " + e.getMessage(), e);
            }
            configureBuffers(inst, bufferKb, subKb, clock);
            for (EventSelection e : events) {
                if (e.filter() != null && !e.filter().isBlank()) {
                    session.applyFilter(e);
                }
            }
            session.layout = SubBufferLayout.of(inst.headerPage(), inst.headerEvent(), inst.layout());
            if (!COUNTER_CLOCKS.contains(inst.currentClock()) && top.exists("events/ftrace/print/format")) {
                session.clock = ClockSync.measure(inst, session.layout, top.format("ftrace", "print"), 8);
            }
            if (!untraced.isEmpty()) {
                // after the clock markers (written by this thread), before any event is enabled
                session.untraced = Set.copyOf(SelfExclusion.apply(inst, untraced));
            }
            session.applyStacks();
            for (EventSelection e : events) {
                inst.setEnabled(e.system(), e.event(), true);
            }
            return session;
        } catch (FilterRejectedException | RuntimeException e) {
            session.close();
            throw e;
        } catch (IOException e) {
            session.close();
            throw new TracefsException("clock sync through " + inst.root().resolve("trace_marker") + " failed: " + e, e);
        }
    }

    /**
     * Checks what a session is asked for before anything is created.
     *
     * @throws IllegalArgumentException when there are no events, an event does not exist (or its
     *                                  name is not a plain name), or the clock is unknown
     */
    private static void check(Tracefs top, List<EventSelection> events, String clock) {
        if (events.isEmpty()) {
            throw new IllegalArgumentException("no events selected");
        }
        for (EventSelection e : events) {
            if (!top.exists("events/" + e.system() + "/" + e.event() + "/enable")
                    || e.system().contains("/") || e.event().contains("/") || e.system().startsWith(".")
                    || e.event().startsWith(".")) {
                throw new IllegalArgumentException("unknown event " + e.fullName());
            }
        }
        if (clock != null && !top.traceClocks().contains(clock)) {
            throw new IllegalArgumentException("unknown trace clock '" + clock + "' (have " + top.traceClocks() + ")");
        }
    }

    /**
     * The instance's ring buffers: per-CPU size (KiB, 0 keeps the kernel's), clock (null keeps
     * it), sub-buffer size (KiB, 0 keeps it; where the kernel has the file) and the readers'
     * wake-up threshold.
     */
    private static void configureBuffers(TracefsInstance inst, int bufferKb, int subKb, String clock) {
        if (bufferKb > 0) {
            inst.setBufferSizeKb(bufferKb);
        }
        if (clock != null) {
            inst.setClock(clock);
        }
        if (subKb > 0 && inst.exists("buffer_subbuf_size_kb")) {
            inst.write("buffer_subbuf_size_kb", Integer.toString(subKb));
        }
        if (inst.exists("buffer_percent")) {
            // wake the readers' poll() at a fifth of the buffer, not half: more headroom when
            // the CPUs are busy and a reader is slow to be scheduled
            inst.write("buffer_percent", Integer.toString(BUFFER_PERCENT));
        }
    }

    private void applyFilter(EventSelection e) throws FilterRejectedException {
        KernelFilterCheck.Result r = KernelFilterCheck.apply(instance, e.system(), e.event(), e.filter());
        if (!r.accepted()) {
            throw new FilterRejectedException(e.fullName(), e.filter(), r.message(), r.position());
        }
    }

    /**
     * The stack traces the selections ask for ({@link EventSelection.Stack}): kernel stacks are the
     * instance's {@code stacktrace} option when every event takes one unfiltered
     * ({@link #kernelStacksByOption}), else each is the event's {@code stacktrace} trigger,
     * conditional on the event's filter (the kernel does not apply the event's filter to its
     * triggers), read back; user stacks are the instance's
     * {@code userstacktrace} option. Both go with the instance: removing it removes its triggers
     * (checked on kernel 6.18: {@code rmdir} succeeds with triggers set), so every path that removes
     * the instance (close, shutdown hook, {@link Watchdog}, the next capture's stale cleanup) clears them.
     *
     * @throws TracefsException when the kernel refuses a trigger or the option (its {@code error_log} line)
     */
    private void applyStacks() {
        boolean user = false;
        if (kernelStacksByOption(events) && instance.exists("options/stacktrace")) {
            instance.write("options/stacktrace", "1");
            stacksByOption = true;
        }
        for (EventSelection e : events) {
            user |= e.stack().user();
            if (!e.stack().kernel() || stacksByOption) {
                continue;
            }
            String trigger = stackTrigger(e);
            String path = "events/" + e.system() + "/" + e.event() + "/trigger";
            try {
                instance.write(path, trigger);
            } catch (TracefsException ex) {
                throw new TracefsException("the kernel refused the stack trace trigger '" + trigger + "' of "
                        + e.fullName() + ": " + lastError(ex.getMessage()), ex);
            }
            if (!instance.read(path).lines().anyMatch(l -> l.startsWith("stacktrace"))) {
                throw new TracefsException(e.fullName() + ": the stack trace trigger did not take ("
                        + instance.root().resolve(path) + ")");
            }
        }
        if (user) {
            instance.write("options/userstacktrace", "1");
        }
    }

    /**
     * Whether the kernel stacks of these selections are the instance's {@code options/stacktrace}
     * (what {@code trace-cmd record -T} sets) rather than a {@code stacktrace} trigger per event: when
     * every selected event takes a kernel stack and none has a filter, the option records a stack after
     * each recorded event as the triggers would, from the commit path instead of a trigger per event
     * (its walk may show one frame more at the top: {@code __traceiter_sys_enter} for syscalls). The
     * option stacks every event of the instance, so the capture then enables no event only to follow
     * task names (names come from {@code /proc}).
     */
    static boolean kernelStacksByOption(List<EventSelection> events) {
        return !events.isEmpty() && events.stream()
                .allMatch(e -> e.stack().kernel() && (e.filter() == null || e.filter().isBlank()));
    }

    /** True when this session's kernel stacks are the instance's {@code options/stacktrace} (not triggers). */
    public boolean stacksByOption() {
        return stacksByOption;
    }

    /**
     * The {@code trigger} line for an event's kernel stacks: {@code stacktrace [if FILTER]} (line
     * breaks in the filter become spaces: the file takes one command per line).
     */
    static String stackTrigger(EventSelection e) {
        String f = e.filter() == null ? "" : e.filter().strip().replaceAll("[\\r\\n]+", " ");
        return f.isEmpty() ? "stacktrace" : "stacktrace if " + f;
    }

    private String lastError(String fallback) {
        try {
            var entries = ErrorLog.parse(instance.read("error_log")).entries();
            if (entries.isEmpty()) {
                return fallback;
            }
            var last = entries.get(entries.size() - 1);
            return last.location() + ": " + last.message();
        } catch (RuntimeException e) {
            return fallback;
        }
    }

    /** The instance the capture records into. */
    public TracefsInstance instance() {
        return instance;
    }

    /** The instance's sub-buffer layout. */
    public SubBufferLayout layout() {
        return layout;
    }

    /**
     * The trace clock's offset to wall-clock time, measured before the events were enabled
     * ({@link ClockSync#none()} for counter clocks).
     */
    public ClockSync clock() {
        return clock;
    }

    /**
     * The thread ids written to the instance's {@code set_event_notrace_pid} (threads started later by
     * them are added by the kernel); empty when the capture traces itself.
     */
    public Set<Long> untracedThreads() {
        return untraced;
    }

    /** The watchdog that cleans up after this process if it dies ({@link Watchdog}), or null. */
    public Watchdog watchdog() {
        return watchdog;
    }

    /** The selected events. */
    public List<EventSelection> events() {
        return events;
    }

    /** The events enabled only to follow task names ({@link #followTaskNames()}); empty when none. */
    public List<EventSelection> namingEvents() {
        return namingEvents;
    }

    /**
     * Enables, without a filter, the {@link TaskNaming} events that exist and were not selected, so
     * the capture names tasks from the records themselves; their records are read, not framed.
     * None when a selection asks for user stacks ({@link EventSelection.Stack#user()}) or kernel stacks
     * come from the option ({@link #stacksByOption()}): names then
     * come from {@code /proc} as with {@code --names-from-proc}. Call before {@link #start()}, at most once.
     *
     * @return the events enabled for naming
     * @throws TracefsException when tracefs refuses to enable one
     */
    public List<EventSelection> followTaskNames() {
        if (!namingEvents.isEmpty() || stacksByOption || events.stream().anyMatch(e -> e.stack().user())) {
            // with user stacks (or kernel stacks by the option) none: the instance's userstacktrace
            // (stacktrace) puts a stack after every event, and a naming record's would be framed
            // without the record it follows
            return namingEvents;
        }
        List<EventSelection> extra = TaskNaming.extra(instance, events);
        for (EventSelection e : extra) {
            instance.setEnabled(e.system(), e.event(), true);
        }
        namingEvents = List.copyOf(extra);
        return namingEvents;
    }

    /** Starts recording ({@code tracing_on} = 1). */
    public void start() {
        instance.setTracingOn(true);
    }

    /** Stops recording; the buffer keeps what it holds for a final drain. */
    public void stop() {
        instance.setTracingOn(false);
    }

    /**
     * Lets the caller clean up first at JVM exit: this session's shutdown hook waits (at most
     * 10 s) until {@code ownerDone} is counted down before it closes the session, so it does not
     * remove the instance under a capture that is still stopping (shutdown hooks run
     * concurrently). The hook still closes the session afterwards when the owner's
     * {@link #close()} failed or never came.
     *
     * @param ownerDone counted down by the owner once it has closed (or given up on) the session
     */
    public void handOverCleanup(CountDownLatch ownerDone) {
        this.ownerDone = ownerDone;
    }

    /** Disables the events and removes the instance. Idempotent; safe from the shutdown hook. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        // closed only once the instance is really gone: a close that fails (a reader still holds
        // trace_pipe_raw open) is retried by the next caller
        instance.close();
        closed = true;
        if (watchdog != null) {
            watchdog.close(); // cleaned up ourselves: the watchdog stands down
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException ignored) {
            // already shutting down: the hook is what called us
        }
    }

    private void closeQuietly() {
        CountDownLatch owner = ownerDone;
        if (owner != null) {
            try {
                owner.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }
        try {
            close();
        } catch (RuntimeException ignored) {
            // best effort at exit
        }
    }
}
