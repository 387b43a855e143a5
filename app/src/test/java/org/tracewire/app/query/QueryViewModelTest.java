package org.tracewire.app.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javafx.beans.property.SimpleObjectProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.query.QueryResult.Column;
import org.tracewire.app.session.SessionStore;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.input.RecordInput;
import org.tracewire.record.EventRecord;
import org.tracewire.store.StoreCache;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * GUI-free: the query view's model over the store of a pcapng of real records (the ring-buffer
 * fixture of this machine, repeated past the chart's and a page's sizes), against what core's
 * {@link RecordInput} reads from the same file: rows by pages, DuckDB's errors as its text,
 * statements that are no query, the chart, "show these events" restricting the event table to
 * exactly the frames of the result, the history kept in the session store, cancel.
 */
class QueryViewModelTest {
    @TempDir
    static Path dir;
    private static CaptureOracle oracle;
    private static StoreTable table;
    private static final SimpleObjectProperty<StoreTable> TABLE = new SimpleObjectProperty<>();
    private static QueryViewModel vm;

    @BeforeAll
    static void open() throws Exception {
        List<EventRecord> one = FixtureRecords.load();
        List<EventRecord> recs = new ArrayList<>();
        while (recs.size() < 30_000) {
            recs.addAll(one);
        }
        Path file = FixturePcapng.write(dir.resolve("q.pcapng"), recs);
        oracle = new CaptureOracle(file);
        table = StoreTable.open(file, new StoreCache(dir.resolve("cache"), 1L << 30), null, Runnable::run, new DirectTaskExecutor());
        TABLE.set(table);
        vm = new QueryViewModel(new DirectTaskExecutor(), Runnable::run, new SessionStore(dir.resolve("config")));
        vm.connect(TABLE);
        assertTrue(vm.availableProperty().get(), vm.statusProperty().get());
    }

    @AfterAll
    static void close() {
        table.close();
    }

    private static QueryResult run(String sql) {
        vm.sqlProperty().set(sql);
        vm.run();
        assertEquals("", vm.errorProperty().get(), sql);
        return vm.resultProperty().get();
    }

    @Test
    void theSchemaListsTheStoresTablesAndColumns() {
        SchemaTable events = vm.getSchema().stream().filter(t -> t.name().equals("events")).findFirst().orElseThrow();
        assertTrue(events.view());
        assertEquals(List.of("host", "frame", "ts"), events.columns().subList(0, 3).stream().map(Column::name).toList());
        assertTrue(vm.getSchema().stream().anyMatch(t -> t.name().equals("sched_switch")
                && t.columns().stream().anyMatch(c -> c.name().equals("prev_pid") && c.numeric())));
    }

    @Test
    void everyRowOfAResultByPages() {
        QueryResult r = run("SELECT frame, ts, event FROM events ORDER BY frame;");
        assertEquals(oracle.events.size(), r.count(), "all rows counted");
        assertTrue(r.stored());
        assertEquals(oracle.events.size(), r.rows().size(), "a virtual list of every row");
        assertTrue(r.count() > 10 * ResultRows.PAGE);
        for (int i : new int[] {0, 1, ResultRows.PAGE - 1, ResultRows.PAGE, oracle.events.size() / 2, oracle.events.size() - 1}) {
            RecordInput.Event e = oracle.events.get(i);
            assertEquals(List.of(Long.toString(e.frame()), Long.toString(e.timeNs()), e.record().format().fullName()),
                    r.rows().get(i), "row " + i);
        }
        assertEquals(0, r.frameColumn());
        assertTrue(vm.statusProperty().get().contains(String.format("%,d rows", oracle.events.size())), vm.statusProperty().get());
    }

    @Test
    void duckDbsErrorIsShownAsItsText() {
        QueryResult before = run("SELECT 1 AS one");
        vm.sqlProperty().set("SELECT nope\nFROM sched_switch");
        vm.run();
        String e = vm.errorProperty().get();
        assertTrue(e.startsWith("Binder Error: Referenced column \"nope\" not found in FROM clause!"), e);
        assertTrue(e.contains("LINE 1: SELECT nope"), "lines of the user's query: " + e);
        assertFalse(e.contains("at org.") || e.contains("Exception"), "no stack trace: " + e);
        assertEquals(before, vm.resultProperty().get(), "the last result stays");
        vm.sqlProperty().set("SELEC frame FROM events");
        vm.run();
        assertTrue(vm.errorProperty().get().startsWith("Parser Error: syntax error at or near \"SELEC\""), vm.errorProperty().get());
        assertTrue(vm.errorProperty().get().contains("LINE 1:"), vm.errorProperty().get());
    }

    @Test
    void aStatementThatIsNoQueryRunsAsItIs() {
        // DuckDB 2.0 can keep a DESCRIBE's rows in a table too, so whether they are stored is its choice
        QueryResult r = run("DESCRIBE sched_switch");
        assertEquals("column_name", r.columns().get(0).name());
        assertTrue(r.rows().stream().anyMatch(row -> row.get(0).equals("prev_pid")), r.rows().toString());
        assertTrue(r.frameColumn() < 0);
        assertFalse(vm.showEvents(), "no frame column");
    }

