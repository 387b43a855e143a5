package org.tracewire.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixtureRecords;

/**
 * {@link HistAggregator} over the fixture's real records equals a plain computation written here
 * (its own log2 and bucket arithmetic in BigInteger, its own filter test, first-come table limit), the
 * rows come out in the spec's order, and the kernel text it renders parses back to the same counts.
 */
class HistAggregatorTest {
    private static final BigInteger TWO64 = BigInteger.ONE.shiftLeft(64);

    private static BigInteger u64(long v) {
        BigInteger b = BigInteger.valueOf(v);
        return v < 0 ? b.add(TWO64) : b;
    }

    /** ilog2(roundup_pow_of_two(v)) on x86-64, by counting: the smallest k with 2^k ≥ v; 2^64 wraps to 2^0. */
    private static long log2(long v) {
        BigInteger u = u64(v);
        int k = 0;
        while (BigInteger.ONE.shiftLeft(k).compareTo(u) < 0) {
            k++;
        }
        return k == 64 ? 0 : k;
    }

    private static long bucket(long v, long n) {
        return u64(v).divide(BigInteger.valueOf(n)).multiply(BigInteger.valueOf(n)).longValue();
    }

    private static long num(EventRecord r, String f) {
        return r.integer(r.format().field(f));
    }

    private static String str(EventRecord r, String f) {
        return r.string(r.format().field(f));
    }

    private record Expected(Map<List<HistKey>, long[]> rows, long hits, long dropped) {
    }

    /** The table computed plainly: filter, key function, value functions, the first {@code size} keys. */
    private static Expected expected(List<EventRecord> rs, String event, Predicate<EventRecord> filter,
                                     Function<EventRecord, List<HistKey>> key, List<Function<EventRecord, Long>> vals, int size) {
        Map<List<HistKey>, long[]> rows = new LinkedHashMap<>();
        long hits = 0;
        long dropped = 0;
        for (EventRecord r : rs) {
            if (!r.format().fullName().equals(event) || !filter.test(r)) {
                continue;
            }
            List<HistKey> k = key.apply(r);
            long[] s = rows.get(k);
            if (s == null) {
                if (rows.size() == size) {
                    dropped++;
                    continue;
                }
                s = new long[1 + vals.size()];
                rows.put(k, s);
            }
            hits++;
            s[0]++;
            for (int i = 0; i < vals.size(); i++) {
                s[i + 1] += vals.get(i).apply(r);
            }
        }
        return new Expected(rows, hits, dropped);
    }

    private static EventFormat format(List<EventRecord> rs, String event) {
        return rs.stream().filter(r -> r.format().fullName().equals(event)).findFirst().orElseThrow().format();
    }

    private static void check(Expected want, HistTable got) {
        Map<List<HistKey>, HistEntry> byKey = got.byKey();
        assertEquals(want.rows.size(), byKey.size(), "entries");
        assertEquals(want.rows.size(), got.entryCount());
        assertEquals(want.hits, got.hits(), "hits");
        assertEquals(want.dropped, got.dropped(), "dropped");
        for (var e : want.rows.entrySet()) {
            HistEntry row = byKey.get(e.getKey());
            assertTrue(row != null, "missing key " + e.getKey());
            assertEquals(e.getValue()[0], row.hitcount(), e.getKey().toString());
            for (int i = 0; i < row.values().size(); i++) {
                assertEquals(e.getValue()[i + 1], row.values().get(i), e.getKey() + " value " + i);
            }
        }
        assertTrue(HistFile.parse(HistFile.render(got)).get(0).sameCounts(got), "the rendered text parses back");
    }

    private static final HistLabels COMMS = new HistLabels() {
        @Override
        public String execname(int pid) {
            return "task-" + pid;
        }
    };

    @Test
    void log2OfBytesRequestedSortedByKey() {
        List<EventRecord> rs = FixtureRecords.load();
        HistSpec spec = HistSpec.parse("hist:keys=bytes_req.log2:vals=bytes_alloc:sort=bytes_req");
        HistTable t = HistAggregator.aggregate(spec, format(rs, "kmem:kmalloc"), rs, HistLabels.NONE);
        check(expected(rs, "kmem:kmalloc", r -> true, r -> List.of(HistKey.of(log2(num(r, "bytes_req")))),
                List.of(r -> num(r, "bytes_alloc")), 2048), t);
        assertTrue(t.entries().size() >= 5, t.entries().toString());
        for (int i = 1; i < t.entries().size(); i++) {
            assertTrue(Long.compareUnsigned(t.entries().get(i - 1).keys().get(0).number(), t.entries().get(i).keys().get(0).number()) < 0);
        }
    }

