package org.tracewire.app.histogram;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.tracewire.analysis.HistEntry;
import org.tracewire.analysis.HistField;
import org.tracewire.analysis.HistSupport;
import org.tracewire.analysis.HistTable;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.TestRows;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixtureRecords;

/** The histogram view model without a GUI: its tables equal ones counted by hand from the same real records. */
class HistogramViewModelTest {
    private static final String SWITCH = "sched:sched_switch";

    private static HistogramViewModel fed() {
        HistogramViewModel vm = new HistogramViewModel(new DirectTaskExecutor(), TestRows.records());
        List<EventRow> rows = TestRows.fixture();
        for (int i = 0; i < rows.size(); i += 500) {
            vm.appended(rows.subList(i, Math.min(rows.size(), i + 500)));
        }
        return vm;
    }

    private static List<EventRecord> switches() {
        return FixtureRecords.load().stream().filter(r -> r.format().fullName().equals(SWITCH)).toList();
    }

    private static Map<Long, Long> hits(HistTable t) {
        Map<Long, Long> m = new HashMap<>();
        for (HistEntry e : t.entries()) {
            m.put(e.keys().get(0).number(), e.hitcount());
        }
        return m;
    }

    /**
     * A background run that starts late, after the spec changed (the race a GUI test caught): it
     * works on the aggregate of its own spec, so the new table counts each record once.
     */
    @Test
    void aRunThatStartsAfterTheSpecChangedDoesNotFeedTheNewAggregate() {
        org.tracewire.app.util.QueuedTaskExecutor later = new org.tracewire.app.util.QueuedTaskExecutor();
        HistogramViewModel vm = new HistogramViewModel(later, TestRows.records());
        vm.appended(TestRows.fixture());
        vm.eventProperty().set(SWITCH); // a run over the history is handed to the executor, not started yet
        assertTrue(vm.applyTriggerText("hist:keys=common_cpu"), vm.errorProperty().get()); // a new aggregate
        later.runAll(); // the old run starts only now, then the new one
        assertEquals(switches().size(), vm.tableProperty().get().hits(), "every sched_switch counted once");
    }

    @Test
    void countsPerKeyEqualACountByHand() {
        HistogramViewModel vm = fed();
        assertTrue(vm.getEvents().contains(SWITCH), vm.getEvents().toString());
        vm.eventProperty().set(SWITCH);
        vm.builder().key1Property().set("next_pid");
        vm.builder().key1ModifierProperty().set(HistField.Modifier.NONE);
        assertEquals("", vm.errorProperty().get());
        assertEquals("hist:keys=next_pid:vals=hitcount:sort=hitcount.descending:size=2048", vm.triggerTextProperty().get());
        Map<Long, Long> expected = new HashMap<>();
        List<EventRecord> sw = switches();
        assertTrue(sw.size() > 100, "the fixture has sched_switch records: " + sw.size());
        for (EventRecord r : sw) {
            expected.merge(r.integer(r.format().field("next_pid")), 1L, Long::sum);
        }
        HistTable t = vm.tableProperty().get();
        assertEquals(expected, hits(t));
        assertEquals(sw.size(), t.hits());
        // sorted by hitcount, descending
        for (int i = 1; i < t.entries().size(); i++) {
            assertTrue(t.entries().get(i - 1).hitcount() >= t.entries().get(i).hitcount());
        }
        assertEquals(Math.min(HistBars.MAX_BARS, t.entries().size()), vm.getBars().size());
        assertEquals(t.entries().get(0).hitcount(), vm.getBars().get(0).value());
    }

    @Test
    void log2KeysWithSummedValuesEqualAComputationByHand() {
        HistogramViewModel vm = fed();
        vm.eventProperty().set(SWITCH);
        assertTrue(vm.applyTriggerText("hist:keys=prev_pid.log2:vals=next_prio:sort=prev_pid"), vm.errorProperty().get());
        assertEquals("prev_pid", vm.builder().key1Property().get());
        assertEquals(HistField.Modifier.LOG2, vm.builder().key1ModifierProperty().get());
        assertEquals(List.of("next_prio"), vm.builder().getValues());
        Map<Long, long[]> expected = new HashMap<>();
        for (EventRecord r : switches()) {
            long v = r.integer(r.format().field("prev_pid"));
            long k = v <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(v - 1); // ilog2(roundup_pow_of_two(v))
            long[] a = expected.computeIfAbsent(k, x -> new long[2]);
            a[0]++;
            a[1] += r.integer(r.format().field("next_prio"));
        }
        HistTable t = vm.tableProperty().get();
        assertEquals(expected.size(), t.entries().size());
        long prev = -1;
        for (HistEntry e : t.entries()) {
            long k = e.keys().get(0).number();
            assertTrue(k > prev, "sorted by the key ascending");
            prev = k;
            assertEquals(expected.get(k)[0], e.hitcount(), "2^" + k);
            assertEquals(expected.get(k)[1], (long) e.values().get(0), "2^" + k);
        }
        // the log2 histogram plots every power of two between the first and last, gaps as 0
        long first = t.entries().get(0).keys().get(0).number();
        long last = t.entries().get(t.entries().size() - 1).keys().get(0).number();
        assertEquals(last - first + 1, vm.getBars().size());
        assertEquals("2^" + first, vm.getBars().get(0).label());
        vm.plottedProperty().set("next_prio");
        assertEquals(expected.get(first)[1], vm.getBars().get(0).value());
    }

