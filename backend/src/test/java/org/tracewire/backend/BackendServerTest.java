package org.tracewire.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

class BackendServerTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static List<JsonNode> runScript(Tracefs t, String... lines) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BackendServer server = new BackendServer(t, out, (i, p, tr, s) -> null);
        server.serve(new ByteArrayInputStream((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8)));
        List<JsonNode> replies = new ArrayList<>();
        for (String l : out.toString(StandardCharsets.UTF_8).split("\n")) {
            replies.add(JSON.readTree(l));
        }
        return replies;
    }

    @Test
    void metadataCommandsOnTheSnapshotAndBadInput() throws IOException {
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        List<JsonNode> r = runScript(snap,
                "{\"type\":\"hello\",\"id\":1}",
                "{\"type\":\"listEvents\",\"id\":2}",
                "{\"type\":\"format\",\"id\":3,\"event\":\"sched:sched_switch\"}",
                "not json",
                "{\"type\":\"nope\",\"id\":4}",
                "{\"type\":\"format\",\"id\":5,\"event\":\"../x:y\"}",
                "{\"type\":\"format\",\"id\":6}",
                "[1,2]",
                "{\"type\":\"hello\",\"id\":7,\"pad\":\"" + "x".repeat(70_000) + "\"}",
                "{\"type\":\"quit\",\"id\":8}",
                "{\"type\":\"hello\",\"id\":9}");
        assertEquals("hello", r.get(0).get("type").asText());
        assertEquals(1, r.get(0).get("id").asInt());
        assertFalse(r.get(0).get("live").asBoolean());
        assertEquals("snapshot of Linux 6.18, read only", r.get(0).get("label").asText());
        assertTrue(r.get(1).get("events").size() > 2300);
        JsonNode fmt = r.get(2).get("format");
        assertEquals("sched_switch", fmt.get("name").asText());
        assertEquals("prev_comm", fmt.get("fields").get(4).get("name").asText());
        assertTrue(r.get(3).get("message").asText().startsWith("not JSON"));
        assertEquals("unknown command type 'nope'", r.get(4).get("message").asText());
        assertEquals(5, r.get(5).get("id").asInt());
        assertEquals("error", r.get(5).get("type").asText());
        assertEquals("'event' must be a string", r.get(6).get("message").asText());
        assertEquals("error", r.get(7).get("type").asText());
        assertTrue(r.get(8).get("message").asText().contains("longer than"), r.get(8).toString());
        assertEquals("bye", r.get(9).get("type").asText());
        assertEquals(10, r.size(), "nothing is served after quit");
    }

    /** Against the live kernel: a filter verdict, then a capture whose counters come back. */
    @Test
    @Tag("live")
    void validatesFiltersAndRunsACapture() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        PipedOutputStream toServer = new PipedOutputStream();
        PipedInputStream serverIn = new PipedInputStream(toServer, 1 << 20);
        PipedInputStream fromServer = new PipedInputStream(1 << 22);
        PipedOutputStream serverOut = new PipedOutputStream(fromServer);
        BackendServer server = new BackendServer(top, serverOut, (i, p, t, s) -> null);
        Thread th = new Thread(() -> {
            try {
                server.serve(serverIn);
                serverOut.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        th.start();
        BlockingQueue<JsonNode> replies = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (var br = new BufferedReader(new InputStreamReader(fromServer, StandardCharsets.UTF_8))) {
                String l;
                while ((l = br.readLine()) != null) {
                    replies.add(JSON.readTree(l));
                }
            } catch (IOException ignored) {
                // the server closed
            }
        });
        reader.start();
        Consumer<String> cmd = s -> {
            try {
                toServer.write((s + "\n").getBytes(StandardCharsets.UTF_8));
                toServer.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        cmd.accept("{\"type\":\"validateFilter\",\"id\":1,\"event\":\"sched:sched_switch\",\"filter\":\"prev_pidd == 1\"}");
        JsonNode v = next(replies, "filterResult");
        assertFalse(v.get("accepted").asBoolean());
        assertEquals("Field not found", v.get("message").asText());
        assertEquals(10, v.get("position").asInt());
        cmd.accept("{\"type\":\"startCapture\",\"id\":2,\"events\":[{\"event\":\"sched:sched_switch\"},"
                + "{\"event\":\"sched:sched_wakeup\",\"filter\":\"prio < 200\"}]}");
        JsonNode started = next(replies, "started");
        assertTrue(started.get("instance").asText().startsWith("tracewire-"));
        assertTrue(top.instanceNames().contains(started.get("instance").asText()));
        JsonNode stats = next(replies, "stats");
        assertTrue(stats.get("running").asBoolean(), stats.toString());
        assertEquals(top.cpus().size(), stats.get("cpus").size(), stats.toString());
        cmd.accept("{\"type\":\"stopCapture\",\"id\":3}");
        JsonNode stopped = next(replies, "stopped");
        JsonNode fin = stopped.get("stats");
        assertFalse(fin.get("running").asBoolean(), "final stats are taken after the capture stopped");
        assertTrue(fin.get("events").asLong() > 0);
        long read = 0;
        for (JsonNode c : fin.get("cpus")) {
            read += c.get("records").asLong();
        }
        // final: after the drain, every record read was emitted (only events of known formats were enabled)
        assertEquals(read, fin.get("events").asLong(), fin.toString());
        assertFalse(top.instanceNames().contains(started.get("instance").asText()), "instance left behind");
        cmd.accept("{\"type\":\"quit\",\"id\":4}");
        next(replies, "bye");
        th.join(10_000);
        assertFalse(th.isAlive());
    }

    private static JsonNode next(BlockingQueue<JsonNode> q, String type) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            JsonNode n = q.poll(100, TimeUnit.MILLISECONDS);
            if (n != null && n.get("type").asText().equals(type)) {
                return n;
            }
            if (n != null && n.get("type").asText().equals("error")) {
                throw new AssertionError("backend error: " + n);
            }
        }
        throw new AssertionError("no '" + type + "' message within 15 s");
    }
}