    @Test
    void execnameAndBucketsWithAFilterSortedDescendingByAValue() {
        List<EventRecord> rs = FixtureRecords.load();
        HistSpec spec = HistSpec.parse("hist:keys=common_pid.execname,bytes_alloc.buckets=64:vals=bytes_req,bytes_alloc"
                + ":sort=bytes_req.descending if bytes_req > 64");
        HistTable t = HistAggregator.aggregate(spec, format(rs, "kmem:kmalloc"), rs, COMMS);
        check(expected(rs, "kmem:kmalloc", r -> num(r, "bytes_req") > 64,
                r -> List.of(HistKey.of(r.pid()), HistKey.of(bucket(num(r, "bytes_alloc"), 64))),
                List.of(r -> num(r, "bytes_req"), r -> num(r, "bytes_alloc")), 2048), t);
        assertTrue(t.entries().size() > 3);
        for (int i = 1; i < t.entries().size(); i++) {
            assertTrue(Long.compareUnsigned(t.entries().get(i - 1).values().get(0), t.entries().get(i).values().get(0)) >= 0);
        }
        HistEntry first = t.entries().get(0);
        assertEquals("task-" + first.keys().get(0).number(), first.keys().get(0).label());
    }

    @Test
    void stringAndSignedKeysOfSchedSwitch() {
        List<EventRecord> rs = FixtureRecords.load();
        HistSpec spec = HistSpec.parse("hist:keys=prev_comm,next_pid:vals=prev_prio:sort=hitcount.descending,next_pid");
        HistTable t = HistAggregator.aggregate(spec, format(rs, "sched:sched_switch"), rs, HistLabels.NONE);
        check(expected(rs, "sched:sched_switch", r -> true,
                r -> List.of(HistKey.of(str(r, "prev_comm")), HistKey.of(num(r, "next_pid"))),
                List.of(r -> num(r, "prev_prio")), 2048), t);
        for (int i = 1; i < t.entries().size(); i++) {
            HistEntry a = t.entries().get(i - 1);
            HistEntry b = t.entries().get(i);
            assertTrue(a.hitcount() > b.hitcount() || a.hitcount() == b.hitcount()
                    && a.keys().get(1).number() <= b.keys().get(1).number(), a + " before " + b);
        }
    }

    @Test
    void aFullTableDropsNewKeys() {
        List<EventRecord> rs = FixtureRecords.load();
        HistSpec spec = HistSpec.parse("hist:keys=ptr.hex:size=128");
        HistTable t = HistAggregator.aggregate(spec, format(rs, "kmem:kmem_cache_alloc"), rs, HistLabels.NONE);
        Expected want = expected(rs, "kmem:kmem_cache_alloc", r -> true, r -> List.of(HistKey.of(num(r, "ptr"))), List.of(), 128);
        check(want, t);
        assertEquals(128, t.entries().size());
        assertTrue(t.dropped() > 0, "the fixture has more than 128 pointers");
    }

    @Test
    void cpuAndSoftirqVector() {
        List<EventRecord> rs = FixtureRecords.load();
        HistSpec spec = HistSpec.parse("hist:keys=common_cpu,vec:sort=common_cpu,vec");
        HistTable t = HistAggregator.aggregate(spec, format(rs, "irq:softirq_entry"), rs, HistLabels.NONE);
        check(expected(rs, "irq:softirq_entry", r -> true, r -> List.of(HistKey.of(r.cpu()), HistKey.of(num(r, "vec"))),
                List.of(), 2048), t);
    }

    @Test
    void log2AndBucketsAtTheEdges() {
        long[] samples = {0, 1, 2, 3, 4, 5, 7, 8, 9, 1023, 1024, 1025, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1, -1};
        for (long v : samples) {
            assertEquals(log2(v), HistAggregator.log2(v), Long.toUnsignedString(v));
            for (long n : new long[] {1, 3, 10, 64, 1000}) {
                assertEquals(bucket(v, n), HistAggregator.keyNumber(HistField.buckets("x", n), v), v + "/" + n);
            }
        }
    }

    @Test
    void fieldsThatCannotBeAggregatedAreRefusedClearly() {
        List<EventRecord> rs = FixtureRecords.load();
        EventFormat sw = format(rs, "sched:sched_switch");
        Map<String, String> cases = new HashMap<>();
        cases.put("hist:keys=nosuch", "no field 'nosuch' in sched:sched_switch");
        cases.put("hist:keys=stacktrace", "records carry none");
        cases.put("hist:keys=next_pid:vals=prev_comm", "values are sums of numbers");
        cases.put("hist:keys=prev_comm.hex", "is for numbers");
        cases.put("hist:keys=next_pid if nosuch == 1", "filter nosuch == 1");
        for (var c : cases.entrySet()) {
            HistSpecException e = assertThrows(HistSpecException.class, () -> new HistAggregator(HistSpec.parse(c.getKey()), sw),
                    c.getKey());
            assertTrue(e.getMessage().contains(c.getValue()), e.getMessage());
        }
        List<Boolean> added = new ArrayList<>();
        HistAggregator a = new HistAggregator(HistSpec.parse("hist:keys=next_pid"), sw);
        for (EventRecord r : rs.subList(0, 200)) {
            added.add(a.add(r));
        }
        assertEquals(rs.subList(0, 200).stream().filter(r -> r.format().equals(sw)).count(),
                added.stream().filter(b -> b).count(), "only the trigger's event is counted");
    }
}
