package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * {@code tracewire sql} as a command, on pcapng files written from the checked-in fixture: the
 * table form, two files as two hosts, {@code --schema}, and the exit codes of usage errors (2) and
 * of a query DuckDB refuses (1).
 */
class SqlCommandTest {
    @TempDir
    Path dir;

    private record Out(int exit, String out, String err) {
    }

    private static Out run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Out(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Path fixture(String name, int n) throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, n);
        return ContextPcapng.write(dir.resolve(name), recs, ContextPcapng.snapshot(recs), Map.of());
    }

    @Test
    void queriesTwoFilesAsTwoHosts() throws Exception {
        Path a = fixture("a.pcapng", 300);
        Path b = fixture("b.pcapng", 500);
        String cache = dir.resolve("cache").toString();
        Out o = run("sql", "--cache-dir", cache, a.toString(), b.toString(),
                "SELECT host, count(*) AS events, count(DISTINCT cpu) AS cpus FROM events GROUP BY host ORDER BY host");
        assertEquals(0, o.exit(), o.err());
        assertEquals("""
                host       events  cpus
                ---------  ------  ----
                fixture       300     2
                fixture-2     500     2
                (2 rows)
                """, o.out().replace("\r\n", "\n"));
        assertTrue(o.err().contains("a.pcapng: store built, 300 events"), o.err());
        Out again = run("sql", "--cache-dir", cache, "--csv", a.toString(), "SELECT count(*) AS n FROM sched_switch");
        assertEquals(0, again.exit(), again.err());
        assertEquals("", again.err(), "the store is reused: nothing built");
        assertTrue(again.out().matches("n\\r?\\n\\d+\\r?\\n"), again.out());
    }

    @Test
    void schemaListsTablesAndColumns() throws Exception {
        Path a = fixture("s.pcapng", 400);
        Out o = run("sql", "--cache-dir", dir.resolve("cache").toString(), "--schema", a.toString());
        assertEquals(0, o.exit(), o.err());
        for (String line : List.of("events            event          VARCHAR", "sched_switch      prev_comm      VARCHAR",
                "sched_slice       end_state      VARCHAR")) {
            assertTrue(o.out().lines().anyMatch(l -> l.replaceAll(" +", " ").equals(line.replaceAll(" +", " "))),
                    line + " in\n" + o.out());
        }
    }

    @Test
    void whereTakesAKernelFilter() throws Exception {
        Path a = fixture("w.pcapng", 2000);
        String cache = dir.resolve("cache").toString();
        Out byFilter = run("sql", "--cache-dir", cache, "--csv", "--event", "sched:sched_switch", "--where",
                "prev_pid != 0 && next_comm ~ \"*kworker*\" || prev_state & 1", a.toString(), "SELECT count(*) AS n FROM matched");
        Out bySql = run("sql", "--cache-dir", cache, "--csv", a.toString(),
                "SELECT count(*) AS n FROM sched_switch WHERE prev_pid <> 0 AND next_comm LIKE '%kworker%' OR prev_state & 1 <> 0");
        assertEquals(0, byFilter.exit(), byFilter.err());
        assertEquals(bySql.out(), byFilter.out());
        assertTrue(Long.parseLong(bySql.out().strip().split("\\R")[1]) > 0, bySql.out());
        Out rows = run("sql", "--cache-dir", cache, "--csv", "--event", "sched:sched_switch", "--where", "CPU == 1", a.toString());
        int cpu = List.of(rows.out().lines().findFirst().orElseThrow().split(",")).indexOf("common_cpu");
        assertTrue(cpu > 0, rows.out());
        assertTrue(rows.out().lines().skip(1).allMatch(l -> l.split(",")[cpu].equals("1")), rows.out());
        assertEquals(2, run("sql", "--cache-dir", cache, "--event", "sched:sched_switch", "--where", "prev_pid ~ \"x\"", a.toString()).exit());
        assertEquals(2, run("sql", "--cache-dir", cache, "--where", "CPU == 1", a.toString()).exit());
    }

    @Test
    void exportParquetWritesTheStoreOfSeveralFiles() throws Exception {
        Path a = fixture("pa.pcapng", 300);
        Path b = fixture("pb.pcapng", 500);
        Path out = dir.resolve("pq");
        Out o = run("export", a.toString(), b.toString(), "--parquet", out.toString());
        assertEquals(0, o.exit(), o.err());
        assertTrue(o.err().contains(out + ": ") && o.err().contains(" tables, 800 events"), o.err());
        assertTrue(Files.isDirectory(out.resolve("events").resolve("host=fixture-2")), "Hive partition by host");
        assertEquals(2, run("export", a.toString()).exit(), "neither -o nor --parquet");
        assertEquals(2, run("export", a.toString(), "-o", dir.resolve("x.dat").toString(), "--parquet", out.toString()).exit());
        assertEquals(2, run("export", a.toString(), b.toString(), "-o", dir.resolve("x.dat").toString()).exit());
    }

    @Test
    void usageErrorsAndRefusedQueries() throws Exception {
        Path a = fixture("u.pcapng", 100);
        String cache = dir.resolve("cache").toString();
        assertEquals(2, run("sql", "--cache-dir", cache, dir.resolve("missing.pcapng").toString(), "SELECT 1").exit());
        assertEquals(2, run("sql", "--cache-dir", cache, "SELECT 1").exit());
        assertEquals(2, run("sql", "--cache-dir", cache, "--csv", "--json", a.toString(), "SELECT 1").exit());
        Path text = Files.writeString(dir.resolve("t.txt"), "not a capture");
        Out notCapture = run("sql", "--cache-dir", cache, text.toString(), "SELECT 1");
        assertEquals(2, notCapture.exit());
        assertTrue(notCapture.err().contains("neither a trace.dat nor a pcapng"), notCapture.err());
        Out bad = run("sql", "--cache-dir", cache, a.toString(), "SELECT nope FROM events");
        assertEquals(1, bad.exit());
        assertTrue(bad.err().lines().anyMatch(l -> l.startsWith("sql: Binder Error: Referenced column \"nope\" not found")), bad.err());
    }
}
