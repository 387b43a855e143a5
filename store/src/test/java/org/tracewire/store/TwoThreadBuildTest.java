package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.duckdb.DuckDBConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.input.PcapngInput;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * The build of two threads ({@link Inserter}, docs/decisions/0029) against the build of one, on a
 * pcapng of the checked-in fixture's real records repeated (times shifted) until every table's
 * batch is handed off several times at its largest: the same store table by table (rows, and a
 * checksum of every column that depends on the row order); the same partial store of a cut file;
 * DuckDB's refusal of an {@code INSERT} thrown to the caller with its message, no thread left.
 */
class TwoThreadBuildTest {
    @TempDir
    Path dir;

    /** The fixture's records {@code times} over, each round later than the last. */
    private Path repeated(String name, int times) throws IOException {
        List<EventRecord> recs = FixtureRecords.load();
        long span = recs.get(recs.size() - 1).timestampNs() - recs.get(0).timestampNs() + 1000;
        List<EventRecord> all = new ArrayList<>();
        for (int k = 0; k < times; k++) {
            for (EventRecord r : recs) {
                all.add(new EventRecord(r.format(), r.layout(), r.cpu(), r.timestampNs() + k * span, r.payload()));
            }
        }
        return ContextPcapng.write(dir.resolve(name), all, ContextPcapng.snapshot(recs), Map.of(10, 3L, 2000, 7L));
    }

    private static DuckDBConnection open(String url) throws SQLException {
        DuckDBConnection c = (DuckDBConnection) DriverManager.getConnection(url);
        try (Statement s = c.createStatement()) {
            s.execute("SET threads = 1"); // as StoreFiles builds
        }
        return c;
    }

    /** Builds {@code file} into {@code c}, on two threads or one. */
    private static StoreBuilder.Result build(Path file, DuckDBConnection c, boolean twoThreads)
            throws IOException, SQLException {
        return build(file, c, twoThreads, null, BuildBatches.BATCH_BYTES);
    }

    private static StoreBuilder.Result build(Path file, DuckDBConnection c, boolean twoThreads, LongConsumer counted,
                                             long batchBytes) throws IOException, SQLException {
        try (PcapngInput in = PcapngInput.follow(file.toRealPath(), () -> false)) {
            return StoreBuilder.build(in, c, "the fixture", counted, null, twoThreads, batchBytes, EventRows.UNION_MAX);
        }
    }

