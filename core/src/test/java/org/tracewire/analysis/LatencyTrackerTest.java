package org.tracewire.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixtureRecords;

/**
 * The latency pairs of the fixture's real records equal a second, backward-looking computation written
 * here (for each end record, look back for its start), and the tracker's bounds and counters behave on
 * built records.
 */
class LatencyTrackerTest {

    /** One pair as the test names it: kind, start index, end index. */
    private record P(LatencyPair.Kind kind, long start, long end) {
    }

    private static long num(EventRecord r, String field) {
        return r.integer(r.format().field(field));
    }

    private static boolean is(EventRecord r, String system, String name) {
        return r.format().system().equals(system) && r.format().name().equals(name);
    }

    /** The expected pairs, by looking back from each end record over the list (quadratic, plainly). */
    private static Set<P> expected(List<EventRecord> rs) {
        Set<P> out = new HashSet<>();
        for (int e = 0; e < rs.size(); e++) {
            EventRecord end = rs.get(e);
            String sys = end.format().system();
            String name = end.format().name();
            if (is(end, "sched", "sched_switch")) {
                long pid = num(end, "next_pid");
                int earliest = -1;
                for (int i = e - 1; i >= 0; i--) {
                    EventRecord r = rs.get(i);
                    if (is(r, "sched", "sched_switch") && num(r, "next_pid") == pid) {
                        break;
                    }
                    if ((is(r, "sched", "sched_wakeup") || is(r, "sched", "sched_wakeup_new")) && num(r, "pid") == pid) {
                        earliest = i;
                    }
                }
                if (earliest >= 0) {
                    out.add(new P(LatencyPair.Kind.SCHED_WAKEUP, earliest, e));
                }
            } else if (sys.equals("syscalls") && name.startsWith("sys_exit_")) {
                for (int i = e - 1; i >= 0; i--) {
                    EventRecord r = rs.get(i);
                    if (r.format().system().equals("syscalls") && r.pid() == end.pid()) {
                        if (r.format().name().equals("sys_enter_" + name.substring(9))
                                && num(r, "__syscall_nr") == num(end, "__syscall_nr")) {
                            out.add(new P(LatencyPair.Kind.SYSCALL, i, e));
                        }
                        break;
                    }
                }
            } else if (is(end, "irq", "irq_handler_exit") || is(end, "irq", "softirq_exit")) {
                boolean hard = name.equals("irq_handler_exit");
                String idField = hard ? "irq" : "vec";
                String entry = hard ? "irq_handler_entry" : "softirq_entry";
                for (int i = e - 1; i >= 0; i--) {
                    EventRecord r = rs.get(i);
                    if (r.cpu() == end.cpu() && r.format().system().equals("irq")
                            && (r.format().name().equals(entry) || r.format().name().equals(name))
                            && num(r, idField) == num(end, idField)) {
                        if (r.format().name().equals(entry)) {
                            out.add(new P(hard ? LatencyPair.Kind.IRQ : LatencyPair.Kind.SOFTIRQ, i, e));
                        }
                        break;
                    }
                }
            }
        }
        return out;
    }

