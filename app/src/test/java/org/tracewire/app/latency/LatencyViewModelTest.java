package org.tracewire.app.latency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.tracewire.analysis.LatencyPair;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.TestRows;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.format.Field;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixtureRecords;

class LatencyViewModelTest {
    /** Independently of LatencyTracker: wakeup → next switch-in of the pid, per-task sys_enter_X → sys_exit_X, irq/softirq per CPU. */
    static List<long[]> expectedPairs(List<EventRecord> records) {
        List<long[]> out = new ArrayList<>();  // {kind ordinal, latency}
        Map<Long, Long> wakeups = new HashMap<>();
        Map<String, Long> starts = new HashMap<>();
        for (EventRecord r : records) {
            String s = r.format().system();
            String n = r.format().name();
            if (s.equals("sched") && (n.equals("sched_wakeup") || n.equals("sched_wakeup_new"))) {
                wakeups.putIfAbsent(val(r, "pid"), r.timestampNs());
            } else if (s.equals("sched") && n.equals("sched_switch")) {
                Long w = wakeups.remove(val(r, "next_pid"));
                if (w != null) {
                    out.add(new long[] {LatencyPair.Kind.SCHED_WAKEUP.ordinal(), r.timestampNs() - w});
                }
            } else if (s.equals("syscalls") && n.startsWith("sys_enter_")) {
                starts.put("sys" + r.pid() + "/" + n.substring(10) + "/" + val(r, "__syscall_nr"), r.timestampNs());
                starts.keySet().removeIf(k -> k.startsWith("sys" + r.pid() + "/") && !k.equals("sys" + r.pid() + "/" + n.substring(10) + "/" + val(r, "__syscall_nr")));
            } else if (s.equals("syscalls") && n.startsWith("sys_exit_")) {
                Long st = starts.remove("sys" + r.pid() + "/" + n.substring(9) + "/" + val(r, "__syscall_nr"));
                starts.keySet().removeIf(k -> k.startsWith("sys" + r.pid() + "/"));
                if (st != null) {
                    out.add(new long[] {LatencyPair.Kind.SYSCALL.ordinal(), r.timestampNs() - st});
                }
            } else if (s.equals("irq") && (n.equals("irq_handler_entry") || n.equals("softirq_entry"))) {
                starts.put(n.charAt(0) + "/" + r.cpu() + "/" + val(r, n.equals("softirq_entry") ? "vec" : "irq"), r.timestampNs());
            } else if (s.equals("irq") && (n.equals("irq_handler_exit") || n.equals("softirq_exit"))) {
                Long st = starts.remove(n.charAt(0) + "/" + r.cpu() + "/" + val(r, n.equals("softirq_exit") ? "vec" : "irq"));
                if (st != null) {
                    out.add(new long[] {(n.equals("softirq_exit") ? LatencyPair.Kind.SOFTIRQ : LatencyPair.Kind.IRQ).ordinal(),
                        r.timestampNs() - st});
                }
            }
        }
        return out;
    }

    private static long val(EventRecord r, String field) {
        Field f = r.format().field(field);
        return r.integer(f);
    }

    /**
     * Rows handed to a background run before the table was cleared, whose run starts only after
     * the clear: they must not reach the cleared tracker, or their wakeups and syscall entries would
     * pair with the rows after the clear.
     */
    @Test
    void aRunThatStartsAfterAClearDoesNotFeedTheClearedTracker() {
        org.tracewire.app.util.QueuedTaskExecutor later = new org.tracewire.app.util.QueuedTaskExecutor();
        LatencyViewModel vm = new LatencyViewModel(later);
        List<EventRow> rows = TestRows.fixture();
        int half = rows.size() / 2;
        vm.appended(rows.subList(0, half)); // handed out, not started
        vm.cleared();
        vm.appended(rows.subList(half, rows.size()));
        later.runAll();
        List<EventRecord> records = FixtureRecords.load();
        long expected = expectedPairs(records.subList(half, records.size())).size();
        assertTrue(expected > 100, "pairs in the second half: " + expected);
        assertEquals(expected, vm.totalProperty().get());
    }

    @Test
    void latenciesShownEqualOnesComputedFromTheSameEvents() {
        CaptureViewModel capture = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
        LatencyViewModel vm = new LatencyViewModel(new DirectTaskExecutor());
        vm.connect(capture);
        List<EventRow> rows = TestRows.fixture();
        for (int i = 0; i < rows.size(); i += 3000) {
            capture.accept(rows.subList(i, Math.min(rows.size(), i + 3000)));
            capture.flush();
        }
        List<long[]> expected = expectedPairs(FixtureRecords.load());
        assertTrue(expected.size() > 500, "pairs in the fixture: " + expected.size());
        assertTrue(expected.stream().anyMatch(p -> p[0] == LatencyPair.Kind.SCHED_WAKEUP.ordinal()));
        assertTrue(expected.stream().anyMatch(p -> p[0] == LatencyPair.Kind.SOFTIRQ.ordinal()));
        List<LatencyViewModel.LatencyRow> shown = vm.getPairs();
        assertEquals(expected.size(), shown.size());
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(LatencyPair.Kind.values()[(int) expected.get(i)[0]], shown.get(i).kind(), "pair " + i);
            assertEquals(expected.get(i)[1], shown.get(i).latencyNs(), "pair " + i);
        }
        // the histogram: bucket k counts latencies in [2^k, 2^(k+1))
        Map<Integer, Long> buckets = new HashMap<>();
        for (long[] p : expected) {
            int k = 0;
            while (k < 62 && (1L << (k + 1)) <= p[1]) {
                k++;
            }
            buckets.merge(k, 1L, Long::sum);
        }
        Map<Integer, Long> got = new HashMap<>();
        vm.getHistogram().forEach(b -> {
            if (b.count() > 0) {
                got.put(b.log2(), b.count());
            }
        });
        assertEquals(buckets, got);
        assertEquals(expected.size(), vm.totalProperty().get());

        vm.kindProperty().set(LatencyPair.Kind.SCHED_WAKEUP);
        assertEquals(expected.stream().filter(p -> p[0] == LatencyPair.Kind.SCHED_WAKEUP.ordinal()).count(), vm.getPairs().size());

        // selecting a pair selects its end event in the event table
        LatencyViewModel.LatencyRow last = vm.getPairs().get(vm.getPairs().size() - 1);
        vm.select(last);
        EventRow end = capture.table().selectedProperty().get();
        assertSame(last.end(), end);
        assertEquals("sched:sched_switch", end.event());
        assertEquals(last.pair().end().timestampNs(), end.ts());
    }
}
