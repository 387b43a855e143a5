package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;

/** {@code report --stat}: per buffer and CPU, the events a file holds, counted independently here. */
class ReportStatTest {
    @Test
    void countsPerCpuEqualTheRecordsWritten(@TempDir Path dir) throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 2000);
        Path file = ContextPcapng.write(dir.resolve("s.pcapng"), recs, ContextPcapng.snapshot(recs), Map.of());
        ReportCommandTest.Result r = ReportCommandTest.cli("report", "--stat", file.toString());
        assertEquals(0, r.rc(), r.err());
        Map<Integer, Long> perCpu = recs.stream().collect(Collectors.groupingBy(EventRecord::cpu, Collectors.counting()));
        for (var e : perCpu.entrySet()) {
            assertTrue(r.out().lines().anyMatch(l -> l.matches("top\\s+" + e.getKey() + "\\s+" + e.getValue() + "\\s+\\d+")),
                    "cpu " + e.getKey() + ": " + e.getValue() + " events\n" + r.out());
        }
        assertTrue(r.out().lines().anyMatch(l -> l.matches("all\\s+" + recs.size() + "\\s+\\d+")), r.out());
    }
}
