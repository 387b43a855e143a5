package org.tracewire.app.timeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The timeline's data and its level of detail, GUI-free (no JavaFX): events in columns (time, CPU,
 * pid, event), one lane per CPU with the tasks that ran there as slices (from each
 * {@code sched_switch} to the next on that CPU, the task being {@code next_pid}; the idle task,
 * pid 0, is not drawn) and the other events as marks, and per-task lanes on demand (the task's
 * slices on every CPU, its events as marks).
 *
 * <p>{@link #frame} computes what to draw for a visible range and a width in pixels the way
 * KernelShark does: per pixel column at most one item per lane (the slice that covers it, or a
 * "several tasks" item when more than one falls in it; the number of marks in it), found by binary
 * search, so the cost grows with the width and the lanes, not with the events in view. Events are
 * added in time order (a capture delivers them so); at most {@code capacity} are kept: past it the
 * oldest half is dropped. Not thread-safe: the UI thread adds and draws.
 */
public final class TimelineModel {
    /** A slice item's task when more than one task falls in the pixel column. */
    public static final int SEVERAL = -2;

    private final int capacity;
    private long[] ts = new long[1024];
    private int[] cpu = new int[1024];
    private int[] pid = new int[1024];
    private int[] event = new int[1024];
    private int[] next = new int[1024];
    private int n;
    private long dropped;
    private final List<String> eventNames = new ArrayList<>();
    private final Map<String, Integer> eventIds = new HashMap<>();
    private final Map<Integer, String> comms = new HashMap<>();
    private Lane[] cpus = new Lane[0];
    private final Map<Integer, Lane> tasks = new HashMap<>();
    private final Map<Integer, Integer> taskBuiltAt = new HashMap<>();
    private long version;

    /** A lane key: a CPU or a task. @param task true for a task lane @param id the CPU or pid */
    public record LaneKey(boolean task, int id) {
        /** @return the CPU lane */
        public static LaneKey cpu(int cpu) {
            return new LaneKey(false, cpu);
        }

        /** @return the task lane */
        public static LaneKey task(int pid) {
            return new LaneKey(true, pid);
        }
    }

    /** One lane's indexes: slices (start, task) and marks (time, event index), each sorted by time. */
    static final class Lane {
        long[] sliceStart = new long[64];
        long[] sliceEnd = new long[64];
        int[] slicePid = new int[64];
        int[] sliceSeq = new int[64];
        int slices;
        long[] markTs = new long[64];
        int[] markSeq = new int[64];
        int marks;
        long end = Long.MIN_VALUE;

        void slice(long start, int task, int seq) {
            if (slices > 0 && sliceEnd[slices - 1] == Long.MAX_VALUE) {
                sliceEnd[slices - 1] = start;
            }
            if (slices == sliceStart.length) {
                int c = slices * 2;
                sliceStart = Arrays.copyOf(sliceStart, c);
                sliceEnd = Arrays.copyOf(sliceEnd, c);
                slicePid = Arrays.copyOf(slicePid, c);
                sliceSeq = Arrays.copyOf(sliceSeq, c);
            }
            sliceStart[slices] = start;
            sliceEnd[slices] = Long.MAX_VALUE;
            slicePid[slices] = task;
            sliceSeq[slices] = seq;
            slices++;
        }

        void closedSlice(long start, long stop, int task, int seq) {
            slice(start, task, seq);
            sliceEnd[slices - 1] = stop;
        }

        void mark(long t, int seq) {
            if (marks == markTs.length) {
                markTs = Arrays.copyOf(markTs, marks * 2);
                markSeq = Arrays.copyOf(markSeq, marks * 2);
            }
            markTs[marks] = t;
            markSeq[marks] = seq;
            marks++;
        }

        long sliceEnd(int i, long dataEnd) {
            return sliceEnd[i] == Long.MAX_VALUE ? Math.max(dataEnd, sliceStart[i]) : sliceEnd[i];
        }
    }

    /** @param capacity most events kept */
    public TimelineModel(int capacity) {
        if (capacity < 2) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * Adds an event.
     *
     * @param t        time stamp (ns)
     * @param c        CPU
     * @param p        the task that was running ({@code common_pid})
     * @param comm     its name, or null
     * @param name     "system:event"
     * @param nextPid  for {@code sched_switch}: {@code next_pid}, else -1
     * @param nextComm for {@code sched_switch}: {@code next_comm}, else null
     */
    public void add(long t, int c, int p, String comm, String name, int nextPid, String nextComm) {
        if (n == capacity) {
            dropOldestHalf();
        }
        if (n == ts.length) {
            int cap = Math.min(capacity, n * 2);
            ts = Arrays.copyOf(ts, cap);
            cpu = Arrays.copyOf(cpu, cap);
            pid = Arrays.copyOf(pid, cap);
            event = Arrays.copyOf(event, cap);
            next = Arrays.copyOf(next, cap);
        }
        if (n > 0 && t < ts[n - 1]) {
            t = ts[n - 1];  // keep the columns sorted: a late event is drawn at the latest time seen
        }
        Integer id = eventIds.get(name);
        if (id == null) {
            id = eventNames.size();
            eventNames.add(name);
            eventIds.put(name, id);
        }
        ts[n] = t;
        cpu[n] = c;
        pid[n] = p;
        event[n] = id;
        next[n] = nextPid;
        if (comm != null) {
            comms.put(p, comm);
        }
        if (nextComm != null && nextPid >= 0) {
            comms.put(nextPid, nextComm);
        }
        index(n);
        n++;
        version++;
    }

    private void index(int i) {
        int c = Math.max(0, cpu[i]);
        if (c >= cpus.length) {
            int old = cpus.length;
            cpus = Arrays.copyOf(cpus, c + 1);
            for (int k = old; k <= c; k++) {
                cpus[k] = new Lane();
            }
        }
        Lane l = cpus[c];
        if (next[i] >= 0) {
            l.slice(ts[i], next[i], i);
        } else {
            l.mark(ts[i], i);
        }
        l.end = ts[i];
    }

    private void dropOldestHalf() {
        int keep = n / 2;
        int from = n - keep;
        System.arraycopy(ts, from, ts, 0, keep);
        System.arraycopy(cpu, from, cpu, 0, keep);
        System.arraycopy(pid, from, pid, 0, keep);
        System.arraycopy(event, from, event, 0, keep);
        System.arraycopy(next, from, next, 0, keep);
        dropped += from;
        n = keep;
        cpus = new Lane[0];
        tasks.clear();
        taskBuiltAt.clear();
        for (int i = 0; i < n; i++) {
            index(i);
        }
    }

    /** Removes everything. */
    public void clear() {
        n = 0;
        dropped = 0;
        cpus = new Lane[0];
        tasks.clear();
        taskBuiltAt.clear();
        comms.clear();
        version++;
    }

    /** Events held. */
    public int size() {
        return n;
    }

    /** Events dropped to stay within the capacity. */
    public long dropped() {
        return dropped;
    }

    /** Changes with every addition (to know when to redraw). */
    public long version() {
        return version;
    }

    /** Time of the first event held (0 when empty). */
    public long start() {
        return n == 0 ? 0 : ts[0];
    }

    /** Time of the last event held (0 when empty). */
    public long end() {
        return n == 0 ? 0 : ts[n - 1];
    }

    /** CPUs seen (lanes 0..N−1). */
    public int cpuCount() {
        return cpus.length;
    }

    /** @return the task's last known name, or "pid N" */
    public String comm(int p) {
        String c = comms.get(p);
        return p == 0 ? "idle" : c == null ? "pid " + p : c;
    }

    /** Event i's time. */
    public long ts(int i) {
        return ts[i];
    }

    /** Event i's CPU. */
    public int cpu(int i) {
        return cpu[i];
    }

    /** Event i's task. */
    public int pid(int i) {
        return pid[i];
    }

    /** Event i's "system:event". */
    public String event(int i) {
        return eventNames.get(event[i]);
    }

    /** Event i's {@code next_pid} for a sched_switch, else -1. */
    public int nextPid(int i) {
        return next[i];
    }

    /** The index of the first event at or after {@code t} (binary search), in [0, size]. */
    public int firstAtOrAfter(long t) {
        return lowerBound(ts, n, t);
    }

    private Lane lane(LaneKey k) {
        if (!k.task()) {
            return k.id() >= 0 && k.id() < cpus.length ? cpus[k.id()] : new Lane();
        }
        Integer built = taskBuiltAt.get(k.id());
        Lane l = tasks.get(k.id());
        if (l == null || built == null || built != n) {
            l = buildTask(k.id());
            tasks.put(k.id(), l);
            taskBuiltAt.put(k.id(), n);
        }
        return l;
    }

    /** A task's lane: its slices on every CPU in time order, and its own events as marks. O(events). */
    private Lane buildTask(int task) {
        Lane l = new Lane();
        long[] running = new long[cpus.length];
        int[] runSeq = new int[cpus.length];
        Arrays.fill(running, Long.MIN_VALUE);
        for (int i = 0; i < n; i++) {
            int c = Math.max(0, cpu[i]);
            if (next[i] >= 0) {
                if (running[c] != Long.MIN_VALUE && next[i] != task) {
                    l.closedSlice(running[c], ts[i], task, runSeq[c]);
                    running[c] = Long.MIN_VALUE;
                }
                if (next[i] == task && running[c] == Long.MIN_VALUE) {
                    running[c] = ts[i];
                    runSeq[c] = i;
                }
            }
            if (pid[i] == task && next[i] < 0) {
                l.mark(ts[i], i);
            }
        }
        for (int c = 0; c < running.length; c++) {
            if (running[c] != Long.MIN_VALUE) {
                l.slice(running[c], task, runSeq[c]);
            }
        }
        // slices of several CPUs may interleave: sort them by start
        Integer[] order = new Integer[l.slices];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Lane s = l;
        Arrays.sort(order, (a, b) -> Long.compare(s.sliceStart[a], s.sliceStart[b]));
        Lane sorted = new Lane();
        for (int i : order) {
            sorted.closedSlice(l.sliceStart[i], l.sliceEnd[i], l.slicePid[i], l.sliceSeq[i]);
        }
        sorted.markTs = l.markTs;
        sorted.markSeq = l.markSeq;
        sorted.marks = l.marks;
        sorted.end = end();
        return sorted;
    }

    /**
     * What to draw for {@code [t0, t1)} over {@code width} pixel columns.
     *
     * @return one frame per lane, in the order given
     */
    public List<LaneFrame> frame(long t0, long t1, int width, List<LaneKey> lanes) {
        List<LaneFrame> out = new ArrayList<>(lanes.size());
        for (LaneKey k : lanes) {
            out.add(frame(lane(k), t0, t1, width));
        }
        return out;
    }

    private LaneFrame frame(Lane l, long t0, long t1, int width) {
        LaneFrame f = new LaneFrame();
        if (width <= 0 || t1 <= t0) {
            return f;
        }
        slices(l, t0, t1, width, f);
        marks(l, t0, t1, width, f);
        return f;
    }

    /**
     * A lane's slices per pixel column: the task of the slices reaching into the column (walking
     * back over at most a few), {@link #SEVERAL} when they are of several tasks.
     */
    private void slices(Lane l, long t0, long t1, int width, LaneFrame f) {
        double per = (double) (t1 - t0) / width;
        long dataEnd = end();
        // slices: sorted by start; for task lanes they do not overlap, for CPU lanes they are contiguous
        for (int x = 0; x < width; x++) {
            long a = t0 + (long) (x * per);
            long b = x == width - 1 ? t1 : Math.max(a + 1, t0 + (long) ((x + 1) * per));
            int j = lowerBound(l.sliceStart, l.slices, b) - 1;   // last slice starting before b
            if (j < 0) {
                continue;
            }
            int i = j;
            // walk back over the slices that also reach into [a, b) (at most a few: they are this pixel's)
            int task = -1;
            int seen = 0;
            while (i >= 0 && l.sliceEnd(i, dataEnd) > a) {
                if (l.slicePid[i] != 0) {
                    if (task == -1 || task == l.slicePid[i]) {
                        task = l.slicePid[i];
                    } else {
                        task = SEVERAL;
                    }
                }
                if (++seen > 3) {
                    break;  // a crowded pixel: what was seen decides (one task, or several)
                }
                if (l.sliceStart[i] <= a) {
                    break;
                }
                i--;
            }
            if (task != -1) {
                f.seg(x, x + 1, task);
            }
        }
    }

    /** A lane's event marks: per pixel column holding any, how many (columns without marks skipped by search). */
    private void marks(Lane l, long t0, long t1, int width, LaneFrame f) {
        double per = (double) (t1 - t0) / width;
        int m = lowerBound(l.markTs, l.marks, t0);
        for (int x = 0; x < width && m < l.marks; x++) {
            long b = x == width - 1 ? t1 : Math.max(t0 + (long) (x * per) + 1, t0 + (long) ((x + 1) * per));
            if (l.markTs[m] >= b) {
                // jump to the column of the next mark
                long d = l.markTs[m] - t0;
                int nx = (int) Math.min(width - 1L, (long) (d / per));
                if (nx > x + 1) {
                    x = nx - 2;  // the loop's x++ lands one column early; rounding is settled there
                }
                continue;
            }
            int e = lowerBound(l.markTs, l.marks, b);
            f.mark(x, e - m);
            m = e;
        }
    }

    /**
     * The event nearest to pixel column {@code x} in a lane, within {@code slop} pixels: a mark, or
     * the sched_switch that started the slice under {@code x}.
     *
     * @return the event index, or -1
     */
    public int hit(LaneKey key, long t0, long t1, int width, double x, int slop) {
        Lane l = lane(key);
        if (width <= 0 || t1 <= t0) {
            return -1;
        }
        double per = (double) (t1 - t0) / width;
        long t = t0 + (long) (x * per);
        long tol = (long) Math.max(1, slop * per);
        int m = lowerBound(l.markTs, l.marks, t);
        int best = -1;
        long bestD = Long.MAX_VALUE;
        for (int k = Math.max(0, m - 1); k <= Math.min(l.marks - 1, m); k++) {
            long d = Math.abs(l.markTs[k] - t);
            if (d <= tol && d < bestD) {
                bestD = d;
                best = l.markSeq[k];
            }
        }
        if (best >= 0) {
            return best;
        }
        int s = lowerBound(l.sliceStart, l.slices, t + 1) - 1;
        if (s >= 0 && l.sliceEnd(s, end()) >= t) {
            return l.sliceSeq[s];
        }
        return -1;
    }

    /**
     * The slice under time {@code t} in a lane.
     *
     * @return {start, end, pid} or null
     */
    public long[] sliceAt(LaneKey key, long t) {
        Lane l = lane(key);
        int s = lowerBound(l.sliceStart, l.slices, t + 1) - 1;
        if (s < 0 || l.sliceEnd(s, end()) < t) {
            return null;
        }
        return new long[] {l.sliceStart[s], l.sliceEnd(s, end()), l.slicePid[s]};
    }

    private static int lowerBound(long[] a, int len, long key) {
        int lo = 0;
        int hi = len;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