    /**
     * A store of more typed tables than a union takes (the fixture has over 200 event types):
     * {@code event_rows} read from its own table equals the union of the typed tables that a store
     * allowed a union of every table gives, row for row; the table holds every event once.
     */
    @Test
    void eventRowsOfManyTablesEqualTheUnionOfThem() throws Exception {
        Path file = repeated("u.pcapng", 1);
        try (DuckDBConnection union = open("jdbc:duckdb:" + dir.resolve("union.duckdb"));
             DuckDBConnection table = open("jdbc:duckdb:" + dir.resolve("table.duckdb"));
             PcapngInput a = PcapngInput.follow(file.toRealPath(), () -> false);
             PcapngInput b = PcapngInput.follow(file.toRealPath(), () -> false)) {
            StoreBuilder.Result r1 = StoreBuilder.build(a, union, "the fixture", null, null, true, 4L << 20, Integer.MAX_VALUE);
            StoreBuilder.Result r2 = StoreBuilder.build(b, table, "the fixture", null, null, true, 4L << 20, EventRows.UNION_MAX);
            assertEquals(r1, r2);
            long tables = number(table, "SELECT count(*) FROM event_tables");
            assertTrue(tables > EventRows.UNION_MAX, "typed tables: " + tables);
            assertEquals(0, number(union, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'event_rows_wide'"));
            assertEquals(r2.events(), number(table, "SELECT count(*) FROM event_rows_wide"));
            assertEquals(r2.events(), number(table, "SELECT count(DISTINCT frame) FROM event_rows"));
            String rows = "SELECT sum(hash(frame, ts, trace_ts, cpu, pid, kind, event, id, flags, preempt_count, file_offset,"
                    + " capture, truncated) % 1000003) FROM event_rows";
            assertEquals(number(union, rows), number(table, rows));
        }
        assertFalse(inserterAlive());
    }

    /** Per table: its row count and, per column, a checksum of the values with their row numbers. */
    private static Map<String, List<String>> content(DuckDBConnection c) throws SQLException {
        Map<String, List<String>> out = new LinkedHashMap<>();
        List<String> tables = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT table_name FROM duckdb_tables() ORDER BY table_name")) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
        }
        for (String t : tables) {
            List<String> row = new ArrayList<>();
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*), sum(hash(rowid, COLUMNS(*))) FROM " + Sql.quote(t))) {
                assertTrue(rs.next());
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    row.add(rs.getString(i));
                }
            }
            out.put(t, row);
        }
        return out;
    }

    /** The one number a query gives. */
    private static long number(DuckDBConnection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }

    @Test
    void theStoreOfTwoThreadsEqualsTheStoreOfOneTableByTable() throws Exception {
        Path file = repeated("r.pcapng", 30);
        try (DuckDBConnection one = open("jdbc:duckdb:" + dir.resolve("one.duckdb"));
             DuckDBConnection two = open("jdbc:duckdb:" + dir.resolve("two.duckdb"))) {
            StoreBuilder.Result r1 = build(file, one, false);
            StoreBuilder.Result r2 = build(file, two, true);
            assertEquals(r1, r2);
            long events = number(two, "SELECT count(*) FROM " + TypedUnion.frames(two, ""));
            assertTrue(events > 4L * TableBatch.MAX_ROWS, "events: " + events);
            long most = number(two, "SELECT max(n) FROM (SELECT count(*) AS n FROM " + TypedUnion.frames(two, "")
                    + " GROUP BY table_name)");
            assertTrue(most > 2L * TableBatch.MAX_ROWS, "the largest typed table: " + most);
            Map<String, List<String>> a = content(one);
            Map<String, List<String>> b = content(two);
            assertTrue(a.size() > 10, "tables: " + a.keySet());
            assertEquals(a, b);
        }
        assertFalse(inserterAlive());
    }

    /**
     * With a budget of 12 MiB for all batches (2 sets each on two threads), every batch is written
     * and let go again and again ({@link BuildBatches#writeAll}): the same store all the same.
     */
    @Test
    void aSmallBatchBudgetGivesTheSameStoreOnTwoThreads() throws Exception {
        Path file = repeated("s.pcapng", 10);
        try (DuckDBConnection one = open("jdbc:duckdb:" + dir.resolve("one.duckdb"));
             DuckDBConnection two = open("jdbc:duckdb:" + dir.resolve("two.duckdb"))) {
            StoreBuilder.Result r1 = build(file, one, false, null, 12L << 20);
            StoreBuilder.Result r2 = build(file, two, true, null, 12L << 20);
            assertEquals(r1, r2);
            assertEquals(content(one), content(two));
        }
        assertFalse(inserterAlive());
    }

    @Test
    void aCutFileGivesTheSamePartialStoreOnTwoThreads() throws Exception {
        Path file = repeated("c.pcapng", 6);
        byte[] all = Files.readAllBytes(file);
        Path cut = dir.resolve("cut.pcapng");
        Files.write(cut, Arrays.copyOf(all, all.length * 2 / 3 + 5));
        try (DuckDBConnection one = open("jdbc:duckdb:" + dir.resolve("one.duckdb"));
             DuckDBConnection two = open("jdbc:duckdb:" + dir.resolve("two.duckdb"))) {
            StoreBuilder.Result r1 = build(cut, one, false);
            StoreBuilder.Result r2 = build(cut, two, true);
            assertNotNull(r2.stoppedAt());
            assertTrue(r2.stoppedAt().matches("after " + r2.events() + " events: .*pcapng offset \\d+: the file ends"
                    + " inside a block .*"), r2.stoppedAt());
            assertEquals(r1, r2);
            assertEquals(content(one), content(two));
            try (Statement s = two.createStatement();
                 ResultSet rs = s.executeQuery("SELECT value FROM meta WHERE key = 'stopped_at'")) {
                assertTrue(rs.next());
                assertEquals(r2.stoppedAt(), rs.getString(1));
            }
        }
    }

    @Test
    void anInsertDuckDbRefusesIsThrownWithItsMessageAndNoThreadStays() throws Exception {
        Path file = repeated("m.pcapng", 40);
        // an in-memory database of 24 MB, no temporary files: a batch's INSERT runs out of memory (at
        // 48 MB, later, DuckDB's C API sometimes ran out while a string was put into a vector and
        // aborted the JVM: it cannot throw there)
        String url = "jdbc:duckdb:";
        SQLException one;
        SQLException two;
        try (DuckDBConnection c = open(url)) {
            limit(c);
            one = assertThrows(SQLException.class, () -> build(file, c, false));
        }
        AtomicLong read = new AtomicLong();
        try (DuckDBConnection c = open(url)) {
            limit(c);
            two = assertThrows(SQLException.class, () -> build(file, c, true, read::set, BuildBatches.BATCH_BYTES));
        }
        assertTrue(two.getMessage().contains("Out of Memory"), two.getMessage());
        assertTrue(Arrays.stream(two.getStackTrace()).anyMatch(f -> f.getClassName().equals(BatchFunction.class.getName())),
                "refused by a batch's INSERT, not by the tables' making");
        // the refusal DuckDB raised on the inserting thread, the very exception, as on one thread
        // (where it runs out differs by a block or so: DuckDB counts its memory per thread)
        assertEquals(one.getClass(), two.getClass());
        // DuckDB's words: "could not allocate block of size …" or "failed to allocate data of size …"
        String refusal = "Out of Memory Error: ";
        assertTrue(one.getMessage().startsWith(refusal) && one.getMessage().contains("allocate"), one.getMessage());
        assertTrue(two.getMessage().startsWith(refusal) && two.getMessage().contains("allocate"), two.getMessage());
        assertTrue(Arrays.stream(two.getStackTrace()).anyMatch(f -> f.getClassName().equals(Inserter.class.getName())),
                "thrown on the inserting thread");
        assertFalse(inserterAlive(), "the inserting thread ended");
    }

    private static void limit(DuckDBConnection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET memory_limit = '24MB'");
            s.execute("SET temp_directory = ''");
        }
    }

    private static boolean inserterAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().startsWith(Inserter.THREAD_NAME) && t.isAlive()); // either inserter
    }
}
