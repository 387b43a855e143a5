package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * {@code context_offsets}: every packet block the build read without an event, in file order, so a
 * reader of single blocks learns the file's context from them alone (the app's FrameReader).
 */
class ContextOffsetsTest {
    @TempDir
    Path dir;

    @Test
    void theContextOffsetsAreEveryPacketBlockThatHoldsNoEvent() throws Exception {
        List<EventRecord> recs = FixtureRecords.load();
        int half = recs.size() / 2;
        // two captures one after the other: the second's CAPTURE and FORMAT blocks lie mid-file
        Path file = FixturePcapng.writeRuns(dir.resolve("two.pcapng"), List.of(recs.subList(0, half),
                recs.subList(half, recs.size())));
        List<Long> packets = new ArrayList<>();
        try (PcapngPacketReader r = new PcapngPacketReader(file)) {
            while (r.next() != null) {
                packets.add(r.packetOffset());
            }
        }
        try (CaptureStore store = CaptureStore.open(List.of(file), new StoreCache(dir.resolve("cache"), 1L << 30), null);
             Statement s = store.connection().createStatement()) {
            Set<Long> events = new HashSet<>();
            try (ResultSet rs = s.executeQuery("SELECT file_offset FROM events")) {
                while (rs.next()) {
                    events.add(rs.getLong(1));
                }
            }
            assertEquals(recs.size(), events.size(), "an offset per event");
            List<Long> want = packets.stream().filter(o -> !events.contains(o)).toList();
            List<Long> got = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT file_offset FROM s0.context_offsets ORDER BY rowid")) {
                while (rs.next()) {
                    got.add(rs.getLong(1));
                }
            }
            assertEquals(want, got, "in file order, as the build read them");
            assertEquals(packets.get(0), got.get(0), "the first CAPTURE block");
            assertTrue(got.size() > 4 && got.size() < recs.size() / 10, "context blocks: " + got.size());
        }
    }
}
