package org.tracewire.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.ringbuffer.PageFixture;
import org.tracewire.ringbuffer.RawRecord;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.tracefs.Tracefs;

/**
 * The checked-in page fixture ({@link PageFixture}: real sub-buffers of this machine, every CPU) decoded
 * into {@link EventRecord}s with the snapshot's formats, merged into one stream in time order (a stable
 * sort on {@code timestampNs}, so records of one CPU keep their page order), as a capture delivers them.
 */
public final class FixtureRecords {
    private static List<EventRecord> cached;

    private FixtureRecords() {
    }

    /**
     * All records of the fixture in time order (cached; records are immutable).
     *
     * @throws UncheckedIOException when the fixture cannot be read
     * @throws IllegalStateException when a record names an event id the snapshot does not know
     */
    public static synchronized List<EventRecord> load() {
        if (cached != null) {
            return cached;
        }
        Map<Integer, EventFormat> byId = Tracefs.open(Prerequisites.snapshot()).formats().byId();
        KernelLayout kernel = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        SubBufferLayout layout = new SubBufferLayout(kernel, 0, 8, 8, 16, 4096, HeaderEvent.standard());
        List<EventRecord> out = new ArrayList<>();
        try {
            for (PageFixture.Page p : PageFixture.load()) {
                for (RawRecord r : SubBuffer.decode(PageFixture.buffer(p), layout, p.cpu()).records()) {
                    EventFormat f = byId.get(r.eventId());
                    if (f == null) {
                        throw new IllegalStateException("fixture: unknown event id " + r.eventId() + " on cpu " + p.cpu());
                    }
                    out.add(new EventRecord(f, kernel, r.cpu(), r.timestamp(), r.payload()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.sort(Comparator.comparingLong(EventRecord::timestampNs));
        cached = List.copyOf(out);
        return cached;
    }
}
