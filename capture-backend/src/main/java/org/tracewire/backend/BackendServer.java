package org.tracewire.backend;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.tracewire.capture.CaptureEngine;
import org.tracewire.capture.CaptureSession;
import org.tracewire.capture.CpuStats;
import org.tracewire.capture.EventSelection;
import org.tracewire.capture.FrameSink;
import org.tracewire.capture.FilterRejectedException;
import org.tracewire.filter.KernelFilterCheck;
import org.tracewire.format.FormatJson;
import org.tracewire.record.EventRecord;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.SavedCmdlines;

/**
 * {@code ./tracewire backend}: the capture engine driven by JSON-lines commands on stdin, replies
 * and pushed messages on stdout, as {@code docs/backend-protocol.md} specifies. Every command is
 * typed and size-limited (a line over {@value #MAX_LINE} bytes is refused); nothing happens that a
 * command does not name. One capture at a time. End of input or {@code quit} stops any capture,
 * removes its instance and interface, and returns.
 */
public final class BackendServer {
    /** Longest command line accepted, in bytes. */
    public static final int MAX_LINE = 64 * 1024;

    /** Opens the frame outputs of a capture (TAP interface, pcapng file); the stream sink is added by the server. */
    public interface OutputFactory {
        /**
         * @param iface  TAP interface name or null
         * @param pcapng pcapng path or null
         * @param tracefs the live tracefs (for format identity and metadata)
         * @param session the capture's session (its events and clock)
         * @return the frame outputs, opened, or null when neither was asked for
         * @throws IOException when an output cannot be opened
         */
        FrameSink open(String iface, String pcapng, Tracefs tracefs, CaptureSession session) throws IOException;
    }

