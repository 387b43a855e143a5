package org.tracewire.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.tracetext.SavedCmdlines;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.ContextMessages;
import org.tracewire.wire.Ethernet;
import org.tracewire.wire.ContextPlanner;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.MacAddress;
import org.tracewire.wire.RecordFrames;
import org.tracewire.wire.WireContext;
import org.tracewire.wire.WireHeader;

/**
 * {@link FrameStream} learning its context as frames come (the app's live decoding): events of two
 * interleaved hosts (Ethernet sources) each decoded with its own formats and task names; LOST
 * context becomes the next event's {@code lostBefore} on its CPU; a new capture id starts the
 * scope afresh; reserved kinds and events before CAPTURE are skipped and counted.
 */
class FrameStreamTest {
    static List<ByteBuffer> frames(List<EventRecord> recs, ContextPcapng.Source src, String id, Map<Integer, Long> lost)
            throws Exception {
        List<ByteBuffer> out = new ArrayList<>();
        var capture = ContextMessages.capture(new ContextMessages.Capture(id, null, null, src.host(), "local",
                src.clockOffset(), 0, src.layout(), null, null, Map.of(), "test", List.of()));
        RecordFrames rf = new RecordFrames(new FrameEncoder(1500), capture,
                ContextPlanner.forRecords(ContextPlanner.Sources.ofFile(src.layout(), src.context(), src.tasks(), null,
                        src.formatText(), null)), src.clockOffset(),
                false, true, (f, t, len, l) -> out.add(ByteBuffer.allocate(f.remaining()).put(f.duplicate()).flip()));
        for (int i = 0; i < recs.size(); i++) {
            rf.event(recs.get(i), lost.getOrDefault(i, 0L));
        }
        return out;
    }

    private static SavedCmdlines named(List<EventRecord> recs, String name) {
        StringBuilder sb = new StringBuilder();
        recs.stream().map(EventRecord::pid).distinct().forEach(p -> sb.append(p).append(' ').append(name).append('\n'));
        return SavedCmdlines.parse(sb.toString());
    }

