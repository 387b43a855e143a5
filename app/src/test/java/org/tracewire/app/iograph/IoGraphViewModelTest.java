package org.tracewire.app.iograph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javafx.beans.property.SimpleObjectProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.query.CaptureOracle;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.record.EventRecord;
import org.tracewire.store.StoreCache;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * GUI-free: the I/O graph of a pcapng of real records (the ring-buffer fixture of this machine)
 * against an independent count over every record of the file ({@link CaptureOracle}, core's
 * RecordInput): per event type at every interval offered, all events, filter lines (the event
 * table's rule, against RecordFilter), the default interval, going to a time.
 */
class IoGraphViewModelTest {
    @TempDir
    static Path dir;
    private static CaptureOracle oracle;
    private static StoreTable table;
    private static IoGraphViewModel vm;

    @BeforeAll
    static void open() throws Exception {
        List<EventRecord> recs = new ArrayList<>(FixtureRecords.load());
        Path file = FixturePcapng.write(dir.resolve("io.pcapng"), recs);
        oracle = new CaptureOracle(file);
        table = StoreTable.open(file, new StoreCache(dir.resolve("cache"), 1L << 30), null, Runnable::run, new DirectTaskExecutor());
        vm = new IoGraphViewModel(new DirectTaskExecutor(), Runnable::run);
        vm.connect(new SimpleObjectProperty<>(table));
    }

    @AfterAll
    static void close() {
        table.close();
    }

    @Test
    void theDefaultIntervalGivesAtMost2000Points() {
        vm.intervalProperty().set(0);
        IoGraphViewModel.Graph g = vm.graphProperty().get();
        assertNotNull(g, vm.statusProperty().get());
        assertEquals(IoGraphViewModel.defaultInterval(oracle.start(), oracle.end()), g.interval());
        assertTrue(g.points() <= IoGraphViewModel.DEFAULT_POINTS, g.points() + " points");
        int k = IoGraphViewModel.INTERVALS.indexOf(g.interval());
        long smaller = k == 0 ? 0 : IoGraphViewModel.INTERVALS.get(k - 1);
        assertTrue(k == 0 || (oracle.end() - oracle.start(smaller)) / smaller + 1 > IoGraphViewModel.DEFAULT_POINTS,
                "the smallest interval that fits");
        assertEquals(oracle.start(g.interval()), g.start());
        assertEquals(0, g.start() % g.interval(), "intervals start at multiples of the interval (event_rate's)");
        assertEquals(g.interval(), vm.intervalProperty().get(), "the interval used is shown");
    }

    @Test
    void countsPerEventTypeEqualAnIndependentCountAtEveryInterval() {
        vm.perEventProperty().set(true);
        vm.getFilters().clear();
        for (long iv : IoGraphViewModel.INTERVALS) {
            vm.intervalProperty().set(iv);
            IoGraphViewModel.Graph g = vm.graphProperty().get();
            assertEquals(iv, g.interval());
            assertEquals(oracle.start(iv), g.start());
            Map<String, long[]> expected = oracle.perEvent(iv);
            assertEquals(expected.keySet(), g.lines().stream().map(IoGraphViewModel.Line::name).collect(java.util.stream.Collectors.toSet()));
            for (IoGraphViewModel.Line l : g.lines()) {
                assertArrayEquals(expected.get(l.name()), l.counts(), l.name() + " per " + iv + " ns");
            }
        }
        assertTrue(oracle.perEvent(1_000_000).size() > 1, "several event types");
    }

    @Test
    void allEventsAndFilterLinesEqualAnIndependentCount() throws Exception {
        vm.intervalProperty().set(1_000_000);
        vm.perEventProperty().set(false);
        List<String> filters = List.of("prev_state & 1 && next_pid > 100", "common_pid == 0", "CPU == 1 && common_pid < 1000");
        vm.getFilters().setAll(filters);
        IoGraphViewModel.Graph g = vm.graphProperty().get();
        assertEquals("", vm.errorProperty().get());
        assertEquals("all events", g.lines().get(0).name());
        assertArrayEquals(oracle.counts(1_000_000, e -> true), g.lines().get(0).counts());
        assertEquals(oracle.events.size(), g.lines().get(0).total());
        for (int i = 0; i < filters.size(); i++) {
            IoGraphViewModel.Line l = g.lines().get(i + 1);
            assertEquals(filters.get(i), l.filter());
            long[] expected = oracle.counts(1_000_000, oracle.filter(filters.get(i)));
            assertTrue(l.total() > 0 && l.total() < oracle.events.size(), filters.get(i) + ": " + l.total());
            assertArrayEquals(expected, l.counts(), filters.get(i));
        }
        // a filter with an error is said, with its position; the other lines stay
        vm.getFilters().add("no_such_field == 3");
        assertTrue(vm.errorProperty().get().contains("no_such_field == 3"), vm.errorProperty().get());
        assertTrue(vm.errorProperty().get().contains("^"), "its position: " + vm.errorProperty().get());
        assertEquals(1 + filters.size(), vm.graphProperty().get().lines().size());
        vm.getFilters().clear();
        vm.perEventProperty().set(true);
    }

    @Test
    void goingToATimeSelectsTheFirstEventAtOrAfterIt() {
        vm.intervalProperty().set(10_000_000);
        IoGraphViewModel.Graph g = vm.graphProperty().get();
        boolean[] shown = {false};
        vm.setGoToFrame(f -> {
            shown[0] = true;
            table.goToFrame(f, row -> { });
        });
        for (long ts : new long[] {g.start(), g.start() + 10_000_000L * (g.points() / 2), g.start() + 10_000_000L * (g.points() - 1)}) {
            long expected = oracle.firstAtOrAfter(ts);
            assertTrue(expected > 0);
            vm.goToTime(ts);
            assertEquals(expected, vm.jumpedToProperty().get(), "first frame at/after " + ts);
            assertTrue(table.messageProperty().get().startsWith(String.format("frame %,d: row", expected)),
                    table.messageProperty().get());
        }
        assertTrue(shown[0]);
        vm.goToTime(oracle.end() + 1);
        assertTrue(vm.statusProperty().get().startsWith("no event"), vm.statusProperty().get());
        assertFalse(vm.jumpedToProperty().get() < 0);
    }
}
