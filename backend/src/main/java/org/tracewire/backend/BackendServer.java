package org.tracewire.backend;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.tracewire.capture.Capture;
import org.tracewire.capture.CaptureSession;
import org.tracewire.capture.CpuStats;
import org.tracewire.capture.FilterRejectedException;
import org.tracewire.capture.FrameSink;
import org.tracewire.capture.SelfExclusion;
import org.tracewire.capture.TapDevice;
import org.tracewire.format.FormatJson;
import org.tracewire.posix.InvokingUser;
import org.tracewire.protocol.Messages;
import org.tracewire.protocol.Protocol;
import org.tracewire.protocol.ProtocolException;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.KernelFilterCheck;
import org.tracewire.tracefs.Tracefs;

/**
 * {@code ./tracewire backend}: the capture engine driven by JSON-lines commands on stdin, replies
 * and pushed messages on stdout, as {@code docs/backend-protocol.md} specifies, with the messages
 * of {@link Messages} mapped by {@link Protocol}. Every command is typed and size-limited (a line
 * over {@value #MAX_LINE} bytes is refused); nothing happens that a command does not name.
 *
 * <p>It acts for the {@link InvokingUser}: a pcapng file is checked and created with that user's
 * rights; interface names, events and buffer sizes are checked against {@link BackendLimits}; one
 * capture at a time, stopped by the backend after {@link BackendLimits#maxSeconds()}. End of input
 * or {@code quit} stops any capture, removes its instance and interface, and returns.
 */
public final class BackendServer {
    /** Longest command line accepted, in bytes. */
    public static final int MAX_LINE = Protocol.MAX_COMMAND_BYTES;

    /** Opens the frame outputs of a capture (TAP interface, pcapng file). */
    public interface OutputFactory {
        /**
         * @param iface  TAP interface name or null (already checked by the server)
         * @param pcapng pcapng path or null (already checked for the invoking user by the server)
         * @param tracefs the live tracefs (for format identity and metadata)
         * @param session the capture's session (its events and clock)
         * @return the frame outputs, opened, or null when neither was asked for
         * @throws IOException when an output cannot be opened
         */
        FrameSink open(String iface, String pcapng, Tracefs tracefs, CaptureSession session) throws IOException;
    }

