package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.wire.ContextPlanner;
import org.tracewire.wire.FrameEncoder;

/**
 * A ring of pcapng files ({@link RingOutput}): dumpcap's names and {@code -b} words, and, on the
 * checked-in page fixture (real records of many events) written through a {@link FrameSink}: the
 * switch at the size, the oldest files removed, and each kept file read alone renders every event
 * as the same events of one unrotated file do (task names included), the kept files together
 * being the tail of the stream, with their frame and drop counts per file.
 */
class RingOutputTest {
    @Test
    void filesAreNamedAsDumpcapNamesThem() {
        LocalDateTime t = LocalDateTime.of(2026, 11, 27, 23, 35, 1);
        assertEquals(Path.of("/d/out_00001_20261127233501.pcapng"), RingOutput.fileName(Path.of("/d/out.pcapng"), 1, t));
        assertEquals(Path.of("a.b_00042_20261127233501.pcapng"), RingOutput.fileName(Path.of("a.b.pcapng"), 42, t));
        assertEquals(Path.of("/d/trace_00002_20261127233501"), RingOutput.fileName(Path.of("/d/trace"), 2, t));
        assertEquals(Path.of("/d/.hidden_00003_20261127233501"), RingOutput.fileName(Path.of("/d/.hidden"), 3, t));
        // ringbuffer.c numbers modulo 100000: five digits always
        assertEquals(Path.of("x_99999_20261127233501.pcapng"), RingOutput.fileName(Path.of("x.pcapng"), 99_999, t));
        assertEquals(Path.of("x_00000_20261127233501.pcapng"), RingOutput.fileName(Path.of("x.pcapng"), 100_000, t));
        assertEquals(Path.of("x_00001_20261127233501.pcapng"), RingOutput.fileName(Path.of("x.pcapng"), 100_001, t));
    }

    @Test
    void ringAndDumpcapWordsGiveTheSameSpec() {
        assertEquals(new RingOutput.Spec(100_000_000, 10, 0), RingOutput.Spec.parse("100,10", List.of()));
        assertEquals(new RingOutput.Spec(100_000_000, 10, 0),
                RingOutput.Spec.parse(null, List.of("filesize:100000", "files:10")));
        assertEquals(new RingOutput.Spec(500_000, 0, 0), RingOutput.Spec.parse("0.5,0", List.of()));
        assertEquals(new RingOutput.Spec(0, 3, 1_500_000_000L), RingOutput.Spec.parse(null, List.of("duration:1.5", "files:3")));
        // a later word wins, as in dumpcap
        assertEquals(new RingOutput.Spec(2000, 4, 0), RingOutput.Spec.parse("1,4", List.of("filesize:2")));
        assertEquals(null, RingOutput.Spec.parse(null, List.of()));
        assertEquals("files of 200000 bytes or 2 s, keeping 3",
                RingOutput.Spec.parse(null, List.of("filesize:200", "duration:2", "files:3")).describe());
    }

