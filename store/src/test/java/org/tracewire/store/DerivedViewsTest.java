package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
            // exported with the other views (the macro event_rate is no table: not exported)
            Path out = dir.resolve("parquet");
            Map<String, Long> written = store.exportParquet(out);
            for (String v : List.of("latency", "thread_state")) {
                String cols = String.join(", ", ViewOracle.rows(s, "SELECT column_name FROM information_schema.columns"
                        + " WHERE table_name = '" + v + "' AND table_schema = 'main' ORDER BY ordinal_position"));
                List<String> rows = ViewOracle.sortedRows(s, "SELECT " + cols + " FROM " + v);
                assertEquals(rows.size(), written.get(v), v);
                assertEquals(rows, ViewOracle.sortedRows(s, "SELECT " + cols + " FROM read_parquet('" + out + "/" + v
                        + "/*/*.parquet', hive_partitioning = true, union_by_name = true)"), v + " read back");
            }
            assertFalse(written.containsKey("event_rate"), written.keySet().toString());
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

    @Test
    void anEventWhoseFormatLacksAFieldIsLeftOutAsTheTrackerIgnoresIt() throws Exception {
        List<EventRecord> recs = FixtureRecords.load();
        ContextPcapng.Source snap = ContextPcapng.snapshot(recs);
        // the file's sched_wakeup(_new) formats without target_cpu: the tracker ignores those records
        ContextPcapng.Source damaged = new ContextPcapng.Source(snap.host(), snap.captureId(), snap.layout(),
                snap.context(), snap.tasks(), f -> f.name().startsWith("sched_wakeup")
                        ? snap.formatText().apply(f).replaceAll("\tfield:int target_cpu;[^\n]*\n", "")
                        : snap.formatText().apply(f), snap.headerPage(), snap.headerEvent(), snap.clock(),
                snap.clockOffset());
        Path file = ContextPcapng.write(dir.resolve("d.pcapng"), recs, damaged, Map.of());
        List<String> want = ViewOracle.trackerPairs(file);
        try (CaptureStore store = CaptureStore.open(List.of(file), new StoreCache(dir.resolve("cache"), 1L << 30), null);
             Statement s = store.connection().createStatement()) {
            assertEquals("its format has no field target_cpu", store.missingViews().get("latency pairs of sched:sched_wakeup"));
            assertEquals(want, ViewOracle.latencyRows(s));
            assertTrue(want.stream().noneMatch(r -> r.startsWith("sched_wakeup|")), "no wakeup pairs");
            assertTrue(want.stream().anyMatch(r -> r.startsWith("irq|")), "the other kinds remain");
            assertEquals(List.of("0"), ViewOracle.rows(s, "SELECT count(*) FROM sched_latency"));
        }
    }

    /** A view's columns as {@code name TYPE, ...}. */
    static String columns(Statement s, String view) throws Exception {
        return String.join(", ", ViewOracle.rows(s, "SELECT column_name || ' ' || data_type FROM information_schema.columns"
                + " WHERE table_name = '" + view + "' AND table_schema = 'main' ORDER BY ordinal_position"));
    }
}