    @Test
    void twoHostsInterleavedEachWithItsOwnContext() throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 1500);
        ContextPcapng.Source src = ContextPcapng.snapshot(recs);
        List<ByteBuffer> a = frames(recs, src.withTasks(named(recs, "alpha")), "a", Map.of(5, 2L));
        List<ByteBuffer> b = frames(recs, src.withTasks(named(recs, "beta")), "b", Map.of());
        MacAddress ma = MacAddress.forHost("alpha");
        MacAddress mb = MacAddress.forHost("beta");
        FrameStream s = new FrameStream();
        List<RecordInput.Event> ea = new ArrayList<>();
        List<RecordInput.Event> eb = new ArrayList<>();
        for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
            if (i < a.size()) {
                RecordInput.Event e = s.ethernet(Ethernet.wrap(a.get(i), ma, 65535), i);
                if (e != null) {
                    ea.add(e);
                }
            }
            if (i < b.size()) {
                RecordInput.Event e = s.ethernet(Ethernet.wrap(b.get(i), mb, 65535), i);
                if (e != null) {
                    eb.add(e);
                }
            }
        }
        assertEquals(recs.size(), ea.size());
        assertEquals(recs.size(), eb.size());
        for (int i = 0; i < recs.size(); i++) {
            EventRecord r = recs.get(i);
            assertEquals(r.timestampNs(), ea.get(i).record().timestampNs());
            assertEquals(src.clockOffset() + r.timestampNs(), ea.get(i).timeNs());
            assertEquals(r.payload(), eb.get(i).record().payload());
            String want = r.pid() == 0 ? "<idle>" : "alpha";
            assertEquals(want, ea.get(i).renderer().comm(r.pid()));
            assertTrue(ea.get(i).renderer().line(r).contains(want + "-" + r.pid()), ea.get(i).renderer().line(r));
            assertTrue(eb.get(i).renderer().line(r).contains((r.pid() == 0 ? "<idle>" : "beta") + "-" + r.pid()));
            assertEquals(i == 5 ? 2 : 0, ea.get(i).lostBefore(), "event " + i);
            assertEquals(0, eb.get(i).lostBefore());
        }
        assertEquals(List.of(ma, mb), s.scopes());
        assertEquals(List.of("interface " + ma + ": cpu " + recs.get(5).cpu() + ": 2 events lost"), s.summary());
    }

    @Test
    void aNewCaptureStartsAfreshAndStrayFramesAreCounted() throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 200);
        ContextPcapng.Source src = ContextPcapng.snapshot(recs);
        List<ByteBuffer> one = frames(recs, src, "one", Map.of());
        FrameStream s = new FrameStream();
        // an event before any CAPTURE: skipped
        ByteBuffer firstEvent = one.stream().filter(f -> (f.get(1) & 0x0f) == 0).findFirst().orElseThrow();
        assertNull(s.bare("x", firstEvent, 1));
        int n = 0;
        for (ByteBuffer f : one) {
            if (s.bare("x", f, 1) != null) {
                n++;
            }
        }
        assertEquals(recs.size(), n);
        // another capture in the same scope: its CAPTURE forgets the formats until its own FORMAT frames come
        FrameEncoder enc = new FrameEncoder();
        ContextMessage capture = ContextMessages.capture(new ContextMessages.Capture("two", null, null, "h", "local", 0, 0,
                src.layout(), null, null, Map.of(), "test", List.of()));
        for (ByteBuffer f : enc.context(capture, WireHeader.NO_CPU, true, 1)) {
            assertNull(s.bare("x", f, 1));
        }
        assertNull(s.bare("x", firstEvent, 1), "the formats of capture one are gone");
        assertEquals(0, s.context("x").catalog().formats().size());
        // a reserved kind
        ByteBuffer reserved = enc.context(ContextMessage.builder(FrameKind.LOST).u64(1, 1).build(), 0, true, 1).get(0);
        reserved.put(1, (byte) 0x17);
        assertNull(s.bare("x", reserved, 1));
        assertEquals(List.of("0 packets not tracewire frames, 0 malformed frames, 1 frames of events without a format "
                + "in the file skipped", "1 event frames before their capture's CAPTURE context skipped (the stream was "
                + "joined late)", "1 frames of reserved kinds skipped"), s.summary());
    }

    /**
     * A capture that stops in the middle of a fragmented context message, then another capture from
     * the same source (a live view across two runs): the new capture numbers its messages afresh, so
     * without forgetting the old fragments its first fragmented message of that kind would be glued
     * to the old one's first fragment (the first tasks would keep the old capture's names).
     */
    @Test
    void aNewCaptureForgetsTheOldCapturesPendingFragments() throws Exception {
        ContextPcapng.Source src = ContextPcapng.snapshot(FixtureRecords.load().subList(0, 10));
        FrameStream s = new FrameStream();
        for (String run : List.of("one", "two")) {
            FrameEncoder enc = new FrameEncoder(); // a new capture: message ids from the start
            ContextMessage capture = ContextMessages.capture(new ContextMessages.Capture(run, null, null, "h", "local", 0,
                    0, src.layout(), null, null, Map.of(), "test", List.of()));
            ContextMessage.Builder tasks = ContextMessage.builder(FrameKind.PROCESS);
            for (int pid = 1000; pid < 1200; pid++) {
                tasks.task(pid, pid, run + "-task-" + pid); // the same length in both runs
            }
            List<ByteBuffer> frames = new ArrayList<>(enc.context(capture, WireHeader.NO_CPU, true, 1));
            List<ByteBuffer> process = enc.context(tasks.build(), 0, true, 2);
            assertTrue(process.size() > 2, "a message of several fragments");
            // run one ends after the first fragment of its PROCESS message; run two sends all of its own
            frames.addAll(run.equals("one") ? process.subList(0, 1) : process);
            for (ByteBuffer f : frames) {
                assertNull(s.bare("x", f, 1));
            }
        }
        Map<Integer, WireContext.Task> tasks = s.context("x").tasks();
        assertEquals(200, tasks.size());
        for (WireContext.Task t : tasks.values()) {
            assertEquals("two-task-" + t.pid(), t.comm());
        }
        assertEquals(List.of(), s.summary());
    }
}
