package org.tracewire.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** BackendClient against a scripted backend on pipes. */
class BackendClientTest {
    private final ObjectMapper mapper = new ObjectMapper();
    private PipedOutputStream backendOut;
    private BufferedReader backendIn;
    private BackendClient client;
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final List<Messages.Stats> stats = new CopyOnWriteArrayList<>();

    @BeforeEach
    void connect() throws IOException {
        PipedInputStream fromBackend = new PipedInputStream(1 << 20);
        backendOut = new PipedOutputStream(fromBackend);
        PipedInputStream commands = new PipedInputStream(1 << 20);
        PipedOutputStream toBackend = new PipedOutputStream(commands);
        backendIn = new BufferedReader(new InputStreamReader(commands, StandardCharsets.UTF_8));
        client = new BackendClient(fromBackend, toBackend, null);
        client.addListener(new BackendListener() {
            @Override
            public void onStats(Messages.Stats s) {
                stats.add(s);
            }

            @Override
            public void onError(String message) {
                errors.add(message);
            }
        });
    }

    @AfterEach
    void close() throws IOException {
        backendOut.close();
    }

    private JsonNode nextCommand() throws IOException {
        return mapper.readTree(backendIn.readLine());
    }

    private void send(String json) throws IOException {
        backendOut.write((json + "\n").getBytes(StandardCharsets.UTF_8));
        backendOut.flush();
    }

    @Test
    void repliesAreMatchedByIdAndTyped() throws Exception {
        var hello = client.hello();
        var list = client.listEvents();
        JsonNode c1 = nextCommand();
        JsonNode c2 = nextCommand();
        assertEquals("hello", c1.get("type").asText());
        assertEquals("listEvents", c2.get("type").asText());
        // Replies out of order, with a pushed message in between.
        send("{\"type\":\"events\",\"id\":" + c2.get("id").asLong() + ",\"events\":[\"sched:sched_switch\"]}");
        send("{\"type\":\"stats\",\"running\":true,\"events\":5,\"eventsPerSecond\":2.5,\"frames\":5,\"bytes\":640,\"cpus\":[{\"cpu\":0,\"records\":5,\"lostKnown\":1,\"lostUnknownPages\":0}]}");
        send("{\"type\":\"hello\",\"id\":" + c1.get("id").asLong() + ",\"version\":\"" + Protocol.VERSION
                + "\",\"kernel\":\"6.18\",\"live\":true,\"label\":\"live tracefs\",\"cpus\":2}");
        assertEquals(new Messages.Hello(Protocol.VERSION, "6.18", true, "live tracefs", 2), hello.get(5, TimeUnit.SECONDS));
        assertEquals(List.of("sched:sched_switch"), list.get(5, TimeUnit.SECONDS));
        waitFor(() -> stats.size() == 1);
        assertEquals(5, stats.get(0).events());
        assertEquals(1, stats.get(0).cpus().get(0).lostKnown());
    }

    /** Replies are read strictly (the one protocol definition both ends use): a stray field fails the command. */
    @Test
    void malformedRepliesFailTheirCommandNamingTheField() throws Exception {
        ExecutionException e = helloFails("0.1", ",\"extra\":1");
        assertEquals("bad hello reply: unknown field 'extra' in hello", e.getCause().getMessage());
        var stats = client.stats();
        JsonNode c = nextCommand();
        send("{\"type\":\"stats\",\"id\":" + c.get("id").asLong() + ",\"running\":true,\"events\":\"5\"}");
        e = assertThrows(ExecutionException.class, () -> stats.get(5, TimeUnit.SECONDS));
        assertEquals("bad stats reply: 'events' must be an integer", e.getCause().getMessage());
    }

    /** A client with the given reply timeout, over pipes: {@code out} is the backend's output, {@code in} its commands. */
    private record Scripted(BackendClient client, PipedOutputStream out, BufferedReader in) {
    }

    private static Scripted scripted(Duration timeout) throws IOException {
        PipedInputStream fromBackend = new PipedInputStream(1 << 16);
        PipedOutputStream out = new PipedOutputStream(fromBackend);
        PipedInputStream commands = new PipedInputStream(1 << 16);
        BufferedReader in = new BufferedReader(new InputStreamReader(commands, StandardCharsets.UTF_8));
        return new Scripted(new BackendClient(fromBackend, new PipedOutputStream(commands), null, timeout), out, in);
    }

