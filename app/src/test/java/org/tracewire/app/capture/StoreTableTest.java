package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.ObservableList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.filter.Filter;
import org.tracewire.filter.FilterSyntaxException;
import org.tracewire.filter.RecordFilter;
import org.tracewire.format.EventFormat;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.record.EventRecord;
import org.tracewire.store.StoreCache;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * GUI-free: the store table of a pcapng of more than 100,000 real records (the ring-buffer
 * fixture, repeated) against what {@link PcapngInput} yields from the same file: every row in
 * order, go to frame, filters against {@link RecordFilter}, the last valid filter kept, sort.
 */
class StoreTableTest {
    @TempDir
    static Path dir;
    private static StoreTable table;
    private static final List<RecordInput.Event> EVENTS = new ArrayList<>();
    private static final List<String> TEXTS = new ArrayList<>();

    @BeforeAll
    static void build() throws Exception {
        List<EventRecord> one = FixtureRecords.load();
        List<EventRecord> recs = new ArrayList<>();
        while (recs.size() < 100_000) {
            recs.addAll(one);
        }
        Path file = FixturePcapng.write(dir.resolve("big.pcapng"), recs);
        try (PcapngInput in = PcapngInput.open(file)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                EVENTS.add(e);
                TEXTS.add(e.renderer().body(e.record()));
            }
        }
        assertTrue(EVENTS.size() >= 100_000, "a fixture of >= 100k events: " + EVENTS.size());
        long[] counted = {0};
        table = StoreTable.open(file, new StoreCache(dir.resolve("cache"), 1L << 30), n -> counted[0] = n, Runnable::run,
                new DirectTaskExecutor());
        assertTrue(counted[0] >= 65_536, "the build told its progress: " + counted[0]);
    }

    /**
     * A table closed while its query executor shuts down (a view model's owner letting both go):
     * the store is closed anyway, on the lookup thread, and nothing is thrown on that thread.
     */
    @Test
    void closingWhileTheQueryExecutorShutsDownStillClosesTheStore() throws Exception {
        Path file = FixturePcapng.write(dir.resolve("small.pcapng"), FixtureRecords.load());
        ExecutorService queries = Executors.newSingleThreadExecutor();
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        try {
            StoreTable t = StoreTable.open(file, new StoreCache(dir.resolve("cache-small"), 1L << 30), n -> { }, queries,
                    new DirectTaskExecutor());
            Connection c = t.store().connection();
            queries.execute(() -> sleep(300)); // the close queued behind a query, the executor shut down meanwhile
            t.close();
            queries.shutdown();
            assertTrue(queries.awaitTermination(30, TimeUnit.SECONDS));
            assertTrue(c.isClosed(), "the store's connection closed");
            assertEquals(List.of(), uncaught);
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @AfterAll
    static void close() {
        if (table != null) {
            table.close();
        }
    }

    private static List<Long> frames(ObservableList<EventRow> rows) {
        List<Long> out = new ArrayList<>(rows.size());
        for (EventRow r : rows) {
            out.add(r.frame());
        }
        return out;
    }

    @Test
    void everyRowIsTheFilesEventInOrder() {
        table.clearFilters();
        table.sort(StoreTable.Column.FRAME, true);
        ObservableList<EventRow> rows = table.rowsProperty().get();
        assertEquals(EVENTS.size(), table.total(), "the store holds every event");
        assertEquals(EVENTS.size(), rows.size(), "no 50,000 cap");
        assertEquals(EVENTS.size(), table.shownProperty().get());
        for (int i = 0; i < rows.size(); i++) {
            RecordInput.Event e = EVENTS.get(i);
            EventRow r = rows.get(i);
            assertEquals(e.frame(), r.frame(), "row " + i);
            assertEquals(e.record().cpu(), r.cpu(), "row " + i);
            assertEquals(e.record().pid(), r.pid(), "row " + i);
            assertEquals(e.record().format().fullName(), r.event(), "row " + i);
            assertEquals(e.timeNs(), r.ts(), "row " + i);
            assertEquals(TEXTS.get(i), r.text(), "row " + i + ": the kernel's text of the frame read again");
            assertNotNull(r.record(), "row " + i + " carries its record (the details tree)");
        }
    }

    @Test
    void goToFrameLandsOnItsRow() {
        table.clearFilters();
        table.sort(StoreTable.Column.FRAME, true);
        for (int i : new int[] {0, 1, EVENTS.size() / 2, EVENTS.size() - 7, EVENTS.size() - 1}) {
            long frame = EVENTS.get(i).frame();
            int[] found = {-2};
            table.goToFrame(frame, k -> found[0] = k);
            assertEquals(i, found[0], "frame " + frame);
            assertEquals(frame, table.rowsProperty().get().get(found[0]).frame());
        }
        int[] found = {-2};
        table.goToFrame(1, k -> found[0] = k); // the CAPTURE frame: no event
        assertEquals(-1, found[0]);
        assertTrue(table.messageProperty().get().contains("no event"), table.messageProperty().get());
    }

    @Test
    void aFilterGivesTheRowsRecordFilterSelects() throws Exception {
        table.sort(StoreTable.Column.FRAME, true);
        for (String text : List.of("prev_state & 1 && next_pid > 100", "common_pid == 0", "CPU == 1 && pid < 1000",
                "comm ~ \"*k*\" || pid == 1")) {
            table.clearFilters();
            table.filterTextProperty().set(text);
            assertEquals("", table.filterErrorProperty().get(), text);
            List<Long> expected = expected(text);
            assertFalse(expected.isEmpty(), "the filter selects something: " + text);
            assertNotEquals(EVENTS.size(), expected.size(), "and not everything: " + text);
            assertEquals(expected, frames(table.rowsProperty().get()), text + " message: " + table.messageProperty().get());
        }
        // with an event restriction
        table.clearFilters();
        table.eventRestrictionProperty().set("sched:sched_switch");
        table.filterTextProperty().set("prev_pid != 0");
        List<Long> expected = new ArrayList<>();
        for (Long f : expected("prev_pid != 0")) {
            expected.add(f);
        }
        assertEquals(expected, frames(table.rowsProperty().get()), "only sched_switch takes prev_pid");
        table.clearFilters();
    }

    @Test
    void anInvalidFilterKeepsTheLastValidOne() throws Exception {
        table.clearFilters();
        table.sort(StoreTable.Column.FRAME, true);
        table.filterTextProperty().set("common_pid == 0");
        long valid = table.shownProperty().get();
        assertEquals(expected("common_pid == 0").size(), valid);
        table.filterTextProperty().set("common_pid == ");
        assertFalse(table.filterErrorProperty().get().isEmpty());
        assertTrue(table.filterErrorProperty().get().contains("keeps the last valid filter: common_pid == 0"),
                table.filterErrorProperty().get());
        assertEquals(valid, table.shownProperty().get());
        table.filterTextProperty().set("no_such_field == 3");
        assertTrue(table.filterErrorPositionProperty().get() >= 0, table.filterErrorProperty().get());
        assertEquals(valid, table.shownProperty().get());
        table.clearFilters();
        assertEquals(EVENTS.size(), table.shownProperty().get());
    }

    @Test
    void sortIsAnOrderByWithTiesInFrameOrder() {
        table.clearFilters();
        table.sort(StoreTable.Column.PID, false);
        ObservableList<EventRow> rows = table.rowsProperty().get();
        int max = EVENTS.stream().mapToInt(e -> e.record().pid()).max().orElseThrow();
        long firstFrameOfMax = EVENTS.stream().filter(e -> e.record().pid() == max).findFirst().orElseThrow().frame();
        assertEquals(max, rows.get(0).pid());
        assertEquals(firstFrameOfMax, rows.get(0).frame(), "ties in frame order");
        int min = EVENTS.stream().mapToInt(e -> e.record().pid()).min().orElseThrow();
        assertEquals(min, rows.get(rows.size() - 1).pid());
        // every row of the sorted view (its pages' frames lie all over the file: read one by one)
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < EVENTS.size(); i++) {
            order.add(i);
        }
        order.sort((x, y) -> EVENTS.get(x).record().pid() != EVENTS.get(y).record().pid()
                ? Integer.compare(EVENTS.get(y).record().pid(), EVENTS.get(x).record().pid())
                : Long.compare(EVENTS.get(x).frame(), EVENTS.get(y).frame()));
        for (int i = 0; i < order.size(); i++) {
            RecordInput.Event e = EVENTS.get(order.get(i));
            EventRow r = rows.get(i);
            assertEquals(e.frame(), r.frame(), "sorted row " + i);
            assertEquals(TEXTS.get(order.get(i)), r.text(), "sorted row " + i);
        }
        table.sort(StoreTable.Column.FRAME, true);
        assertEquals(EVENTS.get(0).frame(), table.rowsProperty().get().get(0).frame());
    }

    @Test
    void descendingFrameOrderIsTheFileBackwards() {
        table.clearFilters();
        table.sort(StoreTable.Column.FRAME, false);
        ObservableList<EventRow> rows = table.rowsProperty().get();
        assertEquals(EVENTS.size(), rows.size());
        for (int i = 0; i < rows.size(); i++) {
            assertEquals(EVENTS.get(EVENTS.size() - 1 - i).frame(), rows.get(i).frame(), "row " + i);
        }
        for (int i : new int[] {0, 3, EVENTS.size() / 3, EVENTS.size() - 1}) {
            long frame = EVENTS.get(i).frame();
            int[] found = {-2};
            table.goToFrame(frame, k -> found[0] = k);
            assertEquals(EVENTS.size() - 1 - i, found[0], "frame " + frame);
            assertEquals(frame, table.rowsProperty().get().get(found[0]).frame());
        }
        table.sort(StoreTable.Column.FRAME, true);
    }

    @Test
    void goToFrameInAFilteredSortedView() throws Exception {
        table.clearFilters();
        table.filterTextProperty().set("common_pid == 0");
        table.sort(StoreTable.Column.CPU, true);
        ObservableList<EventRow> rows = table.rowsProperty().get();
        List<Long> shown = frames(rows);
        List<Long> expected = expected("common_pid == 0");
        assertEquals(expected.size(), shown.size());
        for (int i = 1; i < rows.size(); i++) {
            EventRow a = rows.get(i - 1);
            EventRow b = rows.get(i);
            assertTrue(a.cpu() < b.cpu() || a.cpu() == b.cpu() && a.frame() < b.frame(), "row " + i + " in CPU, frame order");
        }
        for (int i : new int[] {0, shown.size() / 2, shown.size() - 1}) {
            int[] found = {-2};
            table.goToFrame(shown.get(i), k -> found[0] = k);
            assertEquals(i, found[0], "frame " + shown.get(i));
        }
        long out = EVENTS.stream().filter(e -> e.record().pid() != 0).findFirst().orElseThrow().frame();
        int[] found = {-2};
        table.goToFrame(out, k -> found[0] = k);
        assertEquals(-1, found[0]);
        assertTrue(table.messageProperty().get().contains("filtered out"), table.messageProperty().get());
        table.clearFilters();
        table.sort(StoreTable.Column.FRAME, true);
    }

    @Test
    void frameRunsMapEveryRankToItsFrameAndBack() throws Exception {
        FrameRuns runs = FrameRuns.of(table.store().connection(), table.total());
        assertNotNull(runs, "the store's rows are in frame order");
        assertEquals(EVENTS.size(), runs.rows());
        Set<Long> events = new HashSet<>();
        for (int i = 0; i < EVENTS.size(); i++) {
            long f = EVENTS.get(i).frame();
            events.add(f);
            assertEquals(f, runs.frameAt(i), "rank " + i);
            assertEquals(i, runs.rowOf(f), "frame " + f);
        }
        long last = EVENTS.get(EVENTS.size() - 1).frame();
        int gaps = 0;
        for (long f = 0; f <= last + 2; f++) {
            if (!events.contains(f)) {
                assertEquals(-1, runs.rowOf(f), "frame " + f + " is no event");
                gaps++;
            }
        }
        assertTrue(gaps > 1, "the file has frames that are no events: " + gaps);
    }

    /**
     * A reader that learnt the file's context from the store's {@code context_offsets} alone (the
     * table's: no pass over the file) decodes every event as a reader that passed over every block.
     */
    @Test
    void theContextBlocksAloneDecodeAsAWholePass() throws Exception {
        Connection db = table.store().connection();
        long[] blocks = FrameOffsets.contextBlocks(db);
        assertTrue(blocks.length > 1 && blocks.length < EVENTS.size() / 100, "context blocks: " + blocks.length);
        List<long[]> sample = new ArrayList<>();
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT file_offset, frame FROM events WHERE frame % 97 = 0 ORDER BY frame")) {
            while (rs.next()) {
                sample.add(new long[] {rs.getLong(1), rs.getLong(2)});
            }
        }
        assertTrue(sample.size() > 500, "sampled events: " + sample.size());
        try (FrameReader whole = FrameReader.open(table.file()); FrameReader fromBlocks = FrameReader.open(table.file(), blocks)) {
            for (long[] e : sample) {
                EventRow a = whole.row(e[0], e[1]);
                EventRow b = fromBlocks.row(e[0], e[1]);
                assertNotNull(a, "frame " + e[1]);
                assertNotNull(b, "frame " + e[1]);
                assertEquals(a.text(), b.text(), "frame " + e[1]);
                assertEquals(a.fields(), b.fields(), "frame " + e[1]);
                assertEquals(a.comm(), b.comm(), "frame " + e[1]);
            }
        }
        IOException bad = assertThrows(IOException.class, () -> FrameReader.open(table.file(), new long[] {blocks[0] + 1}));
        assertTrue(bad.getMessage().contains("offset " + (blocks[0] + 1)), bad.getMessage());
    }

    /**
     * Two lists of a view's rows are equal only when the same list: a property holding them
     * compares the old with the new, and comparing their contents would ask for every page.
     */
    @Test
    void rowListsCompareWithoutReadingRows() throws Exception {
        Connection db = table.store().connection();
        FrameRuns runs = FrameRuns.of(db, table.total());
        try (FrameReader frames = FrameReader.open(table.file())) {
            StoreRows numbering = new StoreRows(frames, runs);
            StoreRows.View v = numbering.number(db, 1, List.of(), "frame", null);
            List<Runnable> fetches = new ArrayList<>();
            StoreRowList a = new StoreRowList(numbering, v, db, fetches::add, new DirectTaskExecutor(), () -> 1, m -> { });
            StoreRowList b = new StoreRowList(numbering, v, db, fetches::add, new DirectTaskExecutor(), () -> 1, m -> { });
            ObjectProperty<ObservableList<EventRow>> shown = new SimpleObjectProperty<>(a);
            List<ObservableList<EventRow>> told = new ArrayList<>();
            shown.addListener((o, was, now) -> told.add(now));
            shown.set(b);
            assertEquals(List.of(b), told, "the new list is told");
            assertEquals(a, a);
            assertNotEquals(a, b);
            assertEquals(0, fetches.size(), "no page asked for by the comparison");
            assertEquals(StoreTable.LOADING, b.get(0));
            assertEquals(1, fetches.size(), "a row read asks for its page");
        }
    }

    /**
     * Rows shown after the query thread has ended (a view rebuilt while the app closes) ask for no
     * page and throw nothing on the JavaFX thread (the thread's pool refused the task: a GUI
     * test's teardown failed on it).
     */
    @Test
    void rowsShownAfterTheQueryThreadEndedAskForNothing() throws Exception {
        Connection db = table.store().connection();
        FrameRuns runs = FrameRuns.of(db, table.total());
        java.util.concurrent.ExecutorService ended = java.util.concurrent.Executors.newSingleThreadExecutor();
        ended.shutdown();
        try (FrameReader frames = FrameReader.open(table.file())) {
            StoreRows numbering = new StoreRows(frames, runs);
            StoreRows.View v = numbering.number(db, 1, List.of(), "frame", null);
            StoreRowList rows = new StoreRowList(numbering, v, db, ended, new DirectTaskExecutor(), () -> 1, m -> { });
            rows.showing(0, 40);
            assertEquals(StoreTable.LOADING, rows.get(0), "no page: a placeholder row");
            rows.showing(0, 40); // asked again: still nothing thrown
        }
    }

    @Test
    void aGoToFrameQueuedAfterTheWarmUpRunsBeforeIt() throws Exception {
        Connection db = table.store().connection();
        FrameRuns runs = FrameRuns.of(db, table.total());
        try (FrameReader frames = FrameReader.open(table.file())) {
            StoreRows numbering = new StoreRows(frames, runs);
            java.util.ArrayDeque<Runnable> thread = new java.util.ArrayDeque<>();
            FrameLookup lookup = new FrameLookup(db, thread::add); // not closed: the table's connection
            lookup.warm(numbering);
            boolean[] warmedBeforeLookup = {true};
            lookup.execute(() -> warmedBeforeLookup[0] = numbering.readsFromFile());
            while (!thread.isEmpty()) {
                thread.poll().run();
            }
            assertFalse(warmedBeforeLookup[0], "the lookup ran before the warm-up queued ahead of it");
            assertTrue(numbering.readsFromFile(), "the warm-up ran after it");
        }
    }

    @Test
    void aPlainViewsPagesFromTheFileAloneEqualThePagesByQuery() throws Exception {
        Connection db = table.store().connection();
        FrameRuns runs = FrameRuns.of(db, table.total());
        try (FrameReader frames = FrameReader.open(table.file())) {
            StoreRows byQuery = new StoreRows(frames, runs);
            StoreRows fromFile = new StoreRows(frames, runs);
            fromFile.warm(db);
            assertFalse(byQuery.readsFromFile());
            assertTrue(fromFile.readsFromFile(), "a store of one capture reads its plain pages from the file");
            for (boolean ascending : new boolean[] {true, false}) {
                StoreRows.View v = byQuery.number(db, 1, List.of(), ascending ? "frame" : "frame DESC", null);
                int pages = (int) ((runs.rows() + StoreRows.PAGE - 1) / StoreRows.PAGE);
                for (int p = 0; p < pages; p++) {
                    EventRow[] q = byQuery.page(db, v, p);
                    EventRow[] f = fromFile.page(db, v, p);
                    assertEquals(q.length, f.length, "page " + p);
                    for (int k = 0; k < q.length; k++) {
                        String at = (ascending ? "ascending" : "descending") + " page " + p + " row " + k;
                        assertEquals(q[k].frame(), f[k].frame(), at);
                        assertEquals(q[k].ts(), f[k].ts(), at);
                        assertEquals(q[k].cpu(), f[k].cpu(), at);
                        assertEquals(q[k].pid(), f[k].pid(), at);
                        assertEquals(q[k].comm(), f[k].comm(), at);
                        assertEquals(q[k].event(), f[k].event(), at);
                        assertEquals(q[k].text(), f[k].text(), at);
                        assertEquals(q[k].fields(), f[k].fields(), at);
                        assertNotNull(f[k].record(), at);
                    }
                }
            }
        }
    }

    /** The frames whose events {@link RecordFilter} selects, by the table's rule (an event that does not take the filter passes nothing). */
    private static List<Long> expected(String text) throws FilterSyntaxException {
        Filter f = Filter.parse(text);
        Map<EventFormat, RecordFilter> byFormat = new HashMap<>();
        List<Long> out = new ArrayList<>();
        for (RecordInput.Event e : EVENTS) {
            EventFormat fmt = e.record().format();
            if (!byFormat.containsKey(fmt)) {
                RecordFilter c;
                try {
                    c = RecordFilter.compile(f, fmt, pid -> "");
                } catch (FilterSyntaxException x) {
                    c = null; // the event lacks a field the filter names: it passes nothing
                }
                byFormat.put(fmt, c);
            }
            RecordFilter rf = byFormat.get(fmt);
            if (rf != null && rf.test(e.record())) {
                out.add(e.frame());
            }
        }
        return out;
    }
}