    @Test
    void aChartOfTheFirstRows() {
        long start = oracle.start(1_000_000);
        long[] perMs = oracle.counts(1_000_000, e -> true);
        QueryResult r = run("SELECT (ts - " + start + ") // 1000000 AS ms, count(*) AS n FROM events GROUP BY ms ORDER BY ms");
        QueryChart c = vm.chartProperty().get();
        assertNotNull(c);
        assertFalse(c.bar());
        assertFalse(c.truncated());
        assertEquals(1, c.series().size());
        for (int i = 0; i < c.x().length; i++) {
            assertEquals(perMs[(int) c.x()[i]], (long) c.series().get(0).y()[i], "ms " + c.x()[i]);
        }
        assertEquals(r.count(), c.x().length);

        run("SELECT frame, cpu, pid FROM events ORDER BY frame");
        c = vm.chartProperty().get();
        assertTrue(c.truncated());
        assertEquals(QueryChart.ROWS, c.x().length);
        assertEquals(List.of("cpu", "pid"), c.series().stream().map(QueryChart.Series::name).toList());
        assertEquals(oracle.events.get(QueryChart.ROWS - 1).frame(), (long) c.x()[QueryChart.ROWS - 1]);
        assertTrue(c.note().contains(String.format("the first 10,000 of %,d rows", oracle.events.size())), c.note());

        run("SELECT event, count(*) AS n FROM events GROUP BY event ORDER BY event");
        c = vm.chartProperty().get();
        assertTrue(c.bar());
        var per = oracle.perEvent(1_000_000_000_000L);
        List<String> names = new ArrayList<>(per.keySet());
        names.sort(null);
        assertTrue(names.size() > QueryChart.BARS, "more event types than bars: " + names.size());
        assertTrue(c.truncated());
        assertEquals(names.subList(0, QueryChart.BARS), c.categories(), "the first rows' bars");
        for (int i = 0; i < QueryChart.BARS; i++) {
            assertEquals(per.get(names.get(i))[0], (long) c.series().get(0).y()[i], names.get(i));
        }

        run("SELECT event FROM events LIMIT 3");
        assertTrue(vm.chartProperty().get().series().isEmpty());
        assertTrue(vm.chartProperty().get().note().startsWith("no chart"));
    }

    @Test
    void showTheseEventsRestrictsTheTableToTheResultsFrames() throws Exception {
        // a pid that switched out a few times, but not everywhere
        int pid = oracle.events.stream().filter(e -> e.record().format().name().equals("sched_switch"))
                .map(e -> e.record().pid()).filter(p -> p != 0).findFirst().orElseThrow();
        List<Long> expected = oracle.frames(oracle.filter("prev_pid == " + pid));
        assertFalse(expected.isEmpty());
        assertTrue(expected.size() < oracle.events.size() / 10);
        boolean[] shown = {false};
        vm.setOnShowTable(() -> shown[0] = true);
        run("SELECT frame, prev_comm FROM sched_switch WHERE prev_pid = " + pid + " ORDER BY frame DESC");
        assertTrue(vm.showEvents());
        assertTrue(shown[0], "the window is switched to the table");
        List<Long> rows = new ArrayList<>();
        for (EventRow r : table.rowsProperty().get()) {
            rows.add(r.frame());
        }
        assertEquals(expected, rows, "exactly the frames of the result, in the table's order");
        assertTrue(table.frameRestrictionProperty().get().startsWith("frames of query "), table.frameRestrictionProperty().get());
        // the other filters apply on top; clearing lifts the restriction
        table.filterTextProperty().set("common_cpu == 0");
        for (EventRow r : table.rowsProperty().get()) {
            assertTrue(expected.contains(r.frame()) && r.cpu() == 0);
        }
        table.clearFilters();
        assertNull(table.frameRestrictionProperty().get());
        assertEquals(oracle.events.size(), table.rowsProperty().get().size());
    }

    @Test
    void theHistoryIsKeptInTheSessionStore() {
        run("SELECT count(*) FROM sched_switch");
        run("SELECT count(*) FROM events");
        run("SELECT count(*) FROM sched_switch");
        assertEquals("SELECT count(*) FROM sched_switch", vm.getHistory().get(0));
        assertEquals("SELECT count(*) FROM events", vm.getHistory().get(1));
        assertEquals(1, vm.getHistory().stream().filter(q -> q.equals("SELECT count(*) FROM sched_switch")).count());
        List<String> kept = new SessionStore(dir.resolve("config")).queryHistory();
        assertEquals(vm.getHistory(), kept);
        QueryViewModel again = new QueryViewModel(new DirectTaskExecutor(), Runnable::run, new SessionStore(dir.resolve("config")));
        assertEquals(kept, again.getHistory(), "a new session starts with it");
    }

    @Test
    void aRunningQueryIsCancelled() throws Exception {
        ExecutorService worker = Executors.newSingleThreadExecutor();
        try {
            QueryViewModel q = new QueryViewModel(new DirectTaskExecutor(), worker, null);
            q.connect(TABLE);
            waitFor(() -> q.availableProperty().get());
            q.sqlProperty().set("SELECT count(*) FROM events a, events b, events c WHERE a.pid + b.pid = c.cpu + 7");
            q.run();
            assertTrue(q.runningProperty().get());
            Thread.sleep(500);
            assertTrue(q.runningProperty().get(), "still running: " + q.statusProperty().get());
            q.cancel();
            waitFor(() -> !q.runningProperty().get());
            assertTrue(q.errorProperty().get().startsWith("cancelled: INTERRUPT Error"), q.errorProperty().get());
            q.sqlProperty().set("SELECT 42 AS answer");
            q.run();
            waitFor(() -> !q.runningProperty().get() && q.resultProperty().get() != null);
            waitFor(() -> q.resultProperty().get().rows().get(0) != ResultRows.LOADING);
            assertEquals(List.of("42"), q.resultProperty().get().rows().get(0), "the connection works after a cancel");
        } finally {
            worker.shutdownNow();
        }
    }

    private static void waitFor(java.util.function.BooleanSupplier c) throws InterruptedException {
        long until = System.nanoTime() + 60_000_000_000L;
        while (!c.getAsBoolean()) {
            assertTrue(System.nanoTime() < until, "timed out");
            Thread.sleep(20);
        }
    }
}
