package org.tracewire.bench;

import java.util.List;
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
import org.tracewire.app.timeline.LaneFrame;
import org.tracewire.app.timeline.TimelineModel;

/**
 * The timeline's redraw computation ({@link TimelineModel#frame}) on 1 M events over 4 CPUs (60%
 * sched_switch among 40 tasks, 40% other events), for a 1,600-pixel plot with the 4 CPU lanes and
 * 2 task lanes, at several zooms: the whole trace, 1/100, 1/10,000 and 1/1,000,000 of it (the last
 * about a microsecond). The target is under 50 ms per redraw at any zoom. Task lanes are built on
 * their first use (and after events were added); that build is measured separately
 * ({@code taskLaneBuild}). Run: {@code scripts/bench-jmh.sh -f 1 -wi 3 -i 5 TimelineModel}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class TimelineModelBenchmark {
    /** Fraction of the trace visible: 1 = all, 1e-6 = about a microsecond. */
    @Param({"1", "1e-2", "1e-4", "1e-6"})
    public double zoom;

    private TimelineModel model;
    private long t0;
    private long t1;
    private final List<TimelineModel.LaneKey> lanes = List.of(TimelineModel.LaneKey.cpu(0), TimelineModel.LaneKey.cpu(1),
            TimelineModel.LaneKey.cpu(2), TimelineModel.LaneKey.cpu(3), TimelineModel.LaneKey.task(7), TimelineModel.LaneKey.task(23));

    /** 1 M events about 1 µs apart (a second of a busy machine). */
    @Setup
    public void setup() {
        model = build();
        long span = model.end() - model.start();
        long visible = Math.max(1000, (long) (span * zoom));
        long mid = model.start() + span / 3;
        t0 = mid;
        t1 = mid + visible;
        model.frame(t0, t1, 1600, lanes);  // builds the task lanes once
    }

    static TimelineModel build() {
        TimelineModel m = new TimelineModel(2_000_000);  // room for taskLaneBuild's additions
        Random r = new Random(42);
        long t = 1_700_000_000_000_000_000L;
        for (int i = 0; i < 1_000_000; i++) {
            t += 500 + r.nextInt(1000);
            int cpu = r.nextInt(4);
            if (r.nextInt(10) < 6) {
                int next = r.nextInt(8) == 0 ? 0 : 1 + r.nextInt(40);
                m.add(t, cpu, 1 + r.nextInt(40), null, "sched:sched_switch", next, "task" + next);
            } else {
                m.add(t, cpu, 1 + r.nextInt(40), null, "irq:softirq_entry", -1, null);
            }
        }
        return m;
    }

    /** One redraw's model work: the frames of 6 lanes over 1,600 pixel columns. */
    @Benchmark
    public int redraw() {
        int items = 0;
        for (LaneFrame f : model.frame(t0, t1, 1600, lanes)) {
            items += f.items();
        }
        return items;
    }

    /** A task lane built from the 1 M events (once per task, and again after new events). */
    @Benchmark
    public int taskLaneBuild() {
        model.add(model.end() + 1, 0, 1, null, "irq:softirq_entry", -1, null);  // invalidates the task lane
        return model.frame(t0, t1, 1600, List.of(TimelineModel.LaneKey.task(7))).get(0).items();
    }
}
