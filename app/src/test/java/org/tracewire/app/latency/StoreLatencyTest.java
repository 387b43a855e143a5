package org.tracewire.app.latency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.analysis.LatencyPair;
import org.tracewire.analysis.LatencyTracker;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.StoreFixture;
import org.tracewire.app.capture.TestRows;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.input.RecordInput;

/**
 * The latency view model over the store of a real capture (issue 34: "the latency of the fixture
 * equals an independent computation over all of it"): core's {@link LatencyTracker} fed every
 * record of the file gives the pairs; their count per kind, log2 buckets, percentiles (linear
 * interpolation between order statistics, as {@code quantile_cont}), max and the worst pairs page
 * by page (the first {@value #PAGES} pages of each kind) must be the view model's. The kinds compared are those of the store's view (only
 * wakeups while the store has {@code sched_latency} alone).
 */
class StoreLatencyTest {
    /** Pages of worst pairs compared per kind (each page is a query; the summary covers every pair). */
    private static final int PAGES = 8;
    @TempDir
    static Path dir;
    private static StoreFixture fixture;
    private static List<RecordInput.Event> events;
    private static final Map<LatencyPair.Kind, List<LatencyPair>> PAIRS = new EnumMap<>(LatencyPair.Kind.class);
    private static final Map<Long, RecordInput.Event> BY_FRAME = new HashMap<>();

    @BeforeAll
    static void open() throws Exception {
        fixture = StoreFixture.open(dir);
        events = fixture.events();
        LatencyTracker tracker = new LatencyTracker();
        for (RecordInput.Event e : events) {
            BY_FRAME.put(e.frame(), e);
            tracker.feed(e.frame(), e.record())
                    .ifPresent(p -> PAIRS.computeIfAbsent(p.kind(), k -> new ArrayList<>()).add(p));
        }
        assertTrue(PAIRS.get(LatencyPair.Kind.SCHED_WAKEUP).size() > 200, "wakeup pairs: " + PAIRS);
    }

    @AfterAll
    static void close() {
        fixture.close();
    }

    private static LatencyViewModel viewModel(List<Long> navigated) {
        CaptureViewModel capture = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
        LatencyViewModel vm = new LatencyViewModel(new DirectTaskExecutor());
        vm.setQueries(Runnable::run);
        vm.setNavigator(navigated::add);
        vm.connect(capture);
        capture.storeTableProperty().set(fixture.table());
        return vm;
    }

    /** {@code quantile_cont}: the order statistics at (n−1)·q, linearly interpolated. */
    static double quantile(List<Long> sorted, double q) {
        double at = (sorted.size() - 1) * q;
        int lo = (int) Math.floor(at);
        int hi = (int) Math.ceil(at);
        return sorted.get(lo) + (sorted.get(hi) - sorted.get(lo)) * (at - lo);
    }