    @Test
    void fixturePairsEqualTheBackwardComputation() {
        List<EventRecord> rs = FixtureRecords.load();
        List<LatencyPair> pairs = LatencyTracker.pairAll(rs);
        Set<P> got = new HashSet<>();
        Map<LatencyPair.Kind, Integer> perKind = new EnumMap<>(LatencyPair.Kind.class);
        for (LatencyPair p : pairs) {
            assertTrue(got.add(new P(p.kind(), p.start().sequence(), p.end().sequence())), "one pair per start/end: " + p);
            perKind.merge(p.kind(), 1, Integer::sum);
            EventRecord s = rs.get((int) p.start().sequence());
            EventRecord e = rs.get((int) p.end().sequence());
            assertEquals(e.timestampNs() - s.timestampNs(), p.latencyNs(), p.toString());
            assertTrue(p.latencyNs() >= 0, p.toString());
            assertEquals(s.cpu(), p.start().cpu());
            assertEquals(e.cpu(), p.end().cpu());
            switch (p.kind()) {
                case SCHED_WAKEUP -> {
                    assertEquals(num(s, "pid"), p.pid());
                    assertEquals(num(e, "next_pid"), p.pid());
                    assertEquals(s.string(s.format().field("comm")), p.comm());
                    assertEquals(s.pid(), p.wakerPid());
                    assertEquals(num(s, "target_cpu"), p.cpu());
                }
                case SYSCALL -> {
                    assertEquals(s.pid(), p.pid());
                    assertEquals(s.format().name().substring("sys_enter_".length()), p.name());
                    assertEquals(num(e, "ret"), p.result());
                }
                case IRQ -> assertEquals(s.string(s.format().field("name")), p.name());
                case SOFTIRQ -> assertEquals(num(s, "vec"), p.id());
                default -> throw new AssertionError(p);
            }
        }
        assertEquals(expected(rs), got);
        for (LatencyPair.Kind k : LatencyPair.Kind.values()) {
            assertTrue(perKind.getOrDefault(k, 0) > 10, k + ": " + perKind);
        }
    }

    @Test
    void liveFeedingGivesWhatPairAllGives() {
        List<EventRecord> rs = FixtureRecords.load();
        LatencyTracker t = new LatencyTracker();
        List<LatencyPair> live = new ArrayList<>();
        for (EventRecord r : rs) {
            t.feed(r).ifPresent(live::add);
        }
        assertEquals(LatencyTracker.pairAll(rs), live);
        LatencyStats s = t.stats();
        assertEquals(rs.size(), s.records());
        assertEquals(live.size(), s.pairs());
        assertEquals(0, s.evicted());
        assertEquals(0, s.outOfOrder());
        assertEquals(0, s.negative());
        assertTrue(s.pending() > 0, "the capture's window leaves starts open: " + s);
    }

    @Test
    void pairAllSortsByTimeAndKeepsListIndices() {
        List<EventRecord> rs = new ArrayList<>(FixtureRecords.load());
        List<LatencyPair> inOrder = LatencyTracker.pairAll(rs);
        List<Integer> perm = new ArrayList<>();
        for (int i = 0; i < rs.size(); i++) {
            perm.add(i);
        }
        Collections.reverse(perm);
        List<EventRecord> reversed = perm.stream().map(rs::get).toList();
        List<LatencyPair> fromReversed = LatencyTracker.pairAll(reversed);
        assertEquals(inOrder.size(), fromReversed.size());
        for (LatencyPair p : fromReversed) {
            assertTrue(reversed.get((int) p.start().sequence()).timestampNs() == p.start().timestampNs());
            assertTrue(reversed.get((int) p.end().sequence()).timestampNs() == p.end().timestampNs());
        }
    }

    private static EventRecord enter(int pid, long id, long ts) {
        return Synth.record("raw_syscalls", "sys_enter", 0, ts, Map.of("common_pid", pid, "id", id));
    }

    private static EventRecord exit(int pid, long id, long ret, long ts) {
        return Synth.record("raw_syscalls", "sys_exit", 1, ts, Map.of("common_pid", pid, "id", id, "ret", ret));
    }

    @Test
    void rawSyscallsPairPerTaskAndId() {
        LatencyTracker t = new LatencyTracker();
        assertTrue(t.feed(enter(10, 0, 100)).isEmpty());
        assertTrue(t.feed(enter(11, 1, 150)).isEmpty());
        LatencyPair p = t.feed(exit(10, 0, 42, 400)).orElseThrow();
        assertEquals(LatencyPair.Kind.SYSCALL, p.kind());
        assertEquals(300, p.latencyNs());
        assertEquals(10, p.pid());
        assertEquals(0, p.id());
        assertNull(p.name());
        assertEquals(42, p.result());
        assertEquals(new RecordRef(0, 0, 100), p.start());
        assertEquals(new RecordRef(2, 1, 400), p.end());
        assertTrue(t.feed(exit(11, 2, 0, 500)).isEmpty(), "another id does not close the call");
        assertEquals(1, t.stats().unmatchedEnds());
        assertTrue(t.feed(enter(12, 60, 600)).isEmpty());
        assertTrue(t.feed(enter(12, 1, 700)).isEmpty(), "exit_group never returns; the next enter replaces it");
        assertEquals(1, t.stats().replacedStarts());
        assertEquals(200, t.feed(exit(12, 1, 0, 900)).orElseThrow().latencyNs());
    }

