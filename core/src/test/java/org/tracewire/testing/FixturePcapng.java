package org.tracewire.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.record.EventRecord;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.ContextMessages;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.WireHeader;

/**
 * Writes real records ({@link FixtureRecords}) as a pcapng of tracewire version-2 frames, as a
 * capture's {@code -w} output holds them: one interface (link type 162), a CAPTURE frame first, each
 * event's FORMAT frame (the snapshot's format text) before its first EVENT frame, each frame's time =
 * {@link #EPOCH_NS} + the record's trace-clock time. No symbols, tasks or constants: what the
 * snapshot cannot say.
 */
public final class FixturePcapng {
    /** The wall-clock time added to the records' time stamps: 2023-11-14T22:13:20Z. */
    public static final long EPOCH_NS = 1_700_000_000_000_000_000L;

    private FixturePcapng() {
    }

    /**
     * @param file    where to write
     * @param records the records (of the snapshot's formats), in file order
     * @return the file
     * @throws IOException when it cannot be written
     */
    public static Path write(Path file, List<EventRecord> records) throws IOException {
        return writeRuns(file, List.of(records));
    }

    /**
     * Several captures one after the other in one interface (as one interface recorded over
     * several runs): each run its own CAPTURE context (capture ids {@code fixture}, {@code fixture-2},
     * ...), then the FORMAT of each of its events before the first of them.
     *
     * @param file where to write
     * @param runs the records of each run (of the snapshot's formats), in file order
     * @return the file
     * @throws IOException when it cannot be written
     */
    public static Path writeRuns(Path file, List<List<EventRecord>> runs) throws IOException {
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        ByteBuffer frame = ByteBuffer.allocate(FrameEncoder.MAX_FRAME);
        try (PcapngWriter w = PcapngWriter.create(file, SectionInfo.host())) {
            int iface = w.addInterface(InterfaceInfo.tracewire("tracewire", "fixture records", FrameEncoder.MAX_FRAME));
            boolean le = snap.layout().byteOrder() == ByteOrder.LITTLE_ENDIAN;
            for (int run = 0; run < runs.size(); run++) {
                // a new capture numbers its context messages afresh, as a new capture process does
                writeRun(w, iface, new FrameEncoder(), frame, snap, le, run == 0 ? "fixture" : "fixture-" + (run + 1), runs.get(run));
            }
        }
        return file;
    }

    private static void writeRun(PcapngWriter w, int iface, FrameEncoder encoder, ByteBuffer frame, Tracefs snap,
            boolean le, String captureId, List<EventRecord> records) throws IOException {
        Set<Integer> described = new HashSet<>();
        var capture = ContextMessages.capture(new ContextMessages.Capture(captureId, null, null, "fixture", "local",
                EPOCH_NS, 0, snap.layout(), snap.read("events/header_page"), null, Map.of(), "test", List.of()));
        for (ByteBuffer f : encoder.context(capture, WireHeader.NO_CPU, le, EPOCH_NS)) {
            w.writePacket(iface, EPOCH_NS, f, f.remaining(), 0);
        }
        for (EventRecord r : records) {
            long time = EPOCH_NS + r.timestampNs();
            if (described.add(r.format().id())) {
                String text = snap.read("events/" + r.format().system() + "/" + r.format().name() + "/format");
                for (ByteBuffer f : encoder.context(ContextMessages.format(r.format(), text, null, Map.of()),
                        WireHeader.NO_CPU, le, time)) {
                    w.writePacket(iface, time, f, f.remaining(), 0);
                }
            }
            frame.clear();
            encoder.event(r.layout().byteOrder(), r.payload(), r.cpu(), time, false, frame);
            frame.flip();
            w.writePacket(iface, time, frame, frame.remaining(), 0);
        }
    }
}
