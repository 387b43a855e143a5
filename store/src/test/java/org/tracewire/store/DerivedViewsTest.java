package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * The derived views over a pcapng of the checked-in ring-buffer fixture (real records of this
 * machine: sched, syscalls, irq, softirq, ...) against independent computations from the same
 * records ({@link ViewOracle#assertViews}: {@code latency} pair for pair against
 * {@link org.tracewire.analysis.LatencyTracker}, {@code thread_state}, {@code event_rate}); the
 * views' columns and types, also when a capture has none of their events. The live counterpart
 * is {@code DerivedViewsLiveTest}.
 */
class DerivedViewsTest {
    @TempDir
    Path dir;

    @Test
    void viewsEqualIndependentComputations() throws Exception {
        List<EventRecord> recs = FixtureRecords.load();
        Path file = ContextPcapng.write(dir.resolve("f.pcapng"), recs, ContextPcapng.snapshot(recs), Map.of());
        List<String> want = ViewOracle.trackerPairs(file);
        try (CaptureStore store = CaptureStore.open(List.of(file), new StoreCache(dir.resolve("cache"), 1L << 30), null);
             Statement s = store.connection().createStatement()) {
            System.out.println("fixture: " + ViewOracle.assertViews(s, file));
            for (String kind : List.of("sched_wakeup", "syscall", "irq", "softirq")) {
                assertTrue(want.stream().filter(r -> r.startsWith(kind + "|")).count() > 10, kind + " pairs");
            }
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