    /**
     * A stop waits as long as the backend frames what it read (minutes on a busy machine), where
     * every other command times out: the app said "stop failed" while the capture went on.
     */
    @Test
    void stopCaptureOutlastsTheReplyTimeout() throws Exception {
        Scripted b = scripted(Duration.ofMillis(200));
        BackendClient c = b.client();
        var stats = c.stats();
        var stop = c.stopCapture();
        b.in().readLine();
        JsonNode stopCmd = mapper.readTree(b.in().readLine());
        assertEquals("stopCapture", stopCmd.get("type").asText());
        ExecutionException e = assertThrows(ExecutionException.class, () -> stats.get(5, TimeUnit.SECONDS));
        assertInstanceOf(java.util.concurrent.TimeoutException.class, e.getCause());
        Thread.sleep(600); // three reply timeouts
        assertFalse(stop.isDone());
        b.out().write(("{\"type\":\"stopped\",\"id\":" + stopCmd.get("id").asLong() + ",\"stats\":{\"running\":false,"
                + "\"events\":7,\"eventsPerSecond\":0.0,\"frames\":7,\"bytes\":900,\"cpus\":[]}}\n").getBytes(StandardCharsets.UTF_8));
        b.out().flush();
        assertEquals(7, stop.get(5, TimeUnit.SECONDS).events());
        // and a stop still fails when the backend goes away
        var again = c.stopCapture();
        b.out().close();
        e = assertThrows(ExecutionException.class, () -> again.get(5, TimeUnit.SECONDS));
        assertInstanceOf(BackendException.class, e.getCause());
    }

    /** A start may wait longer than the reply timeout when its caller says so (a backend starting on a saturated machine). */
    @Test
    void startCaptureWaitsAsLongAsItsCallerSays() throws Exception {
        Scripted b = scripted(Duration.ofMillis(200));
        BackendClient c = b.client();
        var req = new Messages.CaptureRequest(List.of(new Messages.CaptureEvent("sched:sched_switch", null)), null,
                "/tmp/x.pcapng", null, null);
        var quick = c.startCapture(req);
        var patient = c.startCapture(req, Duration.ofSeconds(30));
        b.in().readLine();
        long id = mapper.readTree(b.in().readLine()).get("id").asLong();
        ExecutionException e = assertThrows(ExecutionException.class, () -> quick.get(5, TimeUnit.SECONDS));
        assertInstanceOf(java.util.concurrent.TimeoutException.class, e.getCause());
        Thread.sleep(400);
        assertFalse(patient.isDone());
        b.out().write(("{\"type\":\"started\",\"id\":" + id + ",\"instance\":\"tracewire-9\",\"iface\":null,"
                + "\"pcapng\":\"/tmp/x.pcapng\"}\n").getBytes(StandardCharsets.UTF_8));
        b.out().flush();
        assertEquals("tracewire-9", patient.get(5, TimeUnit.SECONDS).instance());
    }

    /** The request goes out whole: each event's stack choice and {@code traceSelf} with it. */
    @Test
    void startCaptureSendsStacksAndTraceSelf() throws Exception {
        var start = client.startCapture(new Messages.CaptureRequest(
                List.of(new Messages.CaptureEvent("sched:sched_switch", " ", "kernel")), null, null, null, null,
                true));
        JsonNode cmd = nextCommand();
        assertEquals("kernel", cmd.at("/events/0/stack").asText(), cmd.toString());
        assertTrue(cmd.at("/events/0/filter").isMissingNode(), "a blank filter is not sent: " + cmd);
        assertTrue(cmd.get("traceSelf").asBoolean(), cmd.toString());
        send("{\"type\":\"error\",\"id\":" + cmd.get("id").asLong() + ",\"message\":\"no\"}");
        assertThrows(ExecutionException.class, () -> start.get(5, TimeUnit.SECONDS));
    }

    @Test
    void errorsFailTheirCommandAndBadLinesReachListeners() throws Exception {
        var start = client.startCapture(new Messages.CaptureRequest(
                List.of(new Messages.CaptureEvent("sched:sched_switch", "prev_pid == 1")), "tw0", null, 0, null));
        JsonNode cmd = nextCommand();
        assertEquals("startCapture", cmd.get("type").asText());
        assertEquals("prev_pid == 1", cmd.at("/events/0/filter").asText());
        assertEquals("tw0", cmd.get("iface").asText());
        assertTrue(cmd.get("bufferKb") == null, "a non-positive bufferKb is not sent: " + cmd);
        send("{\"type\":\"error\",\"id\":" + cmd.get("id").asLong() + ",\"message\":\"needs root\"}");
        ExecutionException e = assertThrows(ExecutionException.class, () -> start.get(5, TimeUnit.SECONDS));
        assertInstanceOf(BackendException.class, e.getCause());
        assertEquals("needs root", e.getCause().getMessage());

        send("{\"type\":\"events\",\"items\":[]}");
        send("{not json");
        waitFor(() -> errors.size() == 2);
        assertTrue(errors.get(0).startsWith("unexpected backend message: {\"type\":\"events\""), errors.toString());
        assertTrue(errors.get(1).startsWith("not JSON"), errors.toString());
    }

