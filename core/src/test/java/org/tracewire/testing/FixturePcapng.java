package org.tracewire.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.tracewire.format.FormatIdentity;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.record.EventRecord;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.MacAddress;
import org.tracewire.wire.WireFrame;

/**
 * Writes real records ({@link FixtureRecords}) as a pcapng of tracewire frames, as a capture's
 * {@code --pcapng} output holds them: one Ethernet interface, one frame per record, the snapshot's
 * format identity, each frame's time = {@link #EPOCH_NS} + the record's trace-clock time.
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
        long hash = FormatIdentity.of(Tracefs.open(Prerequisites.snapshot()).formats());
        FrameEncoder encoder = new FrameEncoder(MacAddress.TRACEWIRE, MacAddress.localHost(), hash);
        ByteBuffer frame = ByteBuffer.allocate(WireFrame.DEFAULT_MAX_FRAME);
        try (PcapngWriter w = PcapngWriter.create(file, SectionInfo.host())) {
            int iface = w.addInterface(InterfaceInfo.ethernet("tracewire", "fixture records", WireFrame.DEFAULT_MAX_FRAME));
            long seq = 0;
            for (EventRecord r : records) {
                long time = EPOCH_NS + r.timestampNs();
                frame.clear();
                encoder.encode(r, r.cpu(), seq++, 0, time, 0, frame);
                frame.flip();
                w.writePacket(iface, time, frame, frame.remaining(), 0);
            }
        }
        return file;
    }
}