    private final Tracefs tracefs;
    private final OutputStream out;
    private final OutputFactory outputs;
    private final InvokingUser user;
    private final BackendLimits limits;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tracewire-backend-timer");
        t.setDaemon(true);
        return t;
    });
    /** Serializes stopping, so a stop by the time limit and a {@code stopCapture} never overlap. */
    private final Object stopLock = new Object();
    private Running running;
    /** Final stats of a capture the backend stopped by itself, for the next {@code stopCapture}. */
    private Messages.Stats stoppedEarly;

    private record Running(Capture capture, List<ScheduledFuture<?>> timers) {
    }

    /**
     * A server acting for the user in this process's environment ({@link InvokingUser#current()}),
     * with the {@linkplain BackendLimits#DEFAULT default limits}.
     *
     * @param tracefs   the tracefs to serve (live for captures; a snapshot answers metadata only)
     * @param out       where replies go (stdout)
     * @param outputs   opens TAP/pcapng outputs for a capture
     */
    public BackendServer(Tracefs tracefs, OutputStream out, OutputFactory outputs) {
        this(tracefs, out, outputs, InvokingUser.current(), BackendLimits.DEFAULT);
    }

    /**
     * @param tracefs   the tracefs to serve (live for captures; a snapshot answers metadata only)
     * @param out       where replies go (stdout)
     * @param outputs   opens TAP/pcapng outputs for a capture
     * @param user      whom the backend acts for (files are checked for and owned by them)
     * @param limits    what one client may start
     */
    public BackendServer(Tracefs tracefs, OutputStream out, OutputFactory outputs, InvokingUser user,
                         BackendLimits limits) {
        this.tracefs = tracefs;
        this.out = out;
        this.outputs = outputs;
        this.user = user;
        this.limits = limits;
    }

    /** The per-user limits this backend keeps to (none: root, or tests), set before {@link #serve}. */
    private UserQuota quota;

    /**
     * Makes every capture's ring buffers count against the user's limit across their backends.
     *
     * @return this
     */
    public BackendServer withQuota(UserQuota q) {
        this.quota = q;
        return this;
    }

    /**
     * Serves commands until end of input or {@code quit}.
     *
     * @throws IOException when stdin or stdout fails
     */
    public void serve(InputStream in) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), MAX_LINE);
        try {
            while (true) {
                String line = readLimited(reader);
                if (line == null) {
                    break;
                }
                if (line.isBlank()) {
                    continue;
                }
                if (line.length() > MAX_LINE) {
                    error(null, "command longer than " + MAX_LINE + " bytes refused");
                    continue;
                }
                Protocol.Envelope env;
                try {
                    env = Protocol.parse(line);
                } catch (ProtocolException e) {
                    error(null, e.getMessage());
                    continue;
                }
                Long id = env.id();
                try {
                    if (!handle(id, Protocol.readCommand(env))) {
                        break;
                    }
                } catch (ProtocolException | RuntimeException | IOException | InterruptedException e) {
                    error(id, e.getMessage() == null ? e.toString() : e.getMessage());
                }
            }
        } finally {
            stopCapture();
            timer.shutdownNow();
        }
    }

    private static String readLimited(BufferedReader r) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        boolean tooLong = false;
        while ((c = r.read()) != -1) {
            if (c == '\n') {
                return tooLong ? "x".repeat(MAX_LINE + 1) : sb.toString();
            }
            if (sb.length() > MAX_LINE) {
                tooLong = true;
                sb.setLength(0);
            } else {
                sb.append((char) c);
            }
        }
        return sb.length() == 0 && !tooLong ? null : sb.toString();
    }

    private boolean handle(Long id, Messages.Command cmd) throws IOException, InterruptedException {
        if (cmd instanceof Messages.HelloRequest) {
            send(new Messages.Hello(Protocol.VERSION, System.getProperty("os.version"), tracefs.isLive(),
                    tracefs.label(), tracefs.cpus().size()), id);
        } else if (cmd instanceof Messages.ListEventsRequest) {
            send(new Messages.EventList(List.copyOf(tracefs.allEvents())), id);
        } else if (cmd instanceof Messages.FormatRequest f) {
            EventSelection e = EventSelection.parse(f.event(), null);
            send(new Messages.FormatReply(FormatJson.toNode(Protocol.mapper(), tracefs.format(e.system(), e.event()))),
                    id);
        } else if (cmd instanceof Messages.ValidateFilterRequest v) {
            EventSelection e = EventSelection.parse(v.event(), v.filter());
            KernelFilterCheck.Result r = KernelFilterCheck.check(tracefs, tracefs.format(e.system(), e.event()),
                    e.filter());
            send(new Messages.FilterResult(r.accepted(), r.message() == null ? "" : r.message(), r.position()), id);
        } else if (cmd instanceof Messages.CaptureRequest c) {
            startCapture(id, c);
        } else if (cmd instanceof Messages.StopCaptureRequest) {
            send(new Messages.Stopped(stopCapture()), id);
        } else if (cmd instanceof Messages.StatsRequest) {
            send(stats(), id);
        } else if (cmd instanceof Messages.QuitRequest) {
            stopCapture();
            send(new Messages.Bye(), id);
            return false;
        } else {
            error(id, "unhandled command " + Protocol.typeOf(cmd.getClass()));
        }
        return true;
    }

    /** Checks a capture request against the limits and the invoking user's rights; the reason when refused. */
    private List<EventSelection> check(Messages.CaptureRequest c) throws IOException {
        if (c.events().isEmpty()) {
            throw new IllegalArgumentException("startCapture: 'events' is empty");
        }
        if (c.events().size() > limits.maxEvents()) {
            throw new IllegalArgumentException("startCapture: " + c.events().size() + " events; at most "
                    + limits.maxEvents() + " per capture");
        }
        List<EventSelection> events = new ArrayList<>();
        for (int i = 0; i < c.events().size(); i++) {
            try {
                events.add(c.events().get(i).toSelection());
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("startCapture: events[" + i + "]: " + ex.getMessage(), ex);
            }
        }
        if (c.iface() != null) {
            try {
                TapDevice.checkName(c.iface());
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("startCapture: iface: " + ex.getMessage(), ex);
            }
        }
        if (c.bufferKb() != null && (c.bufferKb() < 1 || c.bufferKb() > limits.maxBufferKb())) {
            throw new IllegalArgumentException("startCapture: bufferKb " + c.bufferKb() + " outside 1.."
                    + limits.maxBufferKb());
        }
        if (c.pcapng() != null) {
            user.checkWritable(Path.of(c.pcapng()), "pcapng");
        }
        return events;
    }

    private void startCapture(Long id, Messages.CaptureRequest c) throws IOException {
        synchronized (this) {
            if (running != null) {
                error(id, "a capture is running: stopCapture first");
                return;
            }
        }
        List<EventSelection> events = check(c);
        int bufferKb = c.bufferKb() == null ? CaptureSession.DEFAULT_BUFFER_KB : c.bufferKb();
        if (quota != null) {
            quota.reserve(bufferKb * 1024L * Math.max(1, tracefs.cpus().size()));
        }
        Capture capture;
        try {
            boolean traceSelf = Boolean.TRUE.equals(c.traceSelf());
            for (String w : SelfExclusion.feedbackWarnings(events, traceSelf, c.iface() != null)) {
                System.err.println("backend: warning: " + w);
            }
            capture = Capture.open(tracefs, events, bufferKb,
                    c.clock() == null ? "mono" : c.clock(), traceSelf ? List.of() : untraced(),
                    s -> {
                        s.followTaskNames(); // names from the records, before the outputs make their context
                        return outputs.open(c.iface(), c.pcapng(), tracefs, s);
                    }, List.of(), 0);
        } catch (FilterRejectedException e) {
            releaseQuota();
            send(new Messages.Error(e.getMessage(), e.event(), e.position()), id);
            return;
        } catch (IOException | RuntimeException e) {
            releaseQuota();
            throw e;
        }
        capture.startTracing();
        Running r = new Running(capture, new ArrayList<>());
        synchronized (this) {
            running = r;
            stoppedEarly = null;
        }
        r.timers().add(timer.scheduleAtFixedRate(() -> {
            try {
                if (r.capture().failure() != null || !r.capture().outputFailures().isEmpty()) {
                    // an output failed (e.g. a FIFO whose reader went away: EPIPE): stopped now rather
                    // than left tracing until stopCapture; the drain pushes "capture ended with an
                    // error: ..." and the next stopCapture returns its final stats, as after the limit
                    stopEarly(r);
                    return;
                }
                send(stats(), null);
            } catch (RuntimeException ignored) {
                // stdout gone: the read loop ends too
            }
        }, 1, 1, TimeUnit.SECONDS));
        r.timers().add(timer.schedule(() -> stopByLimit(r), limits.maxSeconds(), TimeUnit.SECONDS));
        send(new Messages.Started(capture.session().instance().name(), c.iface(), c.pcapng()), id);
    }

    /** The processes a capture excludes by default: this backend and its client (the app). */
    private static List<Long> untraced() {
        List<Long> pids = new ArrayList<>();
        pids.add(ProcessHandle.current().pid());
        ClientProcess.find().ifPresent(pids::add);
        return pids;
    }

    /** The time limit: stops the capture {@code r} if it still runs; the app learns it from an error message. */
    private void stopByLimit(Running r) {
        if (stopEarly(r)) {
            error(null, "capture stopped by the backend after its limit of " + limits.maxSeconds()
                    + " s; stopCapture returns its final stats");
        }
    }

    /**
     * Stops the capture {@code r} if it is still the one running, keeping its final stats for the
     * next {@code stopCapture}.
     *
     * @return false when {@code r} no longer runs (stopped meanwhile)
     */
    private boolean stopEarly(Running r) {
        synchronized (stopLock) {
            synchronized (this) {
                if (running != r) {
                    return false;
                }
            }
            Messages.Stats fin = stopCapture();
            synchronized (this) {
                stoppedEarly = fin;
            }
            return true;
        }
    }

    /** Current counters (zeros when no capture runs). */
    private Messages.Stats stats() {
        Running r;
        synchronized (this) {
            r = running;
        }
        return r == null ? Messages.Stats.ZERO : statsOf(r, true);
    }

    /** Counters of a capture: while it runs, or (running false) after its final drain. */
    private static Messages.Stats statsOf(Running r, boolean running) {
        Capture c = r.capture();
        long events = c.emitted();
        double secs = c.seconds();
        List<Messages.CpuStat> cpus = new ArrayList<>();
        for (CpuStats st : c.cpuStats()) {
            // records of events: those read only to name tasks (TaskNaming) are not the app's to count
            long records = st.records() - st.named();
            cpus.add(running ? new Messages.CpuStat(st.cpu(), records, st.lost())
                    : new Messages.CpuStat(st.cpu(), records, st.lost(), null, st.lostAfterLast(),
                    st.agreesWithKernel()));
        }
        return new Messages.Stats(running, events, secs > 0 ? Math.round(events / secs) : 0,
                c.frames(), c.bytes(), cpus);
    }

    /**
     * Stops the running capture, if any, after a final drain, and returns its final stats; when none
     * runs, the final stats of one the time limit stopped (once), else zeros.
     */
    private Messages.Stats stopCapture() {
        synchronized (stopLock) {
            Running r;
            synchronized (this) {
                r = running;
                running = null;
                if (r == null) {
                    Messages.Stats s = stoppedEarly == null ? Messages.Stats.ZERO : stoppedEarly;
                    stoppedEarly = null;
                    return s;
                }
            }
            r.timers().forEach(f -> f.cancel(false));
            releaseQuota();
            Capture c = r.capture();
            try {
                c.drain();
                for (var f : c.outputFailures()) {
                    error(null, "capture ended with an error: " + f.output() + " failed (" + f.reason() + "): it holds "
                            + "the first " + f.eventsWritten() + " events");
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                error(null, "capture ended with an error: " + e.getMessage());
            } finally {
                try {
                    c.close();
                } catch (IOException e) {
                    error(null, "closing an output: " + e.getMessage());
                }
            }
            return statsOf(r, false);
        }
    }

    private void releaseQuota() {
        if (quota != null) {
            quota.release();
        }
    }

    private void error(Long id, String message) {
        send(new Messages.Error(message), id);
    }

    private void send(Messages.Reply msg, Long id) {
        try {
            byte[] line = Protocol.encodeLine(msg, id, Protocol.MAX_MESSAGE_BYTES);
            synchronized (out) {
                out.write(line);
                out.flush();
            }
        } catch (ProtocolException e) {
            // only an oversized reply could get here: say so instead
            if (!(msg instanceof Messages.Error)) {
                error(id, e.getMessage());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