    @Test
    void theCapEvictsTheOldestAndCountsIt() {
        LatencyTracker t = new LatencyTracker(2);
        t.feed(enter(1, 0, 10));
        t.feed(enter(2, 0, 20));
        t.feed(enter(3, 0, 30));
        LatencyStats s = t.stats();
        assertEquals(2, s.pending());
        assertEquals(1, s.evicted());
        assertTrue(t.feed(exit(1, 0, 0, 40)).isEmpty(), "pid 1's enter was evicted");
        assertEquals(1, t.stats().unmatchedEnds());
        assertEquals(30, t.feed(exit(2, 0, 0, 50)).orElseThrow().latencyNs());
        assertThrows(IllegalArgumentException.class, () -> new LatencyTracker(0));
    }

    @Test
    void wakeupKeepsTheFirstAndEndsOnAnyCpu() {
        LatencyTracker t = new LatencyTracker();
        t.feed(Synth.record("sched", "sched_wakeup", 0, 100, Map.of("common_pid", 7, "pid", 99, "comm", "worker", "target_cpu", 1)));
        t.feed(Synth.record("sched", "sched_wakeup", 1, 150, Map.of("common_pid", 8, "pid", 99, "comm", "worker", "target_cpu", 1)));
        assertEquals(1, t.stats().repeatedWakeups());
        assertTrue(t.feed(Synth.record("sched", "sched_switch", 0, 160, Map.of("next_pid", 98))).isEmpty());
        LatencyPair p = t.feed(Synth.record("sched", "sched_switch", 1, 180, Map.of("prev_pid", 5, "next_pid", 99)))
                .orElseThrow();
        assertEquals(80, p.latencyNs());
        assertEquals(7, p.wakerPid());
        assertEquals("worker", p.comm());
        assertEquals(1, p.cpu());
        assertEquals(1, p.result());
        assertEquals(0, t.stats().pending());
    }

    @Test
    void outOfOrderEndsAreDiscardedAndCounted() {
        LatencyTracker t = new LatencyTracker();
        t.feed(enter(4, 3, 1000));
        assertFalse(t.feed(exit(4, 3, 0, 900)).isPresent());
        LatencyStats s = t.stats();
        assertEquals(1, s.outOfOrder());
        assertEquals(1, s.negative());
        assertEquals(0, s.pairs());
    }

    @Test
    void irqsPairPerCpuAndSoftirqsAreNamed() {
        LatencyTracker t = new LatencyTracker();
        t.feed(Synth.record("irq", "softirq_entry", 0, 10, Map.of("vec", 3)));
        t.feed(Synth.record("irq", "softirq_entry", 1, 12, Map.of("vec", 3)));
        LatencyPair p = t.feed(Synth.record("irq", "softirq_exit", 1, 20, Map.of("vec", 3))).orElseThrow();
        assertEquals(8, p.latencyNs());
        assertEquals("NET_RX", p.name());
        t.feed(Synth.record("irq", "irq_handler_entry", 0, 30, Map.of("irq", 24, "name", "virtio0")));
        LatencyPair irq = t.feed(Synth.record("irq", "irq_handler_exit", 0, 35, Map.of("irq", 24, "ret", 1))).orElseThrow();
        assertEquals(LatencyPair.Kind.IRQ, irq.kind());
        assertEquals("virtio0", irq.name());
        assertEquals(1, irq.result());
        assertEquals(1, t.stats().pending(), "cpu 0's softirq is still open");
    }
}
