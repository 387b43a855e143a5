package org.tracewire.bench;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.tracewire.analysis.LatencyTracker;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixtureRecords;

/**
 * Per-core throughput of latency pairing ({@link LatencyTracker}) over the page fixture's records
 * (every kind of event, about 34,000 records in time order, of which about a fifth are wakeups,
 * switches, syscalls and irqs the tracker looks at; about 3,250 pairs). One invocation feeds all records to a fresh
 * tracker; JMH's {@code records} line is the rate in records/s.
 * Run: {@code scripts/bench-jmh.sh LatencyPairing}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class LatencyPairingBenchmark {
    List<EventRecord> records;

    @Setup(Level.Trial)
    public void setup() {
        records = FixtureRecords.load();
        long pairs = LatencyTracker.pairAll(records).size();
        System.out.printf("%nfixture: %d records, %d pairs%n", records.size(), pairs);
    }

    /** Feeds every record to a new tracker, as the app does live; the pairs go to a black hole. */
    @Benchmark
    public void feed(Blackhole bh, Records counter) {
        LatencyTracker t = new LatencyTracker();
        for (int i = 0; i < records.size(); i++) {
            t.feed(i, records.get(i)).ifPresent(bh::consume);
        }
        bh.consume(t.stats());
        counter.records += records.size();
    }

    /** Counts records, so JMH reports records per second beside invocations. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Records {
        /** Records fed. */
        public long records;
    }
}
