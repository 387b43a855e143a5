package org.tracewire.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.tracewire.protocol.Messages.CaptureEvent;
import org.tracewire.protocol.Messages.CaptureRequest;
import org.tracewire.tracefs.EventSelection;

class ProtocolTest {
    /** One example of every message, optional fields both given and left out. */
    static List<Object> examples() {
        Messages.Stats stats = new Messages.Stats(true, 10, 2.5, 10, 1280,
                List.of(new Messages.CpuStat(0, 6, 1), new Messages.CpuStat(1, 4, 0, null, 3L, true)));
        return List.of(
                new Messages.HelloRequest(), new Messages.ListEventsRequest(),
                new Messages.FormatRequest("sched:sched_switch"),
                new Messages.ValidateFilterRequest("sched:sched_switch", "prev_pid == 1"),
                new CaptureRequest(List.of(new CaptureEvent("sched:sched_switch", "prev_pid == 1"),
                        new CaptureEvent("sched:sched_wakeup", null)), "tw0", "/tmp/x.pcapng", 4096, "mono"),
                new CaptureRequest(List.of(new CaptureEvent("sched:sched_switch", null)), null, null, null, null),
                new CaptureRequest(List.of(new CaptureEvent("syscalls:sys_enter_write", null)), "tw1", null, null, null,
                        true),
                new Messages.StopCaptureRequest(), new Messages.StatsRequest(), new Messages.QuitRequest(),
                new Messages.Hello(Protocol.VERSION, "6.18.0", true, "live tracefs /sys/kernel/tracing", 2),
                new Messages.EventList(List.of("sched:sched_switch", "sched:sched_wakeup")),
                new Messages.FormatReply(JsonNodeFactory.instance.objectNode().put("name", "sched_switch")),
                new Messages.FilterResult(false, "Field not found", 10),
                new Messages.Started("tracewire-1", "tw0", null),
                new Messages.Started("tracewire-1", null, "/tmp/x.pcapng"),
                stats, Messages.Stats.ZERO, new Messages.Stopped(stats), new Messages.Bye(),
                new Messages.Error("needs root"), new Messages.Error("bad filter", "sched:sched_switch", 3));
    }

    @Test
    void everyMessageRoundTrips() throws Exception {
        Set<Class<?>> covered = examples().stream().map(Object::getClass).collect(Collectors.toSet());
        Set<Class<?>> all = Stream.concat(Stream.of(Messages.Command.class.getPermittedSubclasses()),
                Stream.of(Messages.Reply.class.getPermittedSubclasses())).collect(Collectors.toSet());
        assertEquals(all, covered, "an example of every message");
        long id = 1;
        for (Object m : examples()) {
            for (Long withId : new Long[] {null, id++}) {
                byte[] line = Protocol.encodeLine(m, withId, Protocol.MAX_MESSAGE_BYTES);
                assertEquals('\n', line[line.length - 1]);
                String json = new String(line, 0, line.length - 1, StandardCharsets.UTF_8);
                assertTrue(json.indexOf('\n') < 0, json);
                Protocol.Envelope e = Protocol.parse(json);
                assertEquals(Protocol.typeOf(m.getClass()), e.type(), json);
                assertEquals(withId, e.id(), json);
                assertEquals(m, Protocol.read(e, m.getClass()), json);
                if (m instanceof Messages.Command) {
                    assertEquals(m, Protocol.readCommand(e), json);
                }
            }
        }
    }

    /** The wire shapes docs/backend-protocol.md shows. */
    @Test
    void wireShapesAreTheDocumentedOnes() {
        assertEquals("{\"type\":\"startCapture\",\"id\":7,\"events\":[{\"event\":\"sched:sched_switch\"}]}",
                Protocol.toJson(new CaptureRequest(List.of(new CaptureEvent("sched:sched_switch", null)), null, null,
                        null, null), 7L));
        assertEquals("{\"type\":\"started\",\"id\":2,\"instance\":\"tracewire-9\",\"iface\":null,\"pcapng\":\"/tmp/a\"}",
                Protocol.toJson(new Messages.Started("tracewire-9", null, "/tmp/a"), 2L));
        assertEquals("{\"type\":\"error\",\"message\":\"boom\"}", Protocol.toJson(new Messages.Error("boom"), null));
        assertEquals("{\"type\":\"quit\",\"id\":3}", Protocol.toJson(new Messages.QuitRequest(), 3L));
        assertEquals("{\"type\":\"stopped\",\"id\":4,\"stats\":{\"running\":false,\"events\":0,\"eventsPerSecond\":0.0,"
                + "\"frames\":0,\"bytes\":0,\"cpus\":[]}}",
                Protocol.toJson(new Messages.Stopped(Messages.Stats.ZERO), 4L));
    }