    @Test
    void badRingValuesSayWhatIsWrong() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RingOutput.Spec.parse("100", List.of()))
                .getMessage().contains("FILESIZE_MB,FILES"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RingOutput.Spec.parse(null, List.of("interval:5")))
                .getMessage().contains("-b interval:5"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RingOutput.Spec.parse(null, List.of("files:3")))
                .getMessage().contains("never ends"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RingOutput.Spec.parse(null, List.of("filesize:x")))
                .getMessage().contains("'x' is not a number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RingOutput.Spec.parse("-1,3", List.of()))
                .getMessage().contains("negative"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RingOutput.Spec.parse("1,2.5", List.of()))
                .getMessage().contains("whole number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RingOutput.Spec.parse("0,3", List.of()))
                .getMessage().contains("above 0"));
    }

    /**
     * When a file is done: once it holds an event and reached the size, or its events span the
     * duration (event times, ns); the event that finds it done goes into the next file; files:0
     * keeps every file.
     */
    @Test
    void aFileEndsAtItsSizeOrDurationAndHoldsAnEventFirst(@TempDir Path dir) throws IOException {
        Clock clock = Clock.fixed(Instant.parse("2026-11-27T23:35:01Z"), ZoneOffset.UTC);
        InterfaceInfo iface = InterfaceInfo.tracewire("tracewire", "test", FrameEncoder.MAX_FRAME);
        ByteBuffer frame = ByteBuffer.allocateDirect(FrameOutput.HEADROOM + 1000);
        try (RingOutput ring = new RingOutput(new RingOutput.Spec(0, 0, 1_000_000_000L), dir.resolve("d.pcapng"),
                SectionInfo.host(), iface, FrameOutputs.FileOpener.PLAIN, Files::delete, clock)) {
            assertFalse(ring.due(5_000_000_000L), "an empty file is never done");
            assertFalse(ring.due(5_900_000_000L));
            assertTrue(ring.due(6_000_000_000L), "1 s after the file's first event");
            ring.next(6_000_000_000L);
            assertFalse(ring.due(6_999_999_999L), "the event that switched is the new file's first");
            assertTrue(ring.due(7_000_000_000L));
            ring.next(7_000_000_000L);
            assertEquals(3, ring.files().size(), "files:0 keeps every file");
        }
        try (RingOutput ring = new RingOutput(new RingOutput.Spec(2000, 1, 0), dir.resolve("s.pcapng"),
                SectionInfo.host(), iface, FrameOutputs.FileOpener.PLAIN, Files::delete, clock)) {
            long headers = ring.size();
            assertTrue(headers > 0 && headers < 2000, "the section and interface blocks: " + headers);
            assertFalse(ring.due(1));
            for (int i = 0; i < 2; i++) {
                ring.write(frame.clear().position(FrameOutput.HEADROOM), 1, 0);
            }
            assertTrue(ring.size() >= 2000, "two 1000-byte frames and their blocks: " + ring.size());
            assertTrue(ring.due(2));
            Path first = ring.files().get(0);
            ring.next(2);
            assertEquals(1, ring.files().size());
            assertFalse(Files.exists(first), "files:1 removed the full one");
        }
    }

    /** A ring that cannot remove its oldest file fails as an output: dropped, the reason kept, the capture goes on. */
    @Test
    void aRingThatCannotSwitchIsDroppedAndSaysWhy(@TempDir Path dir) throws IOException {
        List<EventRecord> records = FixtureRecords.load().subList(0, 3000);
        RingOutput ring = new RingOutput(new RingOutput.Spec(20_000, 1, 1_000_000L), dir.resolve("x.pcapng"), SectionInfo.host(),
                InterfaceInfo.tracewire("tracewire", "test", FrameEncoder.MAX_FRAME), FrameOutputs.FileOpener.PLAIN,
                f -> {
                    throw new IOException("cannot remove " + f.getFileName());
                }, Clock.systemDefaultZone());
        Path first = ring.files().get(0);
        try (FrameSink sink = new FrameSink(List.of(ring), ContextTrackerTest.context(records,
                pid -> new ContextPlanner.Task(pid, "t")))) {
            feed(sink, records);
            assertEquals(1, sink.failures().size(), "the ring failed once, then got nothing more");
            OutputFailure f = sink.failures().get(0);
            assertEquals(ring.describe(), f.output());
            assertEquals("cannot remove " + first.getFileName(), f.reason());
        }
        assertTrue(Files.exists(first), "the file it could not remove is still there");
        try (Stream<Path> l = Files.list(dir)) {
            assertEquals(2, l.count(), "after its failure the ring opened no further file");
        }
        try (PcapngInput in = PcapngInput.open(first)) {
            assertTrue(in.events().hasNext(), "the first file holds its events and closes whole");
        }
    }

    /** The fixture's events once into one file, once into a ring of 3 files of 400 kB. */
    @Test
    void eachKeptFileDecodesAloneAsTheUnrotatedFileDoes(@TempDir Path dir) throws IOException {
        // then again the events that name no task but their own: in the ring's last files their
        // tasks were named before, by other events' comm fields in files since removed
        List<EventRecord> records = new ArrayList<>(FixtureRecords.load());
        records.addAll(records.stream().filter(r -> r.format().fields().stream()
                .noneMatch(f -> f.name().endsWith("comm"))).toList());
        // the host names every task "hostN": a name from a record's comm differs, so a file that
        // named a task afresh from the host instead of as the capture had would show it
        ContextPlanner.Tasks host = pid -> new ContextPlanner.Task(pid, "host" + pid);
        Path whole = dir.resolve("whole.pcapng");
        try (FrameSink sink = new FrameSink(List.of(ContextTrackerTest.pcapng(whole)),
                ContextTrackerTest.context(records, host))) {
            feed(sink, records);
        }
        Path base = dir.resolve("ring.pcapng");
        Clock clock = Clock.fixed(Instant.parse("2026-11-27T23:35:01Z"), ZoneOffset.UTC);
        List<Path> removed = new ArrayList<>();
        RingOutput ring = new RingOutput(new RingOutput.Spec(400_000, 3, 0), base, SectionInfo.host(),
                InterfaceInfo.tracewire("tracewire", "test", FrameEncoder.MAX_FRAME), FrameOutputs.FileOpener.PLAIN,
                f -> {
                    removed.add(f);
                    Files.delete(f);
                }, clock);
        String held;
        long sinkFrames;
        try (FrameSink sink = new FrameSink(List.of(ring), ContextTrackerTest.context(records, host))) {
            feed(sink, records);
            sink.flush();
            held = ring.held();
            sinkFrames = sink.frames();
        }
        List<Path> kept = ring.files();
        List<Path> onDisk;
        try (Stream<Path> s = Files.list(dir)) {
            onDisk = s.filter(p -> p.getFileName().toString().startsWith("ring_")).sorted().toList();
        }
        System.out.println(held);
        assertEquals(3, kept.size());
        assertEquals(kept, onDisk, "the kept files, and only they, are on disk");
        assertTrue(removed.size() >= 2, "the ring went round: " + removed.size() + " removed");
        for (int i = 0; i < kept.size(); i++) {
            assertEquals("ring_" + String.format("%05d", removed.size() + i + 1) + "_20261127233501.pcapng",
                    kept.get(i).getFileName().toString());
        }
        assertEquals(sinkFrames, ring.frames(), "the files hold every frame the sink wrote");

        List<String[]> wholeLines = lines(whole);
        assertEquals(records.size(), wholeLines.size());
        int next = wholeLines.size();
        long keptFrames = 0;
        long keptDrops = 0;
        for (int i = kept.size() - 1; i >= 0; i--) {
            Path f = kept.get(i);
            List<String[]> got = lines(f);
            assertTrue(got.size() > 0, f + " holds events");
            assertTrue(i == kept.size() - 1 || Files.size(f) >= 400_000, f + " reached the size before the switch");
            next -= got.size();
            for (int j = 0; j < got.size(); j++) {
                String[] want = wholeLines.get(next + j);
                assertEquals(want[0], got.get(j)[0], f + " event " + j + ": the same event, rendered alike");
                assertEquals(want[1], got.get(j)[1], f + " event " + j + " (" + want[0] + "): its task's name");
            }
            long[] counts = counts(f);
            assertTrue(held.contains(f + " " + counts[0] + " frames"), "the summary names " + f + " with its frames");
            keptFrames += counts[0];
            keptDrops += counts[1];
        }
        assertTrue(next > 0, "the removed files held the head of the stream");
        // the fixture's LOST before event 5 is in a removed file; the 4 lost at the end in the last one
        assertEquals(4, keptDrops, "each file's statistics block counts the drops of its own frames");
        assertTrue(held.contains(removed.size() + " older removed: " + (sinkFrames - keptFrames) + " frames, " + next
                + " events"), held);
    }

    /** Feeds every record to a sink, with 3 events lost before the 6th and 4 after the last. */
    private static void feed(FrameSink sink, List<EventRecord> records) throws IOException {
        sink.begin(1);
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            ByteBuffer payload = r.payload().duplicate().order(r.layout().byteOrder());
            sink.event(payload, payload.position(), payload.remaining(), r.format(), r.cpu(), ContextTrackerTest.time(r),
                    false, i == 5 ? 3 : 0);
        }
        sink.lostAtEnd(0, 4);
    }

    /** Every event of a file read alone: {cpu, time, event text}, {the task's name as the file gives it}. */
    private static List<String[]> lines(Path file) throws IOException {
        List<String[]> out = new ArrayList<>();
        try (PcapngInput in = PcapngInput.open(file)) {
            assertEquals(List.of(), in.context().problems(), file + ": context problems");
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                EventRecord r = e.record();
                assertFalse(r.format().name().startsWith("unknown"), file + ": an event of unknown format");
                String comm = in.cmdlines().comm(r.pid());
                assertFalse(comm.equals("<...>"), file + ": pid " + r.pid() + " unnamed");
                out.add(new String[] {r.cpu() + " " + e.timeNs() + " " + r.format().fullName() + ": "
                        + e.renderer().body(r), comm});
            }
            assertEquals(null, in.failure(), file + " read to its end");
        }
        return out;
    }

    /** {packets, isb_ifdrop} of a file. */
    private static long[] counts(Path file) throws IOException {
        long n = 0;
        try (PcapngPacketReader r = new PcapngPacketReader(file)) {
            while (r.next() != null) {
                n++;
            }
            return new long[] {n, r.statisticsDrops(0)};
        }
    }
}
