package org.tracewire.app.main;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.tracewire.app.timeline.SliceTimeline;
import org.tracewire.app.timeline.SliceTimelineBuilder;

/**
 * GUI-free: where the live timeline's screenshot zooms ({@link ScreenshotScript#newest}) over the
 * store's slices: the start of the N-th newest slice of all CPUs and the task that began most of the
 * newest ones, on a small timeline worked out by hand and on random ones against a count over the
 * slices as they were added.
 */
class ScreenshotScriptTest {
    /** CPU 0: 100 pid 10, 200 idle, 300 pid 10, 400 pid 20; CPU 1: 150 pid 20, 250 pid 30, 350 pid 10; last event 500. */
    private static SliceTimeline small() {
        SliceTimelineBuilder b = new SliceTimelineBuilder(new int[] {4, 3}, 100, 500);
        long[][] cpu0 = {{100, 10}, {200, 0}, {300, 10}, {400, 20}};
        long[][] cpu1 = {{150, 20}, {250, 30}, {350, 10}};
        long frame = 1;
        for (long[] s : cpu0) {
            b.add(0, s[0], (int) s[1], "t" + s[1], 120, "S", frame++, false);
        }
        for (long[] s : cpu1) {
            b.add(1, s[0], (int) s[1], "t" + s[1], 120, "S", frame++, false);
        }
        return b.build();
    }

    @Test
    void newestSlicesOfAllCpusAndTheirBusiestTask() {
        SliceTimeline st = small();
        // newest first: 400 (20), 350 (10), 300 (10), 250 (30), 200 (idle), 150 (20), 100 (10)
        assertEquals(new ScreenshotScript.Zoom(300, 500, 10), ScreenshotScript.newest(st, 3, 4));
        assertEquals(new ScreenshotScript.Zoom(400, 500, 20), ScreenshotScript.newest(st, 1, 1));
        // a tie (20 and 10 once each) goes to the smaller pid
        assertEquals(new ScreenshotScript.Zoom(350, 500, 10), ScreenshotScript.newest(st, 2, 2));
        // more asked than held: from the first slice, every slice counted (10 three times)
        assertEquals(new ScreenshotScript.Zoom(100, 500, 10), ScreenshotScript.newest(st, 400, 3000));
    }

    @Test
    void onlyIdleGivesNoTaskLane() {
        SliceTimelineBuilder b = new SliceTimelineBuilder(new int[] {2}, 10, 90);
        b.add(0, 10, 0, "swapper/0", 120, "R", 1, false);
        b.add(0, 50, 0, "swapper/0", 120, "R", 2, false);
        assertEquals(new ScreenshotScript.Zoom(10, 90, -1), ScreenshotScript.newest(b.build(), 400, 3000));
    }

    @Test
    void randomTimelinesAgreeWithACountOverTheSlicesAdded() {
        Random r = new Random(34);
        for (int round = 0; round < 50; round++) {
            int cpus = 1 + r.nextInt(4);
            int[] per = new int[cpus];
            for (int c = 0; c < cpus; c++) {
                per[c] = 1 + r.nextInt(2000);
            }
            SliceTimelineBuilder b = new SliceTimelineBuilder(per, 0, 10_000_000);
            List<long[]> all = new ArrayList<>(); // {start, pid}; starts distinct so the order is unambiguous
            for (int c = 0; c < cpus; c++) {
                long t = c;
                for (int i = 0; i < per[c]; i++) {
                    t += cpus * (1 + r.nextInt(1000));
                    int pid = r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(12);
                    b.add(c, t, pid, "p" + pid, 120, "S", all.size() + 1, false);
                    all.add(new long[] {t, pid});
                }
            }
            SliceTimeline st = b.build();
            all.sort((x, y) -> Long.compare(y[0], x[0]));
            int shown = 1 + r.nextInt(600);
            int recent = 1 + r.nextInt(4000);
            Map<Long, Integer> count = new HashMap<>();
            for (int i = 0; i < Math.min(recent, all.size()); i++) {
                if (all.get(i)[1] != 0) {
                    count.merge(all.get(i)[1], 1, Integer::sum);
                }
            }
            long best = -1;
            for (Map.Entry<Long, Integer> e : count.entrySet()) {
                int n = e.getValue();
                int bestN = best < 0 ? 0 : count.get(best);
                if (n > bestN || (n == bestN && e.getKey() < best)) {
                    best = e.getKey();
                }
            }
            long from = all.get(Math.min(shown, all.size()) - 1)[0];
            assertEquals(new ScreenshotScript.Zoom(from, 10_000_000, (int) best), ScreenshotScript.newest(st, shown, recent),
                    "round " + round + ": shown " + shown + ", recent " + recent);
        }
    }
}
