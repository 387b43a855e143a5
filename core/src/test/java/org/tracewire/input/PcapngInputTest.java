package org.tracewire.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.format.Field;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngFormatException;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.ContextMessages;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireHeader;

/** A pcapng of real records reads back as the same records, with the formats of the file's own FORMAT context. */
class PcapngInputTest {
    @TempDir
    Path dir;

    @Test
    void framesBecomeTheRecordsAgain() throws IOException {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 2000);
        Path file = FixturePcapng.write(dir.resolve("f.pcapng"), recs);
        List<RecordInput.Event> got = new ArrayList<>();
        try (RecordInput in = RecordInput.open(file, null)) {
            assertInstanceOf(PcapngInput.class, in);
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                got.add(it.next());
            }
            assertTrue(in.wallClock());
            assertTrue(in.summary().isEmpty(), in.summary().toString());
            assertEquals("the file", in.formatsLabel(), "the formats come from the file's own FORMAT frames");
        }
        assertEquals(recs.size(), got.size());
        for (int i = 0; i < recs.size(); i++) {
            EventRecord a = recs.get(i);
            EventRecord b = got.get(i).record();
            assertTrue(i == 0 ? got.get(i).frame() == 3 : got.get(i).frame() > got.get(i - 1).frame(),
                    "frame numbers count every packet (CAPTURE and FORMAT frames too)");
            assertEquals(a.format(), b.format());
            assertEquals(a.cpu(), b.cpu());
            assertEquals(a.pid(), b.pid());
            assertEquals(a.timestampNs(), b.timestampNs(), "the record keeps the trace clock (header time - CAPTURE offset)");
            assertEquals(FixturePcapng.EPOCH_NS + a.timestampNs(), got.get(i).timeNs(), "the event's wall-clock time");
            for (Field f : a.format().fields()) {
                if (f.kind().isString()) {
                    assertEquals(a.string(f), b.string(f), a.format().fullName() + "." + f.name());
                } else if (f.size() == 1 || f.size() == 2 || f.size() == 4 || f.size() == 8) {
                    assertEquals(a.integer(f), b.integer(f), a.format().fullName() + "." + f.name());
                }
            }
        }
    }

    /**
     * A capture killed while writing leaves a file cut inside a block: the events of every complete
     * block are read, then {@link RecordInput#failure()} says where the file ends.
     */
    @Test
    void aFileCutInsideABlockGivesTheEventsBeforeIt() throws IOException {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 500);
        Path whole = FixturePcapng.write(dir.resolve("whole.pcapng"), recs);
        byte[] bytes = Files.readAllBytes(whole);
        Path cut = Files.write(dir.resolve("cut.pcapng"), Arrays.copyOf(bytes, bytes.length * 2 / 3 + 5));
        int complete = 0;
        try (PcapngPacketReader r = new PcapngPacketReader(cut)) {
            try {
                for (var p = r.next(); p != null; p = r.next()) {
                    complete += PcapngInput.frame(p).kind() == FrameKind.EVENT ? 1 : 0;
                }
            } catch (PcapngFormatException e) {
                assertTrue(e.truncated(), e.getMessage());
            }
        }
        List<RecordInput.Event> got = new ArrayList<>();
        try (RecordInput in = RecordInput.open(cut, null)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                got.add(it.next());
            }
            // a file's cut last block (a killed capture, a full disk) ends it: the failure says where
            assertTrue(in.failure() != null && in.failure().matches(Pattern.quote(cut.toString())
                    + ": pcapng offset \\d+: the file ends inside a block \\(a killed capture, or a full disk\\): the "
                    + "events of the blocks before it were read; .*"), in.failure());
        }
        assertTrue(got.size() > 100 && got.size() < recs.size(), "events read: " + got.size());
        assertEquals(complete, got.size(), "every event frame of a complete block");
        for (int i = 0; i < got.size(); i++) {
            assertEquals(recs.get(i).timestampNs(), got.get(i).record().timestampNs());
        }
        try (RecordInput in = RecordInput.open(whole, null)) {
            in.events().forEachRemaining(e -> { });
            assertEquals(null, in.failure());
        }
    }

    @Test
    void foreignPacketsAreSkippedAndCounted() throws IOException {
        Path file = dir.resolve("mixed.pcapng");
        List<EventRecord> recs = FixtureRecords.load().subList(0, 10);
        Path frames = FixturePcapng.write(dir.resolve("f.pcapng"), recs);
        // a file whose first packet is an IPv4-looking Ethernet frame, then the tracewire frames
        try (PcapngWriter w = PcapngWriter.create(file, SectionInfo.host());
             PcapngPacketReader r = new PcapngPacketReader(frames)) {
            int iface = w.addInterface(InterfaceInfo.ethernet("eth0", "mixed", 1514));
            int tw = w.addInterface(InterfaceInfo.tracewire("tracewire", "mixed", 65535));
            byte[] ip = new byte[60];
            ip[12] = 0x08;
            w.writePacket(iface, 1, ip);
            for (var p = r.next(); p != null; p = r.next()) {
                w.writePacket(tw, p.timeNs(), p.data());
            }
        }
        try (RecordInput in = RecordInput.open(file, null)) {
            Iterator<RecordInput.Event> it = in.events();
            RecordInput.Event first = it.next();
            assertEquals(4, first.frame(), "frame numbers count every packet (IP, CAPTURE, FORMAT), as Wireshark does");
            int n = 1;
            while (it.hasNext()) {
                it.next();
                n++;
            }
            assertEquals(10, n);
            assertEquals(List.of("1 packets not tracewire frames, 0 malformed frames, 0 frames of events without a format in the file skipped"), in.summary());
        }
    }

    @Test
    void otherFilesAreRefusedClearly() throws IOException {
        Path text = Files.writeString(dir.resolve("x.txt"), "hello, not a trace\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RecordInput.open(text, null));
        assertTrue(e.getMessage().contains("neither a trace.dat nor a pcapng"), e.getMessage());
        Path empty = dir.resolve("empty.pcapng");
        try (PcapngWriter w = PcapngWriter.create(empty, SectionInfo.host())) {
            w.addInterface(InterfaceInfo.ethernet("eth0", "none", 1514));
        }
        IOException none = assertThrows(IOException.class, () -> RecordInput.open(empty, null));
        assertTrue(none.getMessage().contains("no tracewire capture context"), none.getMessage());
        assertFalse(PcapngInput.hasMagic(new byte[] {1, 2, 3, 4}));
    }

    /**
     * Two captures in one interface of a file, the first ending inside a fragmented PROCESS message:
     * the second numbers its messages afresh, and its own message of that id is read whole, not
     * glued to the first one's leftover fragment (as {@code FrameStreamTest} for a live stream).
     */
    @Test
    void aSecondCaptureInOneInterfaceDoesNotInheritPendingFragments() throws IOException {
        Path file = dir.resolve("two-captures.pcapng");
        var layout = FixtureRecords.load().get(0).layout();
        try (PcapngWriter w = PcapngWriter.create(file, SectionInfo.host())) {
            int tw = w.addInterface(InterfaceInfo.tracewire("tracewire", "two captures", 65535));
            for (String run : List.of("one", "two")) {
                FrameEncoder enc = new FrameEncoder();
                ContextMessage capture = ContextMessages.capture(new ContextMessages.Capture(run, null, null, "h",
                        "local", 0, 0, layout, null, null, Map.of(), "test", List.of()));
                ContextMessage.Builder tasks = ContextMessage.builder(FrameKind.PROCESS);
                for (int pid = 1000; pid < 1200; pid++) {
                    tasks.task(pid, pid, run + "-task-" + pid);
                }
                List<ByteBuffer> frames = new ArrayList<>(enc.context(capture, WireHeader.NO_CPU, true, 1));
                List<ByteBuffer> process = enc.context(tasks.build(), 0, true, 2);
                assertTrue(process.size() > 2, "a message of several fragments");
                frames.addAll(run.equals("one") ? process.subList(0, 1) : process);
                for (ByteBuffer f : frames) {
                    w.writePacket(tw, 1, f, f.remaining(), 0);
                }
            }
        }
        var contexts = PcapngInput.readContext(file);
        assertEquals(1, contexts.size());
        var ctx = contexts.values().iterator().next();
        assertEquals(200, ctx.tasks().size());
        for (var t : ctx.tasks().values()) {
            assertEquals("two-task-" + t.pid(), t.comm());
        }
    }

    /**
     * One interface recorded over two captures, each describing only its own events: every event
     * of both is read with the formats of its own capture (a context read ahead from the whole
     * file would hold only the second capture's, and skip the first capture's events).
     */
    @Test
    void twoCapturesInOneInterfaceReadEachEventWithItsOwnCapturesFormats() throws IOException {
        List<EventRecord> recs = FixtureRecords.load();
        int firstId = recs.get(0).format().id();
        List<EventRecord> one = recs.stream().filter(r -> r.format().id() == firstId).limit(300).toList();
        List<EventRecord> two = recs.stream().filter(r -> r.format().id() != firstId).limit(300).toList();
        assertTrue(two.stream().noneMatch(r -> r.format().id() == firstId), "the second run lacks the first's event");
        Path file = FixturePcapng.writeRuns(dir.resolve("two-runs.pcapng"), List.of(one, two));
        List<EventRecord> got = new ArrayList<>();
        try (RecordInput in = RecordInput.open(file, null)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                got.add(it.next().record());
            }
            assertTrue(in.summary().stream().noneMatch(l -> l.contains("without a format")), in.summary().toString());
        }
        List<EventRecord> want = new ArrayList<>(one);
        want.addAll(two);
        assertEquals(want.size(), got.size(), "every event of both captures");
        for (int i = 0; i < want.size(); i++) {
            assertEquals(want.get(i).format().fullName(), got.get(i).format().fullName(), "event " + i);
            assertEquals(want.get(i).timestampNs(), got.get(i).timestampNs(), "event " + i);
        }
    }
}
