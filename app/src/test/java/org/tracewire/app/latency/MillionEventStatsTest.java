package org.tracewire.app.latency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.analysis.HistAggregator;
import org.tracewire.analysis.HistLabels;
import org.tracewire.analysis.HistSpec;
import org.tracewire.analysis.HistTable;
import org.tracewire.analysis.LatencyPair;
import org.tracewire.analysis.LatencyTracker;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.capture.TestRows;
import org.tracewire.app.histogram.HistogramViewModel;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.format.EventFormat;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.record.EventRecord;
import org.tracewire.store.StoreCache;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * Issue 34's acceptance at its size: a pcapng of a million real records (the ring-buffer fixture
 * of this machine, repeated: sched, syscalls, irqs, timers, …) opened over its store; the latency
 * view model's counts per kind, log2 buckets, percentiles, max and worst page, and histogram
 * tables of sched_switch, sys_exit_read and kmalloc, equal what {@link LatencyTracker} and
 * {@link HistAggregator} compute reading every record of the file once, in order. No window:
 * the 200,000 rows the old histogram re-keyed over and the 10,000 pairs the old table kept are
 * far below the counts compared.
 */
class MillionEventStatsTest {
    @TempDir
    static Path dir;

    @Test
    void latencyAndHistogramOfAMillionEventsEqualOneReadOfEveryRecord() throws Exception {
        List<EventRecord> one = FixtureRecords.load();
        List<EventRecord> recs = new ArrayList<>();
        while (recs.size() < 1_000_000) {
            recs.addAll(one);
        }
        Path file = FixturePcapng.write(dir.resolve("million.pcapng"), recs);
        recs = null;

        // the independent side: one read of every record
        LatencyTracker tracker = new LatencyTracker(Integer.MAX_VALUE);
        Map<LatencyPair.Kind, List<Long>> latencies = new EnumMap<>(LatencyPair.Kind.class);
        Map<LatencyPair.Kind, List<long[]>> ends = new EnumMap<>(LatencyPair.Kind.class);
        String[][] hists = {
            {"sched:sched_switch", "hist:keys=prev_state,next_prio:vals=prev_prio:size=131072"},
            {"sched:sched_switch", "hist:keys=common_pid:size=131072 if prev_pid != 0"},
            {"syscalls:sys_exit_read", "hist:keys=ret.log2,common_pid:size=131072"},
            {"kmem:kmalloc", "hist:keys=bytes_req.buckets=64,call_site.sym:vals=bytes_alloc:size=131072"},
        };
        List<HistAggregator> aggs = new ArrayList<>(java.util.Collections.nCopies(hists.length, (HistAggregator) null));
        long events = 0;
        try (PcapngInput in = PcapngInput.open(file)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                events++;
                EventFormat f = e.record().format();
                for (int i = 0; i < hists.length; i++) {
                    if (aggs.get(i) == null && f.fullName().equals(hists[i][0])) {
                        aggs.set(i, new HistAggregator(HistSpec.parse(hists[i][1]), f, HistLabels.NONE));
                    }
                    if (aggs.get(i) != null) {
                        aggs.get(i).add(e.record());
                    }
                }
                tracker.feed(e.frame(), e.record()).ifPresent(p -> {
                    latencies.computeIfAbsent(p.kind(), k -> new ArrayList<>()).add(p.latencyNs());
                    ends.computeIfAbsent(p.kind(), k -> new ArrayList<>()).add(new long[] {p.latencyNs(), p.end().sequence()});
                });
            }
        }
        assertTrue(events >= 1_000_000, "events: " + events);

        StoreTable table = StoreTable.open(file, new StoreCache(dir.resolve("cache"), 1L << 32), n -> { }, Runnable::run,
                new DirectTaskExecutor());
        try {
            assertEquals(events, table.total());
            CaptureViewModel capture = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
            LatencyViewModel latency = new LatencyViewModel(new DirectTaskExecutor());
            latency.setQueries(Runnable::run);
            latency.connect(capture);
            HistogramViewModel histogram = new HistogramViewModel(new DirectTaskExecutor(), TestRows.records());
            histogram.setQueries(Runnable::run);
            histogram.connect(capture);
            capture.storeTableProperty().set(table);

            long all = 0;
            for (LatencyPair.Kind k : latency.getKindCounts().keySet()) {
                all += latency.getKindCounts().get(k);
            }
            assertTrue(latency.getKindCounts().keySet().containsAll(latencies.keySet()), latency.getKindCounts() + " vs " + latencies.keySet());
            for (LatencyPair.Kind k : latencies.keySet()) {
                List<Long> lat = latencies.get(k);
                latency.kindProperty().set(k);
                StoreLatency.Summary s = latency.summaryProperty().get();
                assertEquals(lat.size(), s.count(), "pairs of " + k);
                long[] buckets = new long[64];
                lat.forEach(v -> buckets[LatencyViewModel.bucket(v)]++);
                assertEquals(java.util.Arrays.toString(buckets), java.util.Arrays.toString(s.log2()), "buckets of " + k);
                lat.sort(null);
                assertEquals(lat.get(lat.size() - 1), s.max(), "max of " + k);
                assertEquals(StoreLatencyTest.quantile(lat, 0.5), s.p50(), 1e-6 * Math.max(1, s.p50()), "p50 of " + k);
                assertEquals(StoreLatencyTest.quantile(lat, 0.99), s.p99(), 1e-6 * Math.max(1, s.p99()), "p99 of " + k);
                List<long[]> worst = ends.get(k);
                worst.sort(Comparator.<long[]>comparingLong(x -> -x[0]).thenComparingLong(x -> x[1]));
                for (int i = 0; i < latency.getPairs().size(); i++) {
                    assertEquals(worst.get(i)[0], latency.getPairs().get(i).latencyNs(), k + " worst pair " + i);
                    assertEquals(worst.get(i)[1], latency.getPairs().get(i).frame(), k + " worst pair " + i);
                }
            }
            long want = latencies.values().stream().mapToLong(List::size).sum();
            assertEquals(want, all, "pairs of every kind");
            assertTrue(want > LatencyViewModel.MAX_PAIRS, "more pairs than the old table kept: " + want);

            for (int i = 0; i < hists.length; i++) {
                histogram.eventProperty().set(hists[i][0]);
                assertTrue(histogram.applyTriggerText(hists[i][1]), histogram.errorProperty().get() + " " + histogram.getEvents());
                HistTable expected = aggs.get(i).table();
                assertEquals(0, expected.dropped());
                HistTable got = histogram.tableProperty().get();
                assertTrue(got.sameCounts(expected), hists[i][1] + ": hits " + got.hits() + " vs " + expected.hits() + ", entries "
                        + got.entryCount() + " vs " + expected.entryCount() + "; first " + got.entries().subList(0, Math.min(3, got.entries().size()))
                        + " vs " + expected.entries().subList(0, Math.min(3, expected.entries().size())));
            }
            assertTrue(events > 4L * HistogramViewModel.HISTORY, "far more events than the old window: " + events);
        } finally {
            table.close();
        }
    }
}
