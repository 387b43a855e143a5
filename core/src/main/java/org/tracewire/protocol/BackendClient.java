package org.tracewire.protocol;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The app's only link to the privileged backend ({@code ./tracewire backend}, protocol in
 * {@code docs/backend-protocol.md}): JSON lines over the child's stdin/stdout. Commands return
 * futures completed by the reply with the same {@code id}; pushed {@code stats} and {@code error}
 * messages go to {@link BackendListener}s on the reader thread. Messages are the
 * records of {@link Messages}, mapped by {@link Protocol} (the backend uses the same): a reply with
 * an unknown, missing or mistyped field fails its command with a message naming the field. Views
 * never see processes or JSON: view models call the typed methods.
 *
 * <p>Limits: a command line is at most {@value #MAX_COMMAND_BYTES} bytes (checked before sending);
 * an incoming line longer than {@value #MAX_INCOMING_BYTES} bytes is skipped and reported.
 */
public final class BackendClient implements AutoCloseable {
    /** The protocol's limit on one command line. */
    public static final int MAX_COMMAND_BYTES = Protocol.MAX_COMMAND_BYTES;
    /** The longest incoming line accepted. */
    public static final int MAX_INCOMING_BYTES = Protocol.MAX_MESSAGE_BYTES;
    /** How long a command waits for its reply by default. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final InputStream in;
    private final OutputStream out;
    private final Process process;
    private final Map<Long, Pending<?>> pending = new ConcurrentHashMap<>();
    private final List<BackendListener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicLong nextId = new AtomicLong(1);
    private final Thread reader;
    private final Duration timeout;
    private volatile boolean closed;

    /** A command waiting for its reply of type {@code reply}. */
    private record Pending<R extends Messages.Reply>(Class<R> reply, CompletableFuture<R> future) {
        void complete(Protocol.Envelope e) throws ProtocolException {
            future.complete(Protocol.read(e, reply));
        }
    }

    /**
     * Talks to a backend over the given streams (tests pass pipes).
     *
     * @param fromBackend the backend's stdout
     * @param toBackend   the backend's stdin
     * @param process     the process, destroyed by {@link #close()}; may be null
     */
    public BackendClient(InputStream fromBackend, OutputStream toBackend, Process process) {
        this(fromBackend, toBackend, process, DEFAULT_TIMEOUT);
    }

    /**
     * Like {@link #BackendClient(InputStream, OutputStream, Process)}, with another reply timeout
     * (tests).
     *
     * @param timeout how long a command other than {@code stopCapture} waits for its reply
     */
    BackendClient(InputStream fromBackend, OutputStream toBackend, Process process, Duration timeout) {
        this.timeout = Objects.requireNonNull(timeout);
        this.in = Objects.requireNonNull(fromBackend);
        this.out = Objects.requireNonNull(toBackend);
        this.process = process;
        this.reader = new Thread(this::readLoop, "tracewire-backend-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts the backend process with {@link BackendLauncher}'s command; stderr goes to ours.
     *
     * @param command the command line
     * @return a connected client
     * @throws BackendException when the process cannot start
     */
    public static BackendClient start(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            return new BackendClient(p.getInputStream(), p.getOutputStream(), p);
        } catch (IOException e) {
            throw new BackendException("cannot start the backend (" + String.join(" ", command) + "): " + e.getMessage(), e);
        }
    }

    /** @param l receives pushed messages from now on */
    public void addListener(BackendListener l) {
        listeners.add(l);
    }

    /** @param l no longer receives pushed messages */
    public void removeListener(BackendListener l) {
        listeners.remove(l);
    }

    /**
     * Waits for the backend's process to end: a backend whose connection closed may still be
     * removing its tracefs instance and TAP interface, which a new backend would find taken.
     *
     * @param timeout the longest wait
     * @return true when the process has ended (or this client has none), false when still alive
     * @throws InterruptedException when interrupted while waiting
     */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        return process == null || process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** True when this client has no process or its process has ended. */
    public boolean exited() {
        return process == null || !process.isAlive();
    }

    /** True while the backend's output is open. */
    public boolean isOpen() {
        return !closed;
    }

    /**
     * Sends a command and returns the future of its reply (an {@code error} reply fails it with a
     * {@link BackendException} carrying the backend's message; so does a malformed reply).
     *
     * @param command the command
     * @param reply   the reply's record
     * @return the reply
     */
    public <R extends Messages.Reply> CompletableFuture<R> request(Messages.Command command, Class<R> reply) {
        return request(command, reply, timeout);
    }

    /** {@link #request(Messages.Command, Class)} waiting at most {@code timeout} (null: as long as the backend lives). */
    private <R extends Messages.Reply> CompletableFuture<R> request(Messages.Command command, Class<R> reply,
            Duration timeout) {
        long id = nextId.getAndIncrement();
        CompletableFuture<R> f = new CompletableFuture<>();
        byte[] line;
        try {
            line = Protocol.encodeLine(command, id, MAX_COMMAND_BYTES);
        } catch (ProtocolException e) {
            f.completeExceptionally(new BackendException(e.getMessage(), e));
            return f;
        }
        if (closed) {
            f.completeExceptionally(new BackendException("the backend is not running"));
            return f;
        }
        pending.put(id, new Pending<>(reply, f));
        try {
            synchronized (out) {
                out.write(line);
                out.flush();
            }
        } catch (IOException e) {
            pending.remove(id);
            f.completeExceptionally(new BackendException("cannot write to the backend: " + e.getMessage(), e));
        }
        return timeout == null ? f : f.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * {@code hello}, checking that the backend speaks this client's {@link Protocol#VERSION}.
     *
     * @return the backend's identity; fails with a {@link BackendException} naming both versions
     *         when they differ
     */
    public CompletableFuture<Messages.Hello> hello() {
        return request(new Messages.HelloRequest(), Messages.Hello.class).thenApply(h -> {
            try {
                Protocol.checkVersion(h.version());
            } catch (ProtocolException e) {
                throw new BackendException(e.getMessage(), e);
            }
            return h;
        });
    }

    /** {@code listEvents}. @return "system:event" names */
    public CompletableFuture<List<String>> listEvents() {
        return request(new Messages.ListEventsRequest(), Messages.EventList.class).thenApply(Messages.EventList::events);
    }

    /**
     * {@code validateFilter}: the kernel's verdict on a filter.
     *
     * @param event  "system:event"
     * @param filter the kernel filter
     * @return the verdict
     */
    public CompletableFuture<Messages.FilterResult> validateFilter(String event, String filter) {
        return request(new Messages.ValidateFilterRequest(event, filter), Messages.FilterResult.class);
    }

    /**
     * {@code startCapture}. Blank optional strings and a non-positive {@code bufferKb} are sent as
     * "not given".
     *
     * @param req what to capture and where to
     * @return the {@code started} reply
     */
    public CompletableFuture<Messages.Started> startCapture(Messages.CaptureRequest req) {
        return startCapture(req, timeout);
    }

    /**
     * {@link #startCapture(Messages.CaptureRequest)} waiting up to {@code timeout} for the reply
     * instead of the client's reply timeout: a backend starting on a saturated machine (its JVM,
     * the instance, the task snapshot) can take longer than {@link #DEFAULT_TIMEOUT}.
     *
     * @param req     what to capture and where to
     * @param timeout the longest wait for the {@code started} reply
     * @return the {@code started} reply
     */
    public CompletableFuture<Messages.Started> startCapture(Messages.CaptureRequest req, Duration timeout) {
        List<Messages.CaptureEvent> events = req.events().stream()
                .map(e -> new Messages.CaptureEvent(e.event(), blankToNull(e.filter()), blankToNull(e.stack())))
                .toList();
        Messages.CaptureRequest sent = new Messages.CaptureRequest(events, blankToNull(req.iface()),
                blankToNull(req.pcapng()), req.bufferKb() != null && req.bufferKb() > 0 ? req.bufferKb() : null,
                blankToNull(req.clock()), req.traceSelf());
        return request(sent, Messages.Started.class, Objects.requireNonNull(timeout));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /**
     * {@code stopCapture}: the backend turns tracing off, then frames and writes every event it has
     * read before it answers ({@code Capture.drain}); with a read-ahead of up to 2 GiB on a busy
     * machine that takes minutes, so this waits with no time limit, as long as the backend lives
     * (fails with a {@link BackendException} when its output ends).
     *
     * @return the final counters
     */
    public CompletableFuture<Messages.Stats> stopCapture() {
        return request(new Messages.StopCaptureRequest(), Messages.Stopped.class, null)
                .thenApply(Messages.Stopped::stats);
    }

    /** {@code stats}. @return the current counters */
    public CompletableFuture<Messages.Stats> stats() {
        return request(new Messages.StatsRequest(), Messages.Stats.class);
    }

    /** Sends {@code quit} (best effort, short wait), then closes the streams and ends the process. */
    @Override
    public void close() {
        if (!closed) {
            try {
                request(new Messages.QuitRequest(), Messages.Bye.class).get(2, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // The backend may already be gone.
            }
        }
        closed = true;
        try {
            out.close();
        } catch (IOException ignored) {
            // Closing a dead pipe.
        }
        if (process != null) {
            try {
                if (!process.waitFor(3, TimeUnit.SECONDS)) {
                    process.destroy();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroy();
            }
        }
        failPending("the backend connection was closed");
    }

    private void failPending(String why) {
        for (Long id : List.copyOf(pending.keySet())) {
            Pending<?> p = pending.remove(id);
            if (p != null) {
                p.future().completeExceptionally(new BackendException(why));
            }
        }
    }

    private void readLoop() {
        String reason = "the backend's output ended";
        try {
            ByteArrayOutputStream line = new ByteArrayOutputStream(4096);
            boolean skipping = false;
            byte[] buf = new byte[64 * 1024];
            int n;
            while ((n = in.read(buf)) > 0) {
                int start = 0;
                for (int i = 0; i < n; i++) {
                    if (buf[i] != '\n') {
                        continue;
                    }
                    if (!skipping) {
                        line.write(buf, start, i - start);
                        handleLine(line.toString(StandardCharsets.UTF_8));
                    }
                    line.reset();
                    skipping = false;
                    start = i + 1;
                }
                if (!skipping) {
                    line.write(buf, start, n - start);
                    if (line.size() > MAX_INCOMING_BYTES) {
                        skipping = true;
                        line.reset();
                        listeners.forEach(l -> l.onError("skipped a backend message longer than "
                                + MAX_INCOMING_BYTES + " bytes"));
                    }
                }
            }
        } catch (IOException e) {
            reason = "reading from the backend failed: " + e.getMessage();
        } finally {
            closed = true;
            failPending(reason);
            String r = reason;
            listeners.forEach(l -> l.onClosed(r));
        }
    }

    private void handleLine(String text) {
        if (text.isBlank()) {
            return;
        }
        Protocol.Envelope msg;
        try {
            msg = Protocol.parse(text);
        } catch (ProtocolException e) {
            String why = e.getMessage().startsWith("not JSON") ? "not JSON" : e.getMessage();
            listeners.forEach(l -> l.onError(why + " from the backend: " + abbreviate(text)));
            return;
        }
        String type = msg.type();
        if (msg.id() != null) {
            Pending<?> p = pending.remove(msg.id());
            if (p != null) {
                try {
                    if ("error".equals(type)) {
                        p.future().completeExceptionally(new BackendException(
                                Protocol.read(msg, Messages.Error.class).message()));
                    } else {
                        p.complete(msg);
                    }
                } catch (ProtocolException e) {
                    p.future().completeExceptionally(new BackendException("bad " + type + " reply: " + e.getMessage(), e));
                }
                return;
            }
        }
        try {
            switch (type) {
                case "stats" -> {
                    Messages.Stats s = Protocol.read(msg, Messages.Stats.class);
                    listeners.forEach(l -> l.onStats(s));
                }
                case "error" -> {
                    String m = Protocol.read(msg, Messages.Error.class).message();
                    listeners.forEach(l -> l.onError(m));
                }
                default -> listeners.forEach(l -> l.onError("unexpected backend message: " + abbreviate(text)));
            }
        } catch (ProtocolException e) {
            listeners.forEach(l -> l.onError("bad " + type + " message: " + e.getMessage()));
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "…";
    }
}
