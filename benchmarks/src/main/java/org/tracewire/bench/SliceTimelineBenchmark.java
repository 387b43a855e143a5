package org.tracewire.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.tracewire.app.timeline.ColumnAccumulator;
import org.tracewire.app.timeline.SliceTimeline;
import org.tracewire.app.timeline.SliceTimelineBuilder;
import org.tracewire.app.timeline.TimelineModel;
import org.tracewire.store.CaptureStore;
import org.tracewire.store.StoreCache;

/**
 * The store timeline's redraw computation ({@link SliceTimeline#columns}: per pixel column the task
 * that ran most of it) for a 1,600-pixel plot with every CPU lane and 2 task lanes (the two busiest
 * tasks), at several zooms: the whole capture, 1/100, 1/10,000 and 1/1,000,000 of it. The target
 * (issue 34) is a redraw under 50 ms at any zoom.
 *
 * <p>{@code source=synthetic} (default): 3.2 M slices on 4 CPUs, 40 tasks and idle, 200–3,200 ns each
 * (a machine switching as under {@code stress-ng --switch}). {@code source=/path/FILE.pcapng}: every
 * slice of that capture, from its store (the user's store cache, as the app's:
 * {@code $XDG_CACHE_HOME/tracewire}; built on first use, then reused). Run:
 * {@code scripts/bench-jmh.sh -f 1 -wi 3 -i 5 SliceTimeline [-p source=FILE.pcapng]}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class SliceTimelineBenchmark {
    /** Fraction of the capture visible: 1 = all, 1e-6 = a millionth. */
    @Param({"1", "1e-2", "1e-4", "1e-6"})
    public double zoom;

    /** "synthetic", or a pcapng's path. */
    @Param({"synthetic"})
    public String source;

    private static final int WIDTH = 1600;
    /** Loaded once per fork and source (the zooms share it). */
    private static SliceTimeline loaded;
    private static String loadedSource;
    private SliceTimeline timeline;
    private List<TimelineModel.LaneKey> lanes;
    private long t0;
    private long t1;
    private final int[] pid = new int[WIDTH];
    private final int[] comm = new int[WIDTH];
    private final ColumnAccumulator acc = new ColumnAccumulator();

    /** Loads or builds the slices, picks the lanes and the visible window (a third into the capture). */
    @Setup
    public void setup() throws Exception {
        if (!source.equals(loadedSource)) {
            loaded = source.equals("synthetic") ? synthetic() : fromStore(Path.of(source));
            loadedSource = source;
        }
        timeline = loaded;
        if (timeline.size() < 3_000_000) {
            System.err.printf("note: %,d slices (fewer than 3 M)%n", timeline.size());
        }
        Map<Integer, Integer> runs = new HashMap<>();
        List<TimelineModel.LaneKey> l = new ArrayList<>();
        for (int c = 0; c < timeline.cpuCount(); c++) {
            l.add(TimelineModel.LaneKey.cpu(c));
            for (int i = 0; i < timeline.size(c); i++) {
                long[] s = timeline.slice(c, i);
                if (s[2] != 0) {
                    runs.merge((int) s[2], 1, Integer::sum);
                }
            }
        }
        runs.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(2)
                .forEach(e -> l.add(TimelineModel.LaneKey.task(e.getKey())));
        lanes = List.copyOf(l);
        long span = timeline.end() - timeline.start();
        long visible = Math.max(1000, (long) (span * zoom));
        t0 = timeline.start() + span / 3;
        t1 = t0 + visible;
        redraw(); // builds the task lanes once
    }

    static SliceTimeline synthetic() {
        int cpus = 4;
        int perCpu = 800_000;
        int[] counts = new int[cpus];
        Arrays.fill(counts, perCpu);
        Random r = new Random(42);
        long start = 5_000_000_000_000L;
        long[] t = new long[cpus];
        Arrays.fill(t, start);
        long end = start;
        for (int c = 0; c < cpus; c++) {
            for (int i = 0; i < perCpu; i++) {
                t[c] += 200 + r.nextInt(3000);
            }
            end = Math.max(end, t[c]);
        }
        SliceTimelineBuilder b = new SliceTimelineBuilder(counts, start, end);
        r = new Random(43);
        Arrays.fill(t, start);
        long frame = 1;
        for (int c = 0; c < cpus; c++) {
            for (int i = 0; i < perCpu; i++) {
                int task = r.nextInt(8) == 0 ? 0 : 1 + r.nextInt(40);
                b.add(c, t[c], task, task == 0 ? "swapper/" + c : "task" + task, 120, "S", frame++, false);
                t[c] += 200 + r.nextInt(3000);
            }
        }
        return b.build();
    }

    static SliceTimeline fromStore(Path pcapng) throws Exception {
        try (CaptureStore store = CaptureStore.open(List.of(pcapng), StoreCache.ofUser(System.getenv()), null, false, n -> { })) {
            long before = usedHeap();
            long t = System.nanoTime();
            SliceTimeline s = SliceTimeline.load(store.connection(), () -> false);
            double secs = (System.nanoTime() - t) / 1e9;
            System.err.printf("loaded %,d slices on %d CPUs in %.1f s; Java heap held: %.0f MiB%n", s.size(), s.cpuCount(), secs,
                    (usedHeap() - before) / 1048576.0);
            return s;
        }
    }

    private static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return r.totalMemory() - r.freeMemory();
    }

    /** One redraw's computation: the columns of every lane over 1,600 pixel columns. */
    @Benchmark
    public int redraw() {
        int drawn = 0;
        for (TimelineModel.LaneKey k : lanes) {
            timeline.columns(k, t0, t1, WIDTH, pid, comm, acc);
            drawn += pid[WIDTH / 2] + pid[WIDTH - 1];
        }
        return drawn;
    }
}
