package org.tracewire.app.timeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.app.capture.TestRows;
import org.tracewire.format.EventFormat;
import org.tracewire.input.RecordInput;
import org.tracewire.record.EventRecord;
import org.tracewire.store.CaptureStore;
import org.tracewire.store.StoreCache;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * GUI-free: the store's slices loaded into {@link SliceTimeline} against an independent
 * computation from the capture's records (read with {@link RecordInput}, not through the store):
 * the slices of each CPU, and the level of detail of every column at many zooms, equal a brute-force
 * pass over all slices per column; a capture whose {@code sched_switch} is filtered or absent
 * gives its warning. Real captures: the checked-in trace.dat (trace-cmd, this machine's kernel) and
 * the ring-buffer page fixture written as a pcapng.
 */
class SliceTimelineTest {
    @TempDir
    Path dir;

    /** One slice of the brute force. */
    record S(int cpu, long start, long end, int pid, String comm, boolean unchained) {
    }

    /** The switches of a capture, per CPU in time order (file order for ties), from its records. */
    static List<List<long[]>> switches(Path file, List<String> comms, long[] lastTime) throws Exception {
        List<List<long[]>> out = new ArrayList<>();
        long last = Long.MIN_VALUE;
        try (RecordInput in = RecordInput.open(file, null)) {
            long seq = 0;
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                EventRecord r = it.next().record();
                last = Math.max(last, r.timestampNs());
                EventFormat f = r.format();
                if (!f.name().equals("sched_switch")) {
                    continue;
                }
                while (out.size() <= r.cpu()) {
                    out.add(new ArrayList<>());
                }
                comms.add(r.string(f.field("next_comm")));
                out.get(r.cpu()).add(new long[] {r.timestampNs(), seq++, r.integer(f.field("next_pid")),
                    r.integer(f.field("prev_pid")), comms.size() - 1});
            }
        }
        for (List<long[]> c : out) {
            c.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        }
        lastTime[0] = last;
        return out;
    }

    static List<List<S>> slices(List<List<long[]>> sw, List<String> comms, long last) {
        List<List<S>> out = new ArrayList<>();
        for (int c = 0; c < sw.size(); c++) {
            List<S> lane = new ArrayList<>();
            List<long[]> l = sw.get(c);
            for (int i = 0; i < l.size(); i++) {
                long[] s = l.get(i);
                boolean next = i + 1 < l.size();
                lane.add(new S(c, s[0], next ? l.get(i + 1)[0] : Math.max(last, s[0]), (int) s[2], comms.get((int) s[4]),
                        next && l.get(i + 1)[3] != s[2]));
            }
            out.add(lane);
        }
        return out;
    }

    /** A task's slices on every CPU by (start, cpu), each cut at the next one's start. */
    static List<S> taskSlices(List<List<S>> cpus, int pid) {
        List<S> all = new ArrayList<>();
        for (List<S> l : cpus) {
            for (S s : l) {
                if (s.pid() == pid) {
                    all.add(s);
                }
            }
        }
        all.sort((a, b) -> a.start() != b.start() ? Long.compare(a.start(), b.start()) : Integer.compare(a.cpu(), b.cpu()));
        List<S> out = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            S s = all.get(i);
            long end = i + 1 < all.size() ? Math.min(s.end(), all.get(i + 1).start()) : s.end();
            out.add(new S(s.cpu(), s.start(), end, s.pid(), s.comm(), s.unchained()));
        }
        return out;
    }

    /** The rule, one column at a time over every slice of the lane (no search, no carried state). */
    static void bruteForce(List<S> lane, long t0, long t1, int width, int[] pid, String[] comm) {
        for (int x = 0; x < width; x++) {
            long a = SliceTimeline.columnStart(t0, t1, width, x);
            long b = x == width - 1 ? t1 : SliceTimeline.columnStart(t0, t1, width, x + 1);
            java.util.LinkedHashMap<Integer, long[]> time = new java.util.LinkedHashMap<>();
            java.util.Map<Integer, String> first = new java.util.HashMap<>();
            long busy = 0;
            for (S s : lane) {
                long o = Math.min(s.end(), b) - Math.max(s.start(), a);
                if (o <= 0 || (!s.unchained() && s.pid() == 0)) {
                    continue;
                }
                int k = s.unchained() ? SliceTimeline.UNKNOWN : s.pid();
                time.computeIfAbsent(k, q -> new long[1])[0] += o;
                first.putIfAbsent(k, s.unchained() ? null : s.comm());
                busy += o;
            }
            pid[x] = SliceTimeline.NONE;
            comm[x] = null;
            int best = 0;
            long bestT = -1;
            for (var e : time.entrySet()) {
                if (e.getValue()[0] > bestT || e.getValue()[0] == bestT && e.getKey() < best) {
                    best = e.getKey();
                    bestT = e.getValue()[0];
                }
            }
            if (bestT >= 0) {
                if (bestT * 2 >= busy) {
                    pid[x] = best;
                    comm[x] = first.get(best);
                } else {
                    pid[x] = SliceTimeline.MANY;
                }
            }
        }
    }

    private SliceTimeline load(Path file) throws Exception {
        try (CaptureStore store = CaptureStore.open(List.of(file), new StoreCache(dir.resolve("cache"), 1L << 30), null, false,
                n -> { })) {
            return SliceTimeline.load(store.connection(), () -> false);
        }
    }

    private void check(Path file, int minSlices) throws Exception {
        List<String> comms = new ArrayList<>();
        long[] last = new long[1];
        List<List<S>> expected = slices(switches(file, comms, last), comms, last[0]);
        SliceTimeline t = load(file);
        assertTrue(t.warning() == null || !t.warning().contains("filtered"), "an unfiltered capture: " + t.warning());
        assertEquals(expected.size(), t.cpuCount());
        long total = 0;
        for (int c = 0; c < expected.size(); c++) {
            List<S> l = expected.get(c);
            assertEquals(l.size(), t.size(c), "slices of CPU " + c);
            for (int i = 0; i < l.size(); i++) {
                long[] got = t.slice(c, i);
                S s = l.get(i);
                assertArrayEquals(new long[] {s.start(), s.end(), s.pid(), s.unchained() ? 1 : 0},
                        new long[] {got[0], got[1], got[2], got[4]}, "CPU " + c + " slice " + i);
                assertEquals(s.comm(), t.string((int) got[3]));
            }
            total += l.size();
        }
        assertEquals(total, t.size());
        assertTrue(total >= minSlices, "a capture of " + total + " slices");
        long t0 = t.start();
        long t1 = t.end();
        assertEquals(last[0], t1, "the capture's last event (trace clock)");
        Random rnd = new Random(34);
        List<long[]> windows = new ArrayList<>(List.of(new long[] {t0, t1 + 1}, new long[] {t0 - (t1 - t0) / 3, t1 + (t1 - t0) / 2}));
        for (int k = 0; k < 30; k++) {
            long span = Math.max(2, (long) ((t1 - t0) * Math.pow(10, -rnd.nextDouble() * 5)));
            long a = t0 + (long) (rnd.nextDouble() * (t1 - t0));
            windows.add(new long[] {a - span / 2, a + span / 2});
        }
        int busiest = busiestTask(expected);
        ColumnAccumulator acc = new ColumnAccumulator();
        int compared = 0;
        int many = 0;
        for (long[] w : windows) {
            for (int width : new int[] {1, 7, 333, 1600}) {
                int[] pid = new int[width];
                int[] commId = new int[width];
                int[] bp = new int[width];
                String[] bc = new String[width];
                for (int lane = 0; lane <= expected.size(); lane++) {
                    TimelineModel.LaneKey key = lane < expected.size() ? TimelineModel.LaneKey.cpu(lane)
                            : TimelineModel.LaneKey.task(busiest);
                    List<S> slices = lane < expected.size() ? expected.get(lane) : taskSlices(expected, busiest);
                    t.columns(key, w[0], w[1], width, pid, commId, acc);
                    bruteForce(slices, w[0], w[1], width, bp, bc);
                    String where = key + " [" + w[0] + ", " + w[1] + ") width " + width;
                    assertArrayEquals(bp, pid, where);
                    for (int x = 0; x < width; x++) {
                        if (bp[x] >= 0) {
                            assertEquals(bc[x], t.string(commId[x]), where + " column " + x);
                        }
                        many += bp[x] == SliceTimeline.MANY ? 1 : 0;
                    }
                    compared += width;
                }
            }
        }
        assertTrue(many > 0, "some columns hold many tasks");
        assertTrue(compared > 100_000, "columns compared: " + compared);
    }

    private static int busiestTask(List<List<S>> cpus) {
        java.util.Map<Integer, Integer> n = new java.util.HashMap<>();
        for (List<S> l : cpus) {
            for (S s : l) {
                if (s.pid() != 0) {
                    n.merge(s.pid(), 1, Integer::sum);
                }
            }
        }
        return n.entrySet().stream().max(java.util.Map.Entry.comparingByValue()).orElseThrow().getKey();
    }

    @Test
    void traceDatColumnsEqualBruteForce() throws Exception {
        check(TestRows.schedDat(dir), 300);
    }

    @Test
    void pageFixtureColumnsEqualBruteForce() throws Exception {
        List<EventRecord> recs = FixtureRecords.load();
        check(FixturePcapng.write(dir.resolve("fixture.pcapng"), recs), 100);
    }

    @Test
    void filteredSwitchIsWarnedAndUnknown() throws Exception {
        List<EventRecord> all = FixtureRecords.load();
        List<EventRecord> kept = new ArrayList<>();
        int pid = -1;
        for (EventRecord r : all) {
            if (r.format().name().equals("sched_switch")) {
                int next = (int) r.integer(r.format().field("next_pid"));
                if (pid < 0 && next != 0) {
                    pid = next;
                }
                if (next != pid) {
                    continue; // as a kernel filter "next_pid == PID" would leave them
                }
            }
            kept.add(r);
        }
        Path file = FixturePcapng.write(dir.resolve("filtered.pcapng"), kept);
        SliceTimeline t = load(file);
        assertNotNull(t.warning());
        assertTrue(t.warning().startsWith("sched_switch looks filtered"), t.warning());
        assertTrue(t.unchained() > 0);
        // every slice of the task but the last of each CPU ends at a switch that does not switch it out
        int lanes = 0;
        for (int c = 0; c < t.cpuCount(); c++) {
            lanes += t.size(c) > 0 ? 1 : 0;
        }
        assertEquals(t.size() - lanes, t.unchained(), "all but the CPUs' last slices are unknown");
        int[] p = new int[200];
        t.columns(TimelineModel.LaneKey.cpu(0), t.start(), t.end(), 200, p, new int[200], new ColumnAccumulator());
        assertTrue(Arrays.stream(p).anyMatch(v -> v == SliceTimeline.UNKNOWN), Arrays.toString(p));
    }

    @Test
    void absentSwitchIsWarned() throws Exception {
        List<EventRecord> kept = FixtureRecords.load().stream().filter(r -> !r.format().name().equals("sched_switch")).toList();
        assertTrue(kept.size() > 100);
        SliceTimeline t = load(FixturePcapng.write(dir.resolve("noswitch.pcapng"), kept));
        assertEquals(0, t.size());
        assertEquals(0, t.cpuCount());
        assertNotNull(t.warning());
        assertTrue(t.warning().startsWith("no sched:sched_switch in this capture"), t.warning());
    }

    @Test
    void traceTimeAndMarkers() {
        assertEquals("1234.567890", TimelineText.traceTime(1_234_567_890_123L));
        assertEquals("0.000001", TimelineText.traceTime(1_000L));
        assertEquals("A: 10.000000 s   B: 10.000250 s   Δ(B−A): 250.000 µs",
                TimelineText.markerText(10_000_000_000L, 10_000_250_000L));
        assertEquals("A: 2.500000 s   B: 1.000000 s   Δ(B−A): -1.500000 s", TimelineText.markerText(2_500_000_000L, 1_000_000_000L));
    }
}
