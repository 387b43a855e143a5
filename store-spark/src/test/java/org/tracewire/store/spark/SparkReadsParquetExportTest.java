package org.tracewire.store.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.cli.Main;
import org.tracewire.record.EventRecord;
import org.tracewire.store.CaptureStore;
import org.tracewire.store.StoreCache;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * Apache Spark SQL (local mode, no tracewire class involved in the reading) over the Parquet
 * dataset {@code tracewire export A B --parquet DIR} writes, against DuckDB over the capture store
 * of the same two files: the same aggregates, query for query. The two captures are real and of
 * two hosts: a pcapng of the checked-in ring-buffer pages of this machine (host {@code fixture})
 * and the checked-in {@code trace-cmd record} file (host: its UNAME node name). Spark reads the
 * Hive partitions ({@code host=H/event=E}) as columns, unsigned 64-bit columns as
 * {@code DECIMAL(20,0)}; the rows are compared as text (numbers in plain decimal, sorted), so
 * types of different width but equal values agree and an unsigned value read as signed does not.
 */
class SparkReadsParquetExportTest {
    @TempDir
    static Path dir;

    private static Path dataset;
    private static CaptureStore store;
    private static SparkSession spark;

    @BeforeAll
    static void exportTwoHostsAndStartSpark() throws Exception {
        List<EventRecord> recs = FixtureRecords.load();
        Path ring = ContextPcapng.write(dir.resolve("ring.pcapng"), recs, ContextPcapng.snapshot(recs), Map.of(200, 7L));
        Path dat = dir.resolve("sched.dat");
        try (InputStream in = SparkReadsParquetExportTest.class.getResourceAsStream("/tracedat/sched-v7-zstd.dat")) {
            Files.write(dat, in.readAllBytes());
        }
        dataset = dir.resolve("parquet");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(new String[] {"export", ring.toString(), dat.toString(), "--parquet", dataset.toString()},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        // DuckDB's side: the store of the same files, built afresh in a cache of its own
        store = CaptureStore.open(List.of(ring, dat), new StoreCache(dir.resolve("cache"), 1L << 30), null);
        spark = SparkSession.builder().master("local[1]").appName("tracewire-parquet")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "1")
                .config("spark.default.parallelism", "1")
                // a few hundred partition directories: listed on the driver, not by a job of a task each
                .config("spark.sql.sources.parallelPartitionDiscovery.threshold", "100000")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.local.dir", dir.resolve("spark-local").toString())
                .config("spark.sql.warehouse.dir", dir.resolve("spark-warehouse").toUri().toString())
                .getOrCreate();
    }

    @AfterAll
    static void stop() throws SQLException {
        if (spark != null) {
            spark.stop();
        }
        if (store != null) {
            store.close();
        }
    }