    /** Sends {@code hello}, answers it with {@code version} and {@code extra} fields: how it failed. */
    private ExecutionException helloFails(String version, String extra) throws IOException {
        var hello = client.hello();
        JsonNode c = nextCommand();
        send("{\"type\":\"hello\",\"id\":" + c.get("id").asLong() + ",\"version\":\"" + version
                + "\",\"kernel\":\"6.18\",\"live\":true,\"label\":\"live tracefs\",\"cpus\":2" + extra + "}");
        return assertThrows(ExecutionException.class, () -> hello.get(5, TimeUnit.SECONDS));
    }

    /** A backend of another protocol version fails {@code hello} with both versions named. */
    @Test
    void helloFailsNamingBothVersionsWhenTheyDiffer() throws Exception {
        ExecutionException e = helloFails("0.1.0", "");
        assertInstanceOf(BackendException.class, e.getCause());
        assertTrue(e.getCause().getMessage().startsWith("the backend speaks protocol 0.1.0, this client "
                + Protocol.VERSION), e.getCause().getMessage());
    }

    @Test
    void limitsAreEnforcedBothWays() throws Exception {
        String huge = "x".repeat(BackendClient.MAX_COMMAND_BYTES);
        var f = client.validateFilter("sched:sched_switch", huge);
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(1, TimeUnit.SECONDS));
        assertTrue(e.getCause().getMessage().contains("the protocol allows"));

        // An incoming line over the limit is skipped; the next one is read normally.
        byte[] chunk = new byte[1 << 20];
        Arrays.fill(chunk, (byte) 'a');
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; i <= BackendClient.MAX_INCOMING_BYTES / chunk.length; i++) {
                    backendOut.write(chunk);
                }
                send("");
                send("{\"type\":\"error\",\"message\":\"after\"}");
            } catch (IOException ignored) {
                // The test fails on the assertion below.
            }
        });
        writer.start();
        waitFor(() -> errors.size() == 2);
        assertTrue(errors.get(0).startsWith("skipped a backend message longer than"), errors.toString());
        assertEquals("after", errors.get(1));
    }

    @Test
    void pendingCommandsFailWhenTheBackendGoesAway() throws Exception {
        var s = client.stats();
        nextCommand();
        backendOut.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> s.get(5, TimeUnit.SECONDS));
        assertInstanceOf(BackendException.class, e.getCause());
        waitFor(() -> !client.isOpen());
        assertThrows(ExecutionException.class, () -> client.hello().get(1, TimeUnit.SECONDS));
    }

    @Test
    void launcherCommandDependsOnPrivilege() {
        Path exe = Path.of("/repo/tracewire");
        assertEquals(List.of("/repo/tracewire", "backend"), BackendLauncher.command(exe, true, Map.of()).command());
        BackendLauncher.Result none = BackendLauncher.command(exe, false, Map.of("PATH", "/nonexistent"));
        assertTrue(!none.ok() && none.problem().contains("needs root"), none.toString());
    }

    /** The launcher in {@code tracewire.home}: its command when it is executable there, else where it was looked for. */
    @Test
    void theHomeLauncherIsFoundOrItsAbsenceSaid(@org.junit.jupiter.api.io.TempDir Path home) throws IOException {
        String before = System.getProperty("tracewire.home");
        System.setProperty("tracewire.home", home.toString());
        try {
            Path exe = home.resolve("tracewire");
            BackendLauncher.Result missing = BackendLauncher.command(true, Map.of());
            assertEquals("cannot find the tracewire launcher at " + exe, missing.problem());
            Files.writeString(exe, "#!/bin/sh\n");
            exe.toFile().setExecutable(true);
            assertEquals(List.of(exe.toString(), "backend"), BackendLauncher.command(true, Map.of()).command());
        } finally {
            if (before == null) {
                System.clearProperty("tracewire.home");
            } else {
                System.setProperty("tracewire.home", before);
            }
        }
    }

    private static void waitFor(BooleanSupplier cond) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out");
            }
            Thread.sleep(10);
        }
    }
}
