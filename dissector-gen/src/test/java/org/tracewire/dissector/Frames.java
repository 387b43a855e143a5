package org.tracewire.dissector;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatIdentity;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.KernelLayout;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.record.EventRecord;
import org.tracewire.ringbuffer.PageFixture;
import org.tracewire.ringbuffer.RawRecord;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.MacAddress;

/** Frames for tests: records of the real-kernel page fixture, encoded by the Java reference codec. */
final class Frames {
    private Frames() {
    }

    static final MacAddress SRC = MacAddress.forHost("tracewire-dissector-test");

    /** Records of the checked-in page fixture (captured from this 6.18 kernel). */
    static List<EventRecord> fixtureRecords() throws IOException {
        FormatCatalog catalog = Tools.catalog();
        Map<Integer, EventFormat> byId = catalog.byId();
        KernelLayout kernel = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        SubBufferLayout layout = new SubBufferLayout(kernel, 0, 8, 8, 16, 4096, HeaderEvent.standard());
        List<EventRecord> out = new ArrayList<>();
        for (PageFixture.Page p : PageFixture.load()) {
            SubBuffer sb = SubBuffer.decode(PageFixture.buffer(p), layout, p.cpu());
            for (RawRecord raw : sb.records()) {
                EventFormat fmt = byId.get(raw.eventId());
                if (fmt != null) {
                    out.add(new EventRecord(fmt, kernel, p.cpu(), raw.timestamp(), raw.payload()));
                }
            }
        }
        return out;
    }

    /** Encodes records into a pcapng file (one frame each, sequence per CPU, lost count per record index). */
    static void write(Path file, List<EventRecord> records, long formatHash, Map<Integer, Long> lostAt)
            throws IOException {
        FrameEncoder enc = new FrameEncoder(MacAddress.TRACEWIRE, SRC, formatHash);
        ByteBuffer buf = ByteBuffer.allocate(1 << 16);
        Map<Integer, Long> seq = new HashMap<>();
        try (PcapngWriter w = PcapngWriter.create(file, new SectionInfo("test", "Linux", "tracewire test"))) {
            int ifc = w.addInterface(InterfaceInfo.ethernet("tracewire", "test frames", 65535));
            for (int i = 0; i < records.size(); i++) {
                EventRecord r = records.get(i);
                long s = seq.merge(r.cpu(), 1L, Long::sum) - 1;
                long lost = lostAt == null ? 0 : lostAt.getOrDefault(i, 0L);
                buf.clear();
                int n = enc.encode(r, r.cpu(), s, lost, r.timestampNs(), 0, buf);
                buf.flip();
                byte[] frame = new byte[n];
                buf.get(frame);
                w.writePacket(ifc, r.timestampNs(), frame);
            }
        }
    }

    static long hash() {
        return FormatIdentity.of(Tools.catalog());
    }
}