    /** {@code CaptureEvent} is the JSON form of the one model, {@link EventSelection}: same fields, both ways. */
    @Test
    void captureEventIsTheSelectionsJsonForm() throws Exception {
        EventSelection plain = EventSelection.parse("sched:sched_switch", "prev_pid == 1");
        EventSelection stacked = EventSelection.parse("sched:sched_wakeup", null, EventSelection.Stack.BOTH);
        CaptureRequest req = new CaptureRequest(List.of(CaptureEvent.of(plain), CaptureEvent.of(stacked)), null,
                null, null, null);
        String json = Protocol.toJson(req, null);
        assertEquals("{\"type\":\"startCapture\",\"events\":[{\"event\":\"sched:sched_switch\","
                + "\"filter\":\"prev_pid == 1\"},{\"event\":\"sched:sched_wakeup\",\"stack\":\"both\"}]}", json);
        CaptureRequest back = (CaptureRequest) Protocol.readCommand(Protocol.parse(json));
        assertEquals(List.of(plain, stacked), back.events().stream().map(CaptureEvent::toSelection).toList());
        assertEquals(EventSelection.Stack.NONE, new CaptureEvent("a:b", null, "none").toSelection().stack());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new CaptureEvent("sched:sched_switch", null, "kernal").toSelection()).getMessage().contains("kernal"));
        assertThrows(IllegalArgumentException.class, () -> new CaptureEvent("../x:y", null).toSelection());
    }

    private static String refused(String line, Class<?> cls) {
        return assertThrows(ProtocolException.class, () -> Protocol.read(Protocol.parse(line), cls)).getMessage();
    }

    /**
     * A peer of protocol 0.1.0 (which had a pushed event stream) is told that the versions differ,
     * both ways: its {@code startCapture} by the backend, its {@code stats} and {@code stopped} by
     * the client; the {@code hello} check names both versions.
     */
    @Test
    void thePreviousVersionIsRefusedNamingBothVersions() throws Exception {
        String old = refused("{\"type\":\"startCapture\",\"events\":[{\"event\":\"a:b\"}],\"stream\":false}",
                CaptureRequest.class);
        assertTrue(old.startsWith("startCapture: 'stream' is a field of protocol 0.1.0; this end speaks "
                + Protocol.VERSION), old);
        ProtocolException asCommand = assertThrows(ProtocolException.class, () -> Protocol.readCommand(Protocol.parse(
                "{\"type\":\"startCapture\",\"id\":1,\"events\":[{\"event\":\"a:b\"}],\"stream\":true}")));
        assertEquals(old, asCommand.getMessage());
        String stats = "{\"running\":false,\"events\":0,\"eventsPerSecond\":0,\"frames\":0,\"bytes\":0,"
                + "\"streamDropped\":0,\"cpus\":[]}";
        assertTrue(refused("{\"type\":\"stats\"," + stats.substring(1), Messages.Stats.class)
                .startsWith("stats: 'streamDropped' is a field of protocol 0.1.0"));
        assertTrue(refused("{\"type\":\"stopped\",\"id\":3,\"stats\":" + stats + "}", Messages.Stopped.class)
                .startsWith("stopped: 'streamDropped' is a field of protocol 0.1.0"));
        Protocol.checkVersion(Protocol.VERSION);
        String hello = assertThrows(ProtocolException.class, () -> Protocol.checkVersion("0.1.0")).getMessage();
        assertTrue(hello.startsWith("the backend speaks protocol 0.1.0, this client " + Protocol.VERSION), hello);
    }

    @Test
    void unknownMissingAndMistypedFieldsAreRefusedSayingWhere() {
        assertEquals("'event' must be a string", refused("{\"type\":\"format\",\"id\":1}", Messages.FormatRequest.class));
        assertEquals("'event' must be a string", refused("{\"type\":\"format\",\"event\":null}", Messages.FormatRequest.class));
        assertEquals("'event' must be a string", refused("{\"type\":\"format\",\"event\":5}", Messages.FormatRequest.class));
        assertEquals("unknown field 'evnt' in format",
                refused("{\"type\":\"format\",\"event\":\"a:b\",\"evnt\":1}", Messages.FormatRequest.class));
        assertEquals("unknown field 'extra' in hello", refused("{\"type\":\"hello\",\"version\":\"0.1\",\"kernel\":\"6\","
                + "\"live\":true,\"label\":\"l\",\"cpus\":2,\"extra\":1}", Messages.Hello.class));
        assertEquals("'events[1].event' must be a string", refused("{\"type\":\"startCapture\","
                + "\"events\":[{\"event\":\"a:b\"},{\"filter\":\"x\"}]}", CaptureRequest.class));
        assertEquals("unknown field 'events[0].filtr' in startCapture", refused("{\"type\":\"startCapture\","
                + "\"events\":[{\"event\":\"a:b\",\"filtr\":\"x\"}]}", CaptureRequest.class));
        assertEquals("'events' must be an array", refused("{\"type\":\"startCapture\"}", CaptureRequest.class));
        assertEquals("'traceSelf' must be true or false", refused("{\"type\":\"startCapture\",\"events\":[],"
                + "\"traceSelf\":\"true\"}", CaptureRequest.class));
        assertEquals("'bufferKb' must be an integer (32 bits)", refused("{\"type\":\"startCapture\",\"events\":[],"
                + "\"bufferKb\":1.5}", CaptureRequest.class));
        assertEquals("'bufferKb' must be an integer (32 bits)", refused("{\"type\":\"startCapture\",\"events\":[],"
                + "\"bufferKb\":99999999999}", CaptureRequest.class));
        assertEquals("'events' must be an array", refused("{\"type\":\"startCapture\",\"events\":{}}",
                CaptureRequest.class));
        assertEquals("'cpus[0].lostKnown' must be an integer", refused("{\"type\":\"stats\",\"running\":true,"
                + "\"events\":1,\"eventsPerSecond\":1,\"frames\":1,\"bytes\":1,"
                + "\"cpus\":[{\"cpu\":0,\"records\":1,\"lostUnknownPages\":0}]}", Messages.Stats.class));
        assertEquals("expected a 'started' message, got 'error'",
                refused("{\"type\":\"error\",\"message\":\"x\"}", Messages.Started.class));
    }

    @Test
    void envelopesAndLimits() throws Exception {
        ProtocolException e = assertThrows(ProtocolException.class, () -> Protocol.parse("not json"));
        assertTrue(e.getMessage().startsWith("not JSON: "), e.getMessage());
        assertThrows(ProtocolException.class, () -> Protocol.parse("[1,2]"));
        assertThrows(ProtocolException.class, () -> Protocol.parse("{\"type\":1}"));
        assertThrows(ProtocolException.class, () -> Protocol.parse("{\"type\":\"hello\"} {}"));
        assertEquals("'id' must be an integer",
                assertThrows(ProtocolException.class, () -> Protocol.parse("{\"type\":\"hello\",\"id\":\"1\"}")).getMessage());
        assertEquals("unknown command type 'nope'", assertThrows(ProtocolException.class,
                () -> Protocol.readCommand(Protocol.parse("{\"type\":\"nope\",\"id\":1}"))).getMessage());
        String big = "x".repeat(Protocol.MAX_COMMAND_BYTES);
        e = assertThrows(ProtocolException.class, () -> Protocol.encodeLine(
                new Messages.ValidateFilterRequest("sched:sched_switch", big), 1L, Protocol.MAX_COMMAND_BYTES));
        assertTrue(e.getMessage().contains("the protocol allows " + Protocol.MAX_COMMAND_BYTES), e.getMessage());
        assertEquals(List.of("hello", "listEvents", "format", "validateFilter", "startCapture", "stopCapture", "stats",
                "quit"), List.copyOf(Protocol.commandTypes()));
    }
}