    /**
     * The same query through Spark and DuckDB: {@code {table}} is in Spark the dataset's directory
     * of that table as Spark SQL (and spark-sql) names a Parquet directory, in DuckDB the store's
     * table; {@code {size}} and {@code {max}} are each engine's length and largest element of a
     * list. Equal rows, and not none.
     */
    private static List<String> assertSame(String query) throws SQLException {
        List<String> bySpark = new ArrayList<>();
        String dirs = Matcher.quoteReplacement("parquet.`" + dataset + "/") + "$1`";
        String sparkQuery = query.replace("{size}", "size").replace("{max}", "array_max");
        for (Row r : spark.sql(sparkQuery.replaceAll("\\{(\\w+)}", dirs)).collectAsList()) {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < r.length(); i++) {
                values.add(r.get(i));
            }
            bySpark.add(text(values));
        }
        List<String> byDuckDb = new ArrayList<>();
        try (Statement s = store.connection().createStatement();
             ResultSet rs = s.executeQuery(query.replace("{size}", "len").replace("{max}", "list_max")
                     .replaceAll("\\{(\\w+)}", "$1"))) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<Object> values = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    values.add(rs.getObject(i));
                }
                byDuckDb.add(text(values));
            }
        }
        bySpark.sort(null);
        byDuckDb.sort(null);
        assertTrue(!byDuckDb.isEmpty(), "no rows: " + query);
        assertEquals(byDuckDb, bySpark, query);
        return byDuckDb;
    }

    /** A row as text: numbers of any type in plain decimal, the rest as strings, NULL as NULL. */
    private static String text(List<Object> values) {
        StringBuilder sb = new StringBuilder();
        for (Object v : values) {
            sb.append(v instanceof Number ? new BigDecimal(v.toString()).toPlainString() : String.valueOf(v)).append('|');
        }
        return sb.toString();
    }

    @Test
    void countsPerHostAndEventAreDuckDbs() throws SQLException {
        List<String> rows = assertSame("SELECT host, event, count(*) AS n, sum(pid) AS pids, sum(ts % 1000003) AS t,"
                + " min(frame) AS first, max(frame) AS last FROM {events} GROUP BY host, event");
        TreeSet<String> hosts = new TreeSet<>();
        rows.forEach(r -> hosts.add(r.substring(0, r.indexOf('|'))));
        assertEquals(2, hosts.size(), "two hosts: " + rows);
        assertTrue(rows.size() > 5, "event types: " + rows);
    }

    @Test
    void schedSliceSumsPerHostAndCpuAreDuckDbs() throws SQLException {
        List<String> rows = assertSame("SELECT host, cpu, count(*) AS slices, sum(dur) AS run_ns, max(dur) AS longest,"
                + " count(DISTINCT pid) AS tasks FROM {sched_slice} GROUP BY host, cpu");
        assertTrue(rows.size() >= 4, "two CPUs of two hosts: " + rows);
    }

    @Test
    void maxLatencyPerHostIsDuckDbs() throws SQLException {
        assertEquals(2, assertSame("SELECT host, count(*) AS pairs, max(latency) AS max_ns, sum(latency) AS sum_ns"
                + " FROM {sched_latency} GROUP BY host").size(), "wakeups on both hosts");
    }

    @Test
    void eventsJoinedWithATypedTableAreDuckDbs() throws SQLException {
        assertSame("SELECT e.host, e.comm, count(*) AS switches, sum(s.prev_state) AS states, sum(s.next_prio) AS prios,"
                + " max(e.file_offset) AS offset FROM {sched_switch} s JOIN {events} e ON s.host = e.host AND s.frame = e.frame"
                + " GROUP BY e.host, e.comm");
        // an unsigned 64-bit column (a kernel text address): a signed reading would make it negative
        List<String> rows = assertSame("SELECT host, count(*) AS n, min(function) AS lo, max(function) AS hi FROM {hrtimer_start}"
                + " GROUP BY host");
        assertTrue(rows.stream().allMatch(r -> !r.contains("|-")), rows.toString());
    }

    @Test
    void theStoresOwnTablesAndAColumnOfEveryTypeAreDuckDbs() throws Exception {
        List<String> tables;
        try (Stream<Path> l = Files.list(dataset)) {
            tables = l.map(p -> p.getFileName().toString()).sorted().toList();
        }
        // the store's own tables and views, and the typed tables of both hosts, in one query (a
        // relation costs Spark a job of its own to read a footer: all hundred typed tables would
        // take minutes on this machine)
        List<String> counts = new ArrayList<>();
        for (String t : List.of("events", "lost", "captures", "tasks", "sched_slice", "sched_latency",
                "sched_switch", "sched_wakeup", "hrtimer_start")) {
            assertTrue(tables.contains(t), t + " in " + tables);
            counts.add("SELECT '" + t + "' AS t, host, count(*) AS n FROM {" + t + "} GROUP BY host");
        }
        List<String> rows = assertSame(String.join(" UNION ALL ", counts));
        assertTrue(rows.size() >= 16, "tables of both hosts: " + rows);
        // a field column of each SQL type the typed tables hold: its values through sums and extremes
        Map<String, String> byType = new TreeMap<>();
        try (Statement s = store.connection().createStatement();
             ResultSet rs = s.executeQuery("SELECT data_type, table_name, column_name FROM information_schema.columns"
                     + " WHERE table_catalog = current_database() AND table_schema = 'main'"
                     + " AND table_name IN (SELECT table_name FROM s0.event_tables UNION SELECT table_name FROM s1.event_tables)"
                     + " AND column_name NOT IN ('host', 'frame', 'ts', 'common_cpu', 'common_pid', 'capture')"
                     + " ORDER BY table_name, column_name")) {
            while (rs.next()) {
                byType.putIfAbsent(rs.getString(1), "{" + rs.getString(2) + "}." + rs.getString(3));
            }
        }
        assertTrue(byType.keySet().containsAll(List.of("BIGINT", "INTEGER", "UBIGINT", "UINTEGER", "VARCHAR")), byType.toString());
        for (Map.Entry<String, String> e : byType.entrySet()) {
            String table = e.getValue().substring(0, e.getValue().indexOf('.'));
            String c = e.getValue().substring(e.getValue().indexOf('.') + 1);
            String values = switch (e.getKey()) {
                case "VARCHAR" -> "count(DISTINCT " + c + "), min(" + c + "), max(" + c + ")";
                case "BOOLEAN" -> "sum(CAST(" + c + " AS INT))";
                case "BLOB" -> "sum(octet_length(" + c + "))";
                default -> e.getKey().endsWith("[]") ? "sum({size}(" + c + ")), max({max}(" + c + "))"
                        : "sum(" + c + " % 1000003), min(" + c + "), max(" + c + ")";
            };
            assertSame("SELECT host, count(" + c + ") AS n, " + values + " FROM " + table + " GROUP BY host");
        }
    }
}