    @Test
    void everyPairOfTheFileIsCountedBucketedAndRanked() {
        List<Long> navigated = new ArrayList<>();
        LatencyViewModel vm = viewModel(navigated);
        assertTrue(vm.overStoreProperty().get());
        Map<LatencyPair.Kind, Long> kinds = Map.copyOf(vm.getKindCounts());
        assertFalse(kinds.isEmpty(), vm.statusProperty().get());
        for (LatencyPair.Kind k : kinds.keySet()) {
            assertEquals(PAIRS.get(k).size(), kinds.get(k), "pairs of " + k);
        }
        assertTrue(kinds.containsKey(LatencyPair.Kind.SCHED_WAKEUP));
        // each kind the store knows, then all of them together
        List<LatencyPair.Kind> choices = new ArrayList<>(kinds.keySet());
        choices.add(null);
        for (LatencyPair.Kind k : choices) {
            vm.kindProperty().set(k);
            List<LatencyPair> want = new ArrayList<>();
            for (LatencyPair.Kind kk : kinds.keySet()) {
                if (k == null || kk == k) {
                    want.addAll(PAIRS.get(kk));
                }
            }
            StoreLatency.Summary s = vm.summaryProperty().get();
            assertNotNull(s);
            assertEquals(want.size(), s.count(), "count of " + k);
            assertEquals(want.size(), vm.totalProperty().get());
            long[] buckets = new long[64];
            List<Long> lat = new ArrayList<>();
            for (LatencyPair p : want) {
                buckets[LatencyViewModel.bucket(p.latencyNs())]++;
                lat.add(p.latencyNs());
            }
            lat.sort(null);
            assertEquals(java.util.Arrays.toString(buckets), java.util.Arrays.toString(s.log2()), "log2 buckets of " + k);
            long shownInBars = vm.getHistogram().stream().mapToLong(LatencyViewModel.Bucket::count).sum();
            assertEquals(want.size(), shownInBars, "every pair in the bars");
            assertEquals(lat.get(lat.size() - 1), s.max(), "max of " + k);
            assertEquals(quantile(lat, 0.5), s.p50(), 1e-6 * Math.max(1, s.p50()), "p50 of " + k);
            assertEquals(quantile(lat, 0.9), s.p90(), 1e-6 * Math.max(1, s.p90()), "p90 of " + k);
            assertEquals(quantile(lat, 0.99), s.p99(), 1e-6 * Math.max(1, s.p99()), "p99 of " + k);

            // the worst pairs, every page: latency descending, ties by end frame
            want.sort(Comparator.comparingLong(LatencyPair::latencyNs).reversed()
                    .thenComparingLong(p -> p.end().sequence()));
            int seen = 0;
            while (true) {
                for (LatencyViewModel.LatencyRow r : vm.getPairs()) {
                    LatencyPair p = want.get(seen++);
                    assertEquals(p.latencyNs(), r.latencyNs(), "worst pair " + seen);
                    assertEquals(p.end().sequence(), r.frame(), "worst pair " + seen + ": its end frame");
                    assertEquals(p.kind(), r.kind());
                }
                if (vm.pageStartProperty().get() + LatencyViewModel.PAGE_SIZE >= want.size() || seen >= PAGES * LatencyViewModel.PAGE_SIZE) {
                    break;
                }
                vm.nextPage();
            }
            assertEquals(Math.min(want.size(), PAGES * LatencyViewModel.PAGE_SIZE), seen, "the pages hold the worst pairs of " + k);
            assertTrue(vm.statusProperty().get().contains(String.format("of %,d shown", want.size())), vm.statusProperty().get());
            vm.previousPage();
        }
    }

    @Test
    void wakersAreNamedAndAPairGoesToItsFrame() {
        List<Long> navigated = new ArrayList<>();
        LatencyViewModel vm = viewModel(navigated);
        vm.kindProperty().set(LatencyPair.Kind.SCHED_WAKEUP);
        int named = 0;
        for (LatencyViewModel.LatencyRow r : vm.getPairs()) {
            LatencyPair p = PAIRS.get(LatencyPair.Kind.SCHED_WAKEUP).stream()
                    .filter(x -> x.end().sequence() == r.frame()).findFirst().orElseThrow();
            RecordInput.Event wakeup = BY_FRAME.get(p.start().sequence());
            String comm = wakeup.renderer().comm(p.wakerPid());
            assertEquals((comm == null ? "" : comm + " ") + "(" + p.wakerPid() + ")", r.waker(), "waker of frame " + r.frame());
            named += comm == null ? 0 : 1;
        }
        assertTrue(named > vm.getPairs().size() / 2, "wakers by name, not bare pids: " + named);
        LatencyViewModel.LatencyRow worst = vm.getPairs().get(0);
        vm.select(worst);
        assertEquals(List.of(worst.frame()), navigated, "selecting a pair goes to its end frame");
        int[] row = {-2};
        fixture.table().goToFrame(worst.frame(), i -> row[0] = i);
        assertEquals(worst.frame(), fixture.table().rowsProperty().get().get(row[0]).frame());
        assertEquals("sched:sched_switch", fixture.table().rowsProperty().get().get(row[0]).event());
    }

    @Test
    void rowsStreamedWhileTheStoreIsBuiltAreNotCounted() {
        CaptureViewModel capture = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
        LatencyViewModel vm = new LatencyViewModel(new DirectTaskExecutor());
        vm.setQueries(Runnable::run);
        vm.connect(capture);
        capture.indexedProperty().set(0);
        assertTrue(vm.overStoreProperty().get());
        vm.appended(TestRows.fixture());
        assertEquals(0, vm.totalProperty().get(), "a window of rows is not passed off as the file's latency");
        assertTrue(vm.statusProperty().get().contains("indexing"), vm.statusProperty().get());
        capture.storeTableProperty().set(fixture.table());
        capture.indexedProperty().set(-1);
        assertEquals(PAIRS.get(LatencyPair.Kind.SCHED_WAKEUP).size()
                + vm.getKindCounts().entrySet().stream().filter(e -> e.getKey() != LatencyPair.Kind.SCHED_WAKEUP)
                .mapToLong(Map.Entry::getValue).sum(), vm.totalProperty().get());
    }
}