    @Test
    void aFilterCountsOnlyMatchingEventsAndNewRowsAddLive() {
        HistogramViewModel vm = new HistogramViewModel(new DirectTaskExecutor(), TestRows.records());
        List<EventRow> rows = TestRows.fixture();
        int half = rows.size() / 2;
        vm.appended(rows.subList(0, half));
        vm.eventProperty().set(SWITCH);
        assertTrue(vm.applyTriggerText("hist:keys=common_cpu if prev_pid == 0"), vm.errorProperty().get());
        long before = vm.tableProperty().get().hits();
        vm.appended(rows.subList(half, rows.size()));
        long expected = switches().stream().filter(r -> r.integer(r.format().field("prev_pid")) == 0).count();
        assertEquals(expected, vm.tableProperty().get().hits());
        assertTrue(before < expected, "the table grew with the new rows: " + before + " → " + expected);
        Map<Long, Long> byCpu = new HashMap<>();
        switches().stream().filter(r -> r.integer(r.format().field("prev_pid")) == 0)
                .forEach(r -> byCpu.merge((long) r.cpu(), 1L, Long::sum));
        assertEquals(byCpu, hits(vm.tableProperty().get()));
    }

    @Test
    void badTriggerTextSaysWhere() {
        HistogramViewModel vm = fed();
        vm.eventProperty().set(SWITCH);
        String good = vm.triggerTextProperty().get();
        assertFalse(vm.applyTriggerText("hist:keys=next_pid:sort=bogus_field"));
        assertFalse(vm.errorProperty().get().isEmpty());
        assertEquals(good, vm.triggerTextProperty().get(), "the last valid spec stays");
        vm.builder().key1Property().set("no_such_field");
        assertTrue(vm.errorProperty().get().contains("no_such_field"), vm.errorProperty().get());
        assertEquals("", vm.triggerTextProperty().get(), "an invalid spec clears the output");
    }

    @Test
    void whereItRunsIsSaid() {
        HistogramViewModel vm = fed();
        vm.eventProperty().set(SWITCH);
        vm.setSupport(HistSupport.parse("# Available triggers:\n# traceon traceoff stacktrace enable_event disable_event\n", null));
        assertTrue(vm.kernel().supportProperty().get().contains("no hist triggers"), vm.kernel().supportProperty().get());
        assertTrue(vm.kernel().kernelCommandProperty().get().startsWith("(not on this kernel) echo 'hist:keys=common_pid.execname"),
                vm.kernel().kernelCommandProperty().get());
        vm.setSupport(HistSupport.parse("# Available triggers:\n# traceon traceoff snapshot stacktrace enable_event disable_event "
                + "enable_hist disable_hist hist\n", null));
        assertTrue(vm.kernel().kernelHistProperty().get());
        assertEquals("echo '" + vm.triggerTextProperty().get() + "' >> events/sched/sched_switch/trigger",
                vm.kernel().kernelCommandProperty().get());
    }

    @Test
    void theKernelsHistOutputIsShown() throws IOException {
        // the sample of Documentation/trace/histogram.rst's review (core's HistFile fixture)
        String text;
        try (InputStream in = HistogramViewModelTest.class.getResourceAsStream("/org/tracewire/analysis/hist-kmalloc-log2.txt")) {
            assertNotNull(in, "core's test resources are on the class path");
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        HistogramViewModel vm = new HistogramViewModel(new DirectTaskExecutor(), TestRows.records());
        HistTable t = vm.showKernelHist(text);
        assertEquals(21, t.hits());
        assertEquals("hist:keys=bytes_req.log2:vals=hitcount:sort=bytes_req.log2:size=2048", vm.triggerTextProperty().get());
        assertEquals(6, vm.getEntries().size());
        assertEquals(List.of("2^5", "2^6", "2^7", "2^8", "2^9", "2^10"), vm.getBars().stream().map(HistBars.Bar::label).toList());
        assertEquals(List.of(8L, 2L, 4L, 2L, 2L, 3L), vm.getBars().stream().map(HistBars.Bar::value).toList());
        assertTrue(Set.of("~ 2^5").contains(HistBars.label(t.entries().get(0), t)));
    }

    /**
     * Over a capture whose store is still being built (a live capture, a file being indexed) the
     * formats are not known yet: the view says it is indexing, not that the event's format is unknown.
     */
    @Test
    void aStoreStillBeingBuiltIsNoUnknownFormat() {
        CaptureViewModel capture = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
        HistogramViewModel vm = new HistogramViewModel(new DirectTaskExecutor(), TestRows.records());
        vm.setQueries(Runnable::run);
        vm.shownProperty().set(true);
        vm.connect(capture);
        capture.indexedProperty().set(0); // building: no store table yet
        vm.eventProperty().set(SWITCH);
        assertEquals("", vm.errorProperty().get());
        assertTrue(vm.statusProperty().get().startsWith("indexing"), vm.statusProperty().get());
        vm.eventProperty().set("sched:no_such_event");
        assertEquals("", vm.errorProperty().get(), "unknown only once the store says so");
    }
}
