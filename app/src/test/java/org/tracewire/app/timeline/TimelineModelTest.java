package org.tracewire.app.timeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.TestRows;
import org.tracewire.app.util.DirectTaskExecutor;

class TimelineModelTest {
    /** An event as the test knows it. */
    record Ev(long ts, int cpu, int pid, String name, int next) {
    }

    /**
     * Random switches and marks on 3 CPUs, at least {@code gap} ns apart: each CPU runs its own tasks
     * (100 + 10 × cpu + 0..3) and task 150 migrates between CPUs, never running on two at once (as a
     * kernel schedules it).
     */
    static List<Ev> events(long seed, int count, long gap) {
        Random r = new Random(seed);
        List<Ev> out = new ArrayList<>();
        int[] running = {0, 0, 0};
        long t = 1_000_000;
        for (int i = 0; i < count; i++) {
            t += gap + r.nextInt((int) gap);
            int cpu = r.nextInt(3);
            if (r.nextInt(3) == 0) {
                out.add(new Ev(t, cpu, running[cpu], "irq:softirq_entry", -1));
            } else {
                int k = r.nextInt(6);
                int next = k == 0 ? 0 : k == 5 ? 150 : 100 + 10 * cpu + k - 1;
                if (next == 150 && (running[(cpu + 1) % 3] == 150 || running[(cpu + 2) % 3] == 150)) {
                    next = 0;
                }
                out.add(new Ev(t, cpu, running[cpu], "sched:sched_switch", next));
                running[cpu] = next;
            }
        }
        return out;
    }

    static TimelineModel model(List<Ev> evs) {
        TimelineModel m = new TimelineModel(1 << 20);
        for (Ev e : evs) {
            m.add(e.ts, e.cpu, e.pid, "t" + e.pid, e.name, e.next, e.next >= 0 ? "t" + e.next : null);
        }
        return m;
    }

    /** Per pixel, computed naively: the non-idle tasks of the slices overlapping it on a CPU (or, for a task lane, the task). */
    static int[] naiveSlices(List<Ev> evs, TimelineModel.LaneKey lane, long t0, long t1, int width) {
        // slices on each CPU: [switch.ts, next switch on that CPU .ts or the last event's ts) running next
        long end = evs.get(evs.size() - 1).ts;
        List<long[]> slices = new ArrayList<>();
        for (int i = 0; i < evs.size(); i++) {
            Ev e = evs.get(i);
            if (e.next < 0) {
                continue;
            }
            long stop = end;
            for (int k = i + 1; k < evs.size(); k++) {
                if (evs.get(k).cpu == e.cpu && evs.get(k).next >= 0) {
                    stop = evs.get(k).ts;
                    break;
                }
            }
            if (lane.task() ? e.next == lane.id() : e.cpu == lane.id()) {
                slices.add(new long[] {e.ts, stop, e.next});
            }
        }
        int[] px = new int[width];
        double per = (double) (t1 - t0) / width;
        for (int x = 0; x < width; x++) {
            long a = t0 + (long) (x * per);
            long b = x == width - 1 ? t1 : Math.max(a + 1, t0 + (long) ((x + 1) * per));
            Set<Long> tasks = new HashSet<>();
            for (long[] s : slices) {
                if (s[0] < b && s[1] > a && s[2] != 0) {
                    tasks.add(s[2]);
                }
            }
            px[x] = tasks.isEmpty() ? -1 : tasks.size() == 1 ? tasks.iterator().next().intValue() : TimelineModel.SEVERAL;
        }
        return px;
    }

    static int[] pixels(LaneFrame f, int width) {
        int[] px = new int[width];
        java.util.Arrays.fill(px, -1);
        for (int k = 0; k < f.segments; k++) {
            for (int x = f.segX0[k]; x < f.segX1[k]; x++) {
                px[x] = f.segPid[k];
            }
        }
        return px;
    }

    @Test
    void slicesAndMarksPerPixelEqualANaiveComputation() {
        List<Ev> evs = events(7, 3000, 1000);
        TimelineModel m = model(evs);
        assertEquals(3, m.cpuCount());
        long t0 = evs.get(100).ts;
        long t1 = evs.get(400).ts;
        // about 1.5 µs per pixel: at most a few slices per pixel column
        int width = (int) ((t1 - t0) / 1500);
        List<TimelineModel.LaneKey> lanes = List.of(TimelineModel.LaneKey.cpu(0), TimelineModel.LaneKey.cpu(1),
                TimelineModel.LaneKey.cpu(2), TimelineModel.LaneKey.task(150), TimelineModel.LaneKey.task(112));
        List<LaneFrame> frames = m.frame(t0, t1, width, lanes);
        for (int li = 0; li < lanes.size(); li++) {
            assertArrayEquals(naiveSlices(evs, lanes.get(li), t0, t1, width), pixels(frames.get(li), width), "lane " + lanes.get(li));
            // marks: per column, the events that are not switches in the lane
            int[] expected = new int[width];
            double per = (double) (t1 - t0) / width;
            TimelineModel.LaneKey k = lanes.get(li);
            for (Ev e : evs) {
                boolean inLane = e.next < 0 && (k.task() ? e.pid == k.id() : e.cpu == k.id());
                if (inLane && e.ts >= t0 && e.ts < t1) {
                    int x = (int) ((e.ts - t0) / per);
                    while (x + 1 < width && t0 + (long) ((x + 1) * per) <= e.ts) {
                        x++;
                    }
                    while (x > 0 && t0 + (long) (x * per) > e.ts) {
                        x--;
                    }
                    expected[x]++;
                }
            }
            int[] got = new int[width];
            LaneFrame f = frames.get(li);
            for (int c = 0; c < f.markColumns; c++) {
                got[f.markX[c]] = f.markCount[c];
            }
            assertArrayEquals(expected, got, "marks of lane " + k);
        }
    }

