package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * The derived views over a pcapng of the checked-in ring-buffer fixture (real records of this
 * machine: sched, syscalls, irq, softirq, ...): {@code latency} pair for pair against
 * {@link org.tracewire.analysis.LatencyTracker}; the live counterpart is {@code DerivedViewsLiveTest}.
 */
class DerivedViewsTest {
    @TempDir
    Path dir;

    @Test
    void latencyEqualsTheTrackerPairForPair() throws Exception {
        List<EventRecord> recs = FixtureRecords.load();
        Path file = ContextPcapng.write(dir.resolve("f.pcapng"), recs, ContextPcapng.snapshot(recs), Map.of());
        List<String> want = ViewOracle.trackerPairs(file);
        try (CaptureStore store = CaptureStore.open(List.of(file), new StoreCache(dir.resolve("cache"), 1L << 30), null);
             Statement s = store.connection().createStatement()) {
            List<String> got = ViewOracle.latencyRows(s);
            Map<String, Integer> kinds = new TreeMap<>();
            want.forEach(r -> kinds.merge(r.substring(0, r.indexOf('|')), 1, Integer::sum));
            System.out.println("fixture latency pairs: " + kinds);
            assertTrue(want.size() > 20, "pairs: " + want.size());
            assertEquals(want, got);
            assertEquals(DerivedViews.LATENCY_COLUMNS, columns(s, "latency"));
            assertEquals(List.of(), ViewOracle.rows(s, "SELECT * FROM sched_latency EXCEPT ALL SELECT host, pid, comm,"
                    + " waker_pid, cpu, start_frame, start_ts, frame, ts, result, latency FROM latency WHERE kind = 'sched_wakeup'"));
        }
    }

    @Test
    void withoutItsEventsLatencyIsEmptyAndTyped() throws Exception {
        List<EventRecord> recs = FixtureRecords.load().stream()
                .filter(r -> r.format().system().equals("timer")).toList();
        assertTrue(recs.size() > 10, "timer records: " + recs.size());
        Path file = ContextPcapng.write(dir.resolve("t.pcapng"), recs, ContextPcapng.snapshot(recs), Map.of());
        try (CaptureStore store = CaptureStore.open(List.of(file), new StoreCache(dir.resolve("cache"), 1L << 30), null);
             Statement s = store.connection().createStatement()) {
            assertEquals(List.of("0"), ViewOracle.rows(s, "SELECT count(*) FROM latency"));
            assertEquals(DerivedViews.LATENCY_COLUMNS, columns(s, "latency"));
            assertEquals(List.of("0"), ViewOracle.rows(s, "SELECT count(*) FROM thread_state"));
            assertEquals("host VARCHAR, ts BIGINT, dur BIGINT, pid INTEGER, comm VARCHAR, state VARCHAR, cpu INTEGER",
                    columns(s, "thread_state"));
        }
    }

    /** A view's columns as {@code name TYPE, ...}. */
    static String columns(Statement s, String view) throws Exception {
        return String.join(", ", ViewOracle.rows(s, "SELECT column_name || ' ' || data_type FROM information_schema.columns"
                + " WHERE table_name = '" + view + "' AND table_schema = 'main' ORDER BY ordinal_position"));
    }
}
