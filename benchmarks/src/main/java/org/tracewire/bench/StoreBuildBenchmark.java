package org.tracewire.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.tracewire.store.CaptureStore;

/**
 * Building the capture store of a pcapng, once the build's code is compiled: one operation = one
 * whole build ({@link CaptureStore#build}, the path of {@code tracewire sql}: one reading of the
 * file, DuckDB with one thread, a new store file written and moved into place), and the secondary
 * result {@code events} = events stored per second. This is the per-core rate of the build's code
 * in steady state (issue 33: ≥ 1 M events/s on one core); {@code scripts/bench-store.sh} measures
 * the first build of a fresh {@code sql} JVM instead (start, JIT warm-up and the query included).
 * The secondary result {@code eventsPerCpuSecond} divides the events by the process's CPU time
 * during the build (every thread: the reader, the inserter, JIT and GC), so another process on the
 * same CPU does not lower it: the last build of each iteration, on that iteration's line (JMH's
 * summary line sums these counters over the iterations).
 * Run pinned to one CPU so that the JIT and GC threads count against the same core:
 * {@code taskset -c 1 scripts/bench-jmh.sh -f 1 -wi 3 -i 5 -w 1 -r 1 StoreBuild -p source=FILE.pcapng}
 * (the JVM's options are JMH's; {@code -jvmArgsAppend} gives others).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class StoreBuildBenchmark {
    /** A pcapng of tracewire frames. */
    @Param({""})
    public String source;

    private Path dir;

    /** Events stored, reported by JMH per second of the measurement (a secondary result). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Counts {
        /** Events stored in this iteration. */
        public long events;

        /** Starts each iteration's count at zero. */
        @Setup(Level.Iteration)
        public void reset() {
            events = 0;
        }
    }

    /** Events per CPU-second of this process during the iteration's last build (a secondary result). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class PerCpu {
        /** Events stored per CPU-second of the process. */
        public double eventsPerCpuSecond;
    }

    private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** Checks the source and makes the directory the stores are written into. */
    @Setup(Level.Trial)
    public void setup() throws IOException {
        if (source.isEmpty() || !Files.isRegularFile(Path.of(source))) {
            throw new IllegalArgumentException("give -p source=FILE.pcapng (a file): " + source);
        }
        dir = Files.createTempDirectory("tracewire-store-build");
    }

    /** Removes the stores. */
    @TearDown(Level.Trial)
    public void close() throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** One whole build of the source's store into a new file (the previous one removed first). */
    @Benchmark
    public long build(Counts counts, PerCpu perCpu) throws Exception {
        Path store = dir.resolve("store.duckdb");
        Files.deleteIfExists(store);
        Files.deleteIfExists(dir.resolve("store.duckdb.wal"));
        long cpu = OS.getProcessCpuTime();
        long n = CaptureStore.build(Path.of(source), store).events();
        perCpu.eventsPerCpuSecond = n * 1e9 / Math.max(1, OS.getProcessCpuTime() - cpu);
        counts.events += n;
        return n;
    }
}