    @Test
    void zoomedOutAtMostOneSliceItemAndOneMarkColumnPerPixel() {
        List<Ev> evs = events(11, 200_000, 100);
        TimelineModel m = model(evs);
        int width = 800;
        List<LaneFrame> frames = m.frame(m.start(), m.end() + 1, width,
                List.of(TimelineModel.LaneKey.cpu(0), TimelineModel.LaneKey.cpu(1), TimelineModel.LaneKey.task(150)));
        long marks = evs.stream().filter(e -> e.next < 0 && e.cpu == 0).count();
        for (LaneFrame f : frames) {
            assertTrue(f.segments <= width && f.markColumns <= width, f.segments + " / " + f.markColumns);
            for (int k = 1; k < f.segments; k++) {
                assertTrue(f.segX0[k] >= f.segX1[k - 1], "segments do not overlap");
            }
        }
        int sum = 0;
        for (int c = 0; c < frames.get(0).markColumns; c++) {
            sum += frames.get(0).markCount[c];
        }
        assertEquals(marks, sum, "every mark of CPU 0 is counted in some column");
    }

    @Test
    void hitFindsTheNearestEventAndTheSliceUnderThePointer() {
        List<Ev> evs = List.of(new Ev(1000, 0, 5, "sched:sched_switch", 7), new Ev(1500, 0, 7, "irq:softirq_entry", -1),
                new Ev(3000, 0, 7, "sched:sched_switch", 0), new Ev(4000, 0, 0, "sched:sched_switch", 9));
        TimelineModel m = model(evs);
        TimelineModel.LaneKey cpu0 = TimelineModel.LaneKey.cpu(0);
        // 100 px over [1000, 4000): 30 ns per pixel
        assertEquals(1, m.hit(cpu0, 1000, 4000, 100, 500 / 30.0, 2), "the softirq mark");
        assertEquals(0, m.hit(cpu0, 1000, 4000, 100, 1200 / 30.0, 2), "the switch that started pid 7's slice");
        assertArrayEquals(new long[] {1000, 3000, 7}, m.sliceAt(cpu0, 2000));
        assertEquals("t7", m.comm(7));
        assertEquals("idle", m.comm(0));
    }

    @Test
    void viewModelFollowsRowsAndSelectsInBothDirections() {
        CaptureViewModel capture = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
        TimelineViewModel vm = new TimelineViewModel();
        vm.connect(capture);
        List<EventRow> rows = List.of(TestRows.sw(1_000, 0, 1, "a", 2, "b"), TestRows.wakeup(2_000, 1, 2, "b", 3, "c"),
                TestRows.sw(3_000, 1, 0, "idle", 3, "c"), TestRows.sw(5_000, 0, 2, "b", 1, "a"));
        capture.accept(rows);
        capture.flush();
        assertEquals(4, vm.model().size());
        assertEquals(1_000, vm.visibleStartProperty().get());
        assertEquals(5_000, vm.visibleEndProperty().get());
        assertEquals(List.of(TimelineModel.LaneKey.cpu(0), TimelineModel.LaneKey.cpu(1)), vm.lanes());
        // click the wakeup mark on CPU 1 (lane 1) at t = 2000 of [1000, 5000] over 400 px
        assertEquals(1, vm.click(1, 100, 400));
        assertEquals(rows.get(1), capture.table().selectedProperty().get(), "the table row is selected");
        capture.table().selectedProperty().set(rows.get(3));
        assertEquals(3, vm.selectedProperty().get(), "the table's selection is selected here");
        vm.zoomTo(0.25, 0.5);
        assertEquals(2_000, vm.visibleStartProperty().get());
        assertEquals(3_000, vm.visibleEndProperty().get());
        vm.zoom(2, 0.5);
        assertEquals(1_500, vm.visibleStartProperty().get());
        assertEquals(3_500, vm.visibleEndProperty().get());
        vm.pan(0.5);
        assertEquals(2_500, vm.visibleStartProperty().get());
        vm.addTaskLane(3);
        assertEquals(TimelineModel.LaneKey.task(3), vm.lanes().get(2));
        assertEquals("c (3)", vm.label(vm.lanes().get(2)));
    }
}
