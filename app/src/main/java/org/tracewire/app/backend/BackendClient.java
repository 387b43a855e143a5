package org.tracewire.app.backend;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
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
 * futures completed by the reply with the same {@code id}; pushed {@code events}, {@code stats} and
 * {@code error} messages go to {@link BackendListener}s on the reader thread. Views never see
 * processes or JSON: view models call the typed methods.
 *
 * <p>Limits: a command line is at most {@value #MAX_COMMAND_BYTES} bytes (checked before sending);
 * an incoming line longer than {@value #MAX_INCOMING_BYTES} bytes is skipped and reported.
 */
public final class BackendClient implements AutoCloseable {
    /** The protocol's limit on one command line. */
    public static final int MAX_COMMAND_BYTES = 64 * 1024;
    /** The longest incoming line accepted (an {@code events} batch of 1,000 items fits easily). */
    public static final int MAX_INCOMING_BYTES = 16 * 1024 * 1024;
    /** How long a command waits for its reply by default. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final ObjectMapper mapper = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    private final InputStream in;
    private final OutputStream out;
    private final Process process;
    private final Map<Long, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final List<BackendListener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicLong nextId = new AtomicLong(1);
    private final Thread reader;
    private volatile boolean closed;

    /**
     * Talks to a backend over the given streams (tests pass pipes).
     *
     * @param fromBackend the backend's stdout
     * @param toBackend   the backend's stdin
     * @param process     the process, destroyed by {@link #close()}; may be null
     */
    public BackendClient(InputStream fromBackend, OutputStream toBackend, Process process) {
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

    /** True while the backend's output is open. */
    public boolean isOpen() {
        return !closed;
    }

    /**
     * Sends a command and returns the future of its reply (any {@code error} reply fails it).
     *
     * @param type   the command type
     * @param fields extra fields (may be null)
     * @return the reply
     */
    public CompletableFuture<JsonNode> request(String type, ObjectNode fields) {
        long id = nextId.getAndIncrement();
        ObjectNode msg = mapper.createObjectNode();
        msg.put("type", type);
        msg.put("id", id);
        if (fields != null) {
            fields.fields().forEachRemaining(e -> msg.set(e.getKey(), e.getValue()));
        }
        CompletableFuture<JsonNode> f = new CompletableFuture<>();
        byte[] line;
        try {
            line = (mapper.writeValueAsString(msg) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            f.completeExceptionally(new BackendException("cannot encode " + type, e));
            return f;
        }
        if (line.length > MAX_COMMAND_BYTES) {
            f.completeExceptionally(new BackendException(type + " command is " + line.length
                    + " bytes; the protocol allows " + MAX_COMMAND_BYTES));
            return f;
        }
        if (closed) {
            f.completeExceptionally(new BackendException("the backend is not running"));
            return f;
        }
        pending.put(id, f);
        try {
            synchronized (out) {
                out.write(line);
                out.flush();
            }
        } catch (IOException e) {
            pending.remove(id);
            f.completeExceptionally(new BackendException("cannot write to the backend: " + e.getMessage(), e));
        }
        return f.orTimeout(DEFAULT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private <T> CompletableFuture<T> typed(String type, ObjectNode fields, String replyType, Class<T> cls) {
        return request(type, fields).thenApply(reply -> {
            String got = reply.path("type").asText();
            if (!replyType.equals(got)) {
                throw new BackendException("expected " + replyType + " in reply to " + type + ", got " + got);
            }
            try {
                return mapper.treeToValue(reply, cls);
            } catch (IOException e) {
                throw new BackendException("bad " + replyType + " reply: " + e.getMessage(), e);
            }
        });
    }

    /** {@code hello}. @return the backend's identity */
    public CompletableFuture<Messages.Hello> hello() {
        return typed("hello", null, "hello", Messages.Hello.class);
    }

    /** {@code listEvents}. @return "system:event" names */
    public CompletableFuture<List<String>> listEvents() {
        return request("listEvents", null).thenApply(r -> {
            List<String> list = new ArrayList<>();
            r.path("events").forEach(n -> list.add(n.asText()));
            return list;
        });
    }

    /**
     * {@code validateFilter}: the kernel's verdict on a filter.
     *
     * @param event  "system:event"
     * @param filter the kernel filter
     * @return the verdict
     */
    public CompletableFuture<Messages.FilterResult> validateFilter(String event, String filter) {
        ObjectNode f = mapper.createObjectNode().put("event", event).put("filter", filter);
        return typed("validateFilter", f, "filterResult", Messages.FilterResult.class);
    }

    /**
     * {@code startCapture}.
     *
     * @param req what to capture and where to
     * @return the {@code started} reply
     */
    public CompletableFuture<Messages.Started> startCapture(Messages.CaptureRequest req) {
        ObjectNode f = mapper.createObjectNode();
        ArrayNode evs = f.putArray("events");
        for (Messages.CaptureEvent e : req.events()) {
            ObjectNode o = evs.addObject().put("event", e.event());
            if (e.filter() != null && !e.filter().isBlank()) {
                o.put("filter", e.filter());
            }
        }
        if (req.iface() != null && !req.iface().isBlank()) {
            f.put("iface", req.iface());
        }
        if (req.pcapng() != null && !req.pcapng().isBlank()) {
            f.put("pcapng", req.pcapng());
        }
        if (req.bufferKb() > 0) {
            f.put("bufferKb", req.bufferKb());
        }
        if (req.clock() != null && !req.clock().isBlank()) {
            f.put("clock", req.clock());
        }
        f.put("stream", req.stream());
        return typed("startCapture", f, "started", Messages.Started.class);
    }

    /** {@code stopCapture}. @return the final counters */
    public CompletableFuture<Messages.Stats> stopCapture() {
        return request("stopCapture", null).thenApply(r -> statsOf(r.path("stats")));
    }

    /** {@code stats}. @return the current counters */
    public CompletableFuture<Messages.Stats> stats() {
        return request("stats", null).thenApply(r -> statsOf(r.has("stats") ? r.get("stats") : r));
    }

    private Messages.Stats statsOf(JsonNode n) {
        try {
            return n == null || n.isMissingNode() ? Messages.Stats.ZERO : mapper.treeToValue(n, Messages.Stats.class);
        } catch (IOException e) {
            throw new BackendException("bad stats: " + e.getMessage(), e);
        }
    }

    /** Sends {@code quit} (best effort, short wait), then closes the streams and ends the process. */
    @Override
    public void close() {
        if (!closed) {
            try {
                request("quit", null).get(2, TimeUnit.SECONDS);
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
            CompletableFuture<JsonNode> f = pending.remove(id);
            if (f != null) {
                f.completeExceptionally(new BackendException(why));
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
        JsonNode msg;
        try {
            msg = mapper.readTree(text);
        } catch (IOException e) {
            listeners.forEach(l -> l.onError("not JSON from the backend: " + abbreviate(text)));
            return;
        }
        String type = msg.path("type").asText("");
        JsonNode idNode = msg.get("id");
        if (idNode != null && idNode.canConvertToLong()) {
            CompletableFuture<JsonNode> f = pending.remove(idNode.asLong());
            if (f != null) {
                if ("error".equals(type)) {
                    f.completeExceptionally(new BackendException(msg.path("message").asText("error")));
                } else {
                    f.complete(msg);
                }
                return;
            }
        }
        try {
            switch (type) {
                case "events" -> {
                    List<Messages.EventItem> items = new ArrayList<>(msg.path("items").size());
                    for (JsonNode it : msg.path("items")) {
                        items.add(mapper.treeToValue(it, Messages.EventItem.class));
                    }
                    listeners.forEach(l -> l.onEvents(items));
                }
                case "stats" -> {
                    Messages.Stats s = statsOf(msg.has("stats") ? msg.get("stats") : msg);
                    listeners.forEach(l -> l.onStats(s));
                }
                case "error" -> listeners.forEach(l -> l.onError(msg.path("message").asText("error")));
                default -> listeners.forEach(l -> l.onError("unexpected backend message: " + abbreviate(text)));
            }
        } catch (IOException | RuntimeException e) {
            listeners.forEach(l -> l.onError("bad " + type + " message: " + e.getMessage()));
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "…";
    }
}