    private final ObjectMapper mapper = new ObjectMapper();
    private final Tracefs tracefs;
    private final OutputStream out;
    private final OutputFactory outputs;
    private final Function<Tracefs, Function<EventRecord, String>> renderers;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tracewire-backend-timer");
        t.setDaemon(true);
        return t;
    });
    private Capture capture;

    private record Capture(CaptureSession session, CaptureEngine engine, StreamSink stream, FrameSink frames,
                           long startNanos, List<java.util.concurrent.ScheduledFuture<?>> timers) {
    }

    /**
     * @param tracefs   the tracefs to serve (live for captures; a snapshot answers metadata only)
     * @param out       where replies go (stdout)
     * @param outputs   opens TAP/pcapng outputs for a capture
     * @param renderers gives, per tracefs, the function rendering a record's text
     */
    public BackendServer(Tracefs tracefs, OutputStream out, OutputFactory outputs,
                         Function<Tracefs, Function<EventRecord, String>> renderers) {
        this.tracefs = tracefs;
        this.out = out;
        this.outputs = outputs;
        this.renderers = renderers;
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
                JsonNode cmd;
                try {
                    cmd = mapper.readTree(line);
                } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    error(null, "not JSON: " + e.getOriginalMessage());
                    continue;
                }
                if (!cmd.isObject() || !cmd.path("type").isTextual()) {
                    error(null, "a command is a JSON object with a string 'type'");
                    continue;
                }
                Integer id = cmd.path("id").canConvertToInt() ? cmd.path("id").asInt() : null;
                try {
                    if (!handle(cmd.path("type").asText(), id, cmd)) {
                        break;
                    }
                } catch (RuntimeException | IOException | InterruptedException e) {
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

    private boolean handle(String type, Integer id, JsonNode cmd) throws IOException, InterruptedException {
        switch (type) {
            case "hello" -> {
                ObjectNode r = reply("hello", id);
                r.put("version", "0.1.0");
                r.put("kernel", System.getProperty("os.version"));
                r.put("live", tracefs.isLive());
                r.put("label", tracefs.label());
                r.put("cpus", tracefs.cpus().size());
                send(r);
            }
            case "listEvents" -> {
                ObjectNode r = reply("events", id);
                ArrayNode a = r.putArray("events");
                tracefs.allEvents().forEach(a::add);
                send(r);
            }
            case "format" -> {
                EventSelection e = EventSelection.parse(text(cmd, "event"), null);
                ObjectNode r = reply("format", id);
                r.set("format", FormatJson.toNode(mapper, tracefs.format(e.system(), e.event())));
                send(r);
            }
            case "validateFilter" -> {
                EventSelection e = EventSelection.parse(text(cmd, "event"), text(cmd, "filter"));
                ObjectNode r = reply("filterResult", id);
                KernelFilterCheck.Result v = KernelFilterCheck.check(tracefs, tracefs.format(e.system(), e.event()),
                        e.filter());
                r.put("accepted", v.accepted());
                r.put("message", v.message() == null ? "" : v.message());
                r.put("position", v.position());
                send(r);
            }
            case "startCapture" -> startCapture(id, cmd);
            case "stopCapture" -> {
                Capture stopped = stopCapture();
                ObjectNode r = reply("stopped", id);
                r.set("stats", statsOf(stopped, false));
                send(r);
            }
            case "stats" -> {
                ObjectNode r = reply("stats", id);
                r.setAll(statsNode());
                send(r);
            }
            case "quit" -> {
                stopCapture();
                send(reply("bye", id));
                return false;
            }
            default -> error(id, "unknown command type '" + type + "'");
        }
        return true;
    }

    private void startCapture(Integer id, JsonNode cmd) throws IOException {
        if (capture != null) {
            error(id, "a capture is running: stopCapture first");
            return;
        }
        List<EventSelection> events = new ArrayList<>();
        for (JsonNode e : cmd.path("events")) {
            String filter = e.path("filter").isTextual() ? e.path("filter").asText() : null;
            events.add(EventSelection.parse(text(e, "event"), filter));
        }
        String iface = cmd.path("iface").isTextual() ? cmd.path("iface").asText() : null;
        String pcapng = cmd.path("pcapng").isTextual() ? cmd.path("pcapng").asText() : null;
        int bufferKb = cmd.path("bufferKb").asInt(CaptureSession.DEFAULT_BUFFER_KB);
        String clock = cmd.path("clock").isTextual() ? cmd.path("clock").asText() : "mono";
        boolean stream = cmd.path("stream").asBoolean(true);
        CaptureSession session;
        try {
            session = CaptureSession.open(tracefs, events, bufferKb, clock);
        } catch (FilterRejectedException e) {
            ObjectNode r = reply("error", id);
            r.put("message", e.getMessage());
            r.put("event", e.event());
            r.put("position", e.position());
            send(r);
            return;
        }
        FrameSink frames = null;
        StreamSink streamSink = null;
        try {
            frames = outputs.open(iface, pcapng, tracefs, session);
            if (stream) {
                streamSink = new StreamSink(mapper, renderers.apply(tracefs), this::send);
                streamSink.setCmdlines(SavedCmdlines.parse(tracefs.read("saved_cmdlines")));
            }
            var inst = session.instance();
            CaptureEngine engine = new CaptureEngine(inst, session.layout(), tracefs.formats().byId(),
                    session.clock(), frames, streamSink == null ? List.of() : List.of(streamSink));
            engine.start();
            session.start();
            capture = new Capture(session, engine, streamSink, frames, System.nanoTime(), new ArrayList<>());
        } catch (IOException | RuntimeException e) {
            closeOutputs(frames, streamSink, ignored -> {
                // reporting the first failure
            });
            session.close();
            throw e;
        }
        StreamSink ss = streamSink;
        List<java.util.concurrent.ScheduledFuture<?>> timers = capture.timers();
        if (ss != null) {
            timers.add(timer.scheduleAtFixedRate(() -> {
                try {
                    ss.flush();
                } catch (RuntimeException ignored) {
                    // stdout gone: the read loop ends too
                }
            }, 50, 50, TimeUnit.MILLISECONDS));
            timers.add(timer.scheduleAtFixedRate(
                    () -> ss.setCmdlines(SavedCmdlines.parse(tracefs.read("saved_cmdlines"))), 1, 1, TimeUnit.SECONDS));
        }
        timers.add(timer.scheduleAtFixedRate(() -> {
            ObjectNode s = reply("stats", null);
            s.setAll(statsNode());
            send(s);
        }, 1, 1, TimeUnit.SECONDS));
        ObjectNode r = reply("started", id);
        r.put("instance", session.instance().name());
        r.put("iface", iface);
        r.put("pcapng", pcapng);
        send(r);
    }

    private synchronized ObjectNode statsNode() {
        return statsOf(capture, true);
    }

    /** Counters of a capture: while it runs, or (running false) after its final drain; zeros for none. */
    private ObjectNode statsOf(Capture c, boolean running) {
        ObjectNode s = mapper.createObjectNode();
        long events = c == null ? 0 : c.engine().emitted();
        double secs = c == null ? 0 : (System.nanoTime() - c.startNanos()) / 1e9;
        s.put("running", running && c != null);
        s.put("events", events);
        s.put("eventsPerSecond", secs > 0 ? Math.round(events / secs) : 0);
        s.put("streamDropped", c == null || c.stream() == null ? 0 : c.stream().dropped());
        long frames = 0;
        long bytes = 0;
        if (c != null && c.frames() != null) {
            frames = c.frames().frames();
            bytes = c.frames().bytes();
        }
        s.put("frames", frames);
        s.put("bytes", bytes);
        ArrayNode cpus = s.putArray("cpus");
        if (c != null) {
            for (CpuStats st : c.engine().stats()) {
                ObjectNode o = cpus.addObject();
                o.put("cpu", st.cpu());
                o.put("records", st.records());
                o.put("lostKnown", st.lostKnown());
                o.put("lostUnknownPages", st.lostUnknownPages());
            }
        }
        return s;
    }

    /** Stops the running capture, if any, after a final drain; returns it (null when none ran). */
    private Capture stopCapture() {
        Capture c;
        synchronized (this) {
            c = capture;
            capture = null;
        }
        if (c == null) {
            return null;
        }
        c.timers().forEach(f -> f.cancel(false));
        try {
            c.session().stop();
            c.engine().stop();
        } catch (IOException | InterruptedException | RuntimeException e) {
            error(null, "capture ended with an error: " + e.getMessage());
        } finally {
            closeOutputs(c.frames(), c.stream(), e -> error(null, "closing an output: " + e.getMessage()));
            c.session().close();
        }
        return c;
    }

    /** Closes a capture's frame outputs and stream (either may be null), each failure to {@code onError}. */
    private static void closeOutputs(FrameSink frames, StreamSink stream, java.util.function.Consumer<Exception> onError) {
        for (AutoCloseable s : java.util.Arrays.asList(frames, stream)) {
            try {
                if (s != null) {
                    s.close();
                }
            } catch (Exception e) {
                onError.accept(e);
            }
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.path(field);
        if (!v.isTextual()) {
            throw new IllegalArgumentException("'" + field + "' must be a string");
        }
        return v.asText();
    }

    private ObjectNode reply(String type, Integer id) {
        ObjectNode r = mapper.createObjectNode();
        r.put("type", type);
        if (id != null) {
            r.put("id", id);
        }
        return r;
    }

    private void error(Integer id, String message) {
        ObjectNode r = reply("error", id);
        r.put("message", message);
        send(r);
    }

    private void send(ObjectNode msg) {
        try {
            byte[] line = (mapper.writeValueAsString(msg) + "\n").getBytes(StandardCharsets.UTF_8);
            synchronized (out) {
                out.write(line);
                out.flush();
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
