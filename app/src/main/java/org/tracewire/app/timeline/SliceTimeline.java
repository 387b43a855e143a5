package org.tracewire.app.timeline;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Every scheduling slice of an opened capture, from its store's {@code sched_slice} view
 * (docs/store.md), in compact per-CPU primitive arrays (KernelShark's way): per CPU the slices'
 * start times (ns, trace clock: the kernel's ns since boot, as its text prints them), tasks, task
 * names (ids into one string table), priorities, end states (ids) and frame numbers. A CPU's slices
 * tile its span, so a slice ends where the next one on its CPU starts; the last one ends at the
 * capture's last event. About 22 bytes per slice. GUI-free, immutable once loaded (any thread may
 * read it); task lanes are built on demand by the caller's thread.
 *
 * <p>A slice is <em>unchained</em> when the {@code sched_switch} that ends it does not switch out
 * the task it says ran ({@code prev_pid} ≠ the slice's pid): a switch in between is missing (the
 * event was filtered, or lost), so when the task stopped is unknown. Such slices count as
 * {@link #UNKNOWN} in the level of detail, and {@link #warning()} says how many there are.
 *
 * <p>Level of detail ({@link #columns}): per pixel column the task that ran most of it (its run
 * time inside the column, clipped), when it holds at least half of the column's busy time (time
 * not idle, pid 0); else {@link #MANY}. Ties go to the smaller pid. Cost: the slices in view plus
 * a binary search, per lane; zoomed out, groups of slices wholly inside a column are added by
 * their sums ({@link SliceGroups}), with the same result.
 */
public final class SliceTimeline {
    /** A column's task when no task ran at least half of its busy time. */
    public static final int MANY = -2;
    /** A column's task when its time is mostly in unchained slices (who ran is unknown). */
    public static final int UNKNOWN = -3;
    /** A column where only idle ran, or nothing. */
    public static final int NONE = -1;

    /** One CPU's (or one task's) slices, sorted by start. */
    static final class Lane {
        final long[] start;
        /** Explicit ends (task lanes), or null: a slice ends where the next starts (CPU lanes). */
        final long[] end;
        final int[] pid;
        final int[] comm;
        final int[] frame;
        final short[] prio;
        final byte[] state;
        /** Bit set: slice i is unchained. */
        final long[] unchained;
        final int[] cpu;
        final int n;
        final long last;
        /** The slices summed by groups, for zoomed-out columns. */
        final SliceGroups groups;

        Lane(long[] start, long[] end, int[] pid, int[] comm, int[] frame, short[] prio, byte[] state, long[] unchained,
             int[] cpu, int n, long last) {
            this.start = start;
            this.end = end;
            this.pid = pid;
            this.comm = comm;
            this.frame = frame;
            this.prio = prio;
            this.state = state;
            this.unchained = unchained;
            this.cpu = cpu;
            this.n = n;
            this.last = last;
            this.groups = SliceGroups.of(this);
        }

        long end(int i) {
            return end != null ? end[i] : i + 1 < n ? start[i + 1] : Math.max(last, start[i]);
        }

        boolean isUnchained(int i) {
            return (unchained[i >>> 6] & (1L << i)) != 0;
        }
    }

    /** One slice, for hover and click. */
    public record Slice(int cpu, long start, long end, int pid, String comm, int prio, String endState, long frame,
                        boolean unchained) {
    }

    private final Lane[] cpus;
    private final List<String> strings;
    private final List<String> states;
    private final long start;
    private final long end;
    private final long slices;
    private final long unchainedCount;
    private final String warning;
    private final Map<Integer, Lane> tasks = new HashMap<>();

    SliceTimeline(Lane[] cpus, List<String> strings, List<String> states, long start, long end, long unchainedCount,
                          String warning) {
        this.cpus = cpus;
        this.strings = strings;
        this.states = states;
        this.start = start;
        this.end = end;
        long s = 0;
        for (Lane l : cpus) {
            s += l.n;
        }
        this.slices = s;
        this.unchainedCount = unchainedCount;
        this.warning = warning;
    }

    /**
     * Loads every slice of a store (blocks: call it in the background, on a connection of its own).
     *
     * @param db        a connection to the store ({@code sched_slice}, {@code sched_switch},
     *                  {@code s0.event_rows}; docs/store.md)
     * @param cancelled polled while rows are read: true stops the load
     * @return the slices; without {@code sched_switch} in the capture, none and a {@link #warning()}
     * @throws SQLException          when DuckDB fails
     * @throws IllegalStateException when cancelled, or a frame number exceeds 2^31 − 1
     */
    public static SliceTimeline load(Connection db, BooleanSupplier cancelled) throws SQLException {
        try (Statement s = db.createStatement()) {
            long first;
            long last;
            long offset;
            boolean constant;
            // the trace clock: the store's ts is wall clock when the file maps it; the mapping is an offset
            try (ResultSet rs = s.executeQuery("SELECT min(trace_ts), max(trace_ts), min(ts - trace_ts), max(ts - trace_ts)"
                    + " FROM s0.event_rows")) {
                rs.next();
                first = rs.getLong(1);
                last = rs.getLong(2);
                offset = rs.getLong(3);
                constant = rs.getLong(3) == rs.getLong(4);
            }
            boolean hasSwitch;
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.tables WHERE table_name = 'sched_slice'")) {
                rs.next();
                hasSwitch = rs.getLong(1) > 0;
            }
            if (!hasSwitch) {
                return new SliceTimeline(new Lane[0], List.of(), List.of(), first, last, 0,
                        "no sched:sched_switch in this capture: the timeline cannot tell which task ran when"
                                + " (capture sched:sched_switch, unfiltered, to see the CPUs' tasks)");
            }
            int ncpu = 0;
            Map<Integer, Integer> counts = new HashMap<>();
            try (ResultSet rs = s.executeQuery("SELECT cpu, count(*) FROM sched_slice GROUP BY cpu")) {
                while (rs.next()) {
                    counts.put(rs.getInt(1), (int) rs.getLong(2));
                    ncpu = Math.max(ncpu, rs.getInt(1) + 1);
                }
            }
            String time = constant ? "s.ts - " + offset : "r.trace_ts";
            String join = constant ? "" : " JOIN s0.event_rows r ON r.frame = s.frame";
            int[] cpuCounts = new int[ncpu];
            for (Map.Entry<Integer, Integer> e : counts.entrySet()) {
                cpuCounts[e.getKey()] = e.getValue();
            }
            SliceTimelineBuilder builder = new SliceTimelineBuilder(cpuCounts, first, last);
            // one CPU at a time: DuckDB pushes the CPU down through the view's window (partitioned by
            // CPU), so it sorts one CPU's slices, not all (~20 MiB off the app's peak: decision 0026)
            try (PreparedStatement ps = db.prepareStatement("SELECT s.cpu, " + time + ", s.pid, s.comm, s.prio,"
                    + " s.end_state, s.frame, (s.end_frame IS NOT NULL AND s.end_prev_pid <> s.pid) AS unchained"
                    + " FROM sched_slice s" + join + " WHERE s.cpu = ? ORDER BY s.ts, s.frame")) {
                ps.setFetchSize(8192);
                for (int cpu = 0; cpu < ncpu; cpu++) {
                    if (cpuCounts[cpu] > 0) {
                        ps.setInt(1, cpu);
                        readCpu(ps, builder, cancelled);
                    }
                }
            }
            return builder.build();
        }
    }

    /** Adds one CPU's slices, in time order, to the builder (the query's columns as in {@link #load}). */
    private static void readCpu(PreparedStatement ps, SliceTimelineBuilder builder, BooleanSupplier cancelled)
            throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            long rows = 0;
            while (rs.next()) {
                if ((++rows & 0xffff) == 0 && cancelled.getAsBoolean()) {
                    throw new IllegalStateException("cancelled");
                }
                builder.add(rs.getInt(1), rs.getLong(2), rs.getInt(3), rs.getString(4), rs.getInt(5), rs.getString(6),
                        rs.getLong(7), rs.getBoolean(8));
            }
        }
    }

    /** First event's time (ns, trace clock). */
    public long start() {
        return start;
    }

    /** Last event's time (ns, trace clock). */
    public long end() {
        return end;
    }

    /** CPUs (lanes 0..N−1). */
    public int cpuCount() {
        return cpus.length;
    }

    /** Slices held (every slice of the capture). */
    public long size() {
        return slices;
    }

    /** Slices on one CPU. */
    public int size(int cpu) {
        return cpus[cpu].n;
    }

    /** Unchained slices (see the class comment). */
    public long unchained() {
        return unchainedCount;
    }

    /** What the user must know before trusting the lanes (no sched_switch, unchained slices), or null. */
    public String warning() {
        return warning;
    }

    /** A string of the table (task name, end state), or null for id −1. */
    public String string(int id) {
        return id < 0 ? null : strings.get(id);
    }

    /** The lane of a key: a CPU's, or a task's (built on first use: O(slices)). */
    Lane lane(TimelineModel.LaneKey k) {
        if (!k.task()) {
            return k.id() >= 0 && k.id() < cpus.length ? cpus[k.id()] : null;
        }
        synchronized (tasks) {
            return tasks.computeIfAbsent(k.id(), this::buildTask);
        }
    }

    /**
     * A task's slices on every CPU by start; a slice that would overlap the next is cut at its start
     * (a task runs in one place at a time: an overlap is an unchained slice's guess).
     */
    private Lane buildTask(int task) {
        SliceRefs refs = slicesOf(task);
        return taskLane(task, refs, refs.byStart(cpus));
    }

    /** Where a task's slices are: per slice its CPU and its index in that CPU's lane, CPU by CPU. */
    private record SliceRefs(int[] cpu, int[] index) {
        int n() {
            return cpu.length;
        }

        /** The slices' order by (start, CPU); ties keep the order they were collected in. */
        Integer[] byStart(Lane[] cpus) {
            long[] key = new long[n()];
            Integer[] order = new Integer[n()];
            for (int j = 0; j < n(); j++) {
                key[j] = cpus[cpu[j]].start[index[j]];
                order[j] = j;
            }
            Arrays.sort(order, (a, b) -> key[a] != key[b] ? Long.compare(key[a], key[b]) : Integer.compare(cpu[a], cpu[b]));
            return order;
        }
    }

    /** The slices of one task on every CPU lane, in lane order. */
    private SliceRefs slicesOf(int task) {
        int n = 0;
        for (Lane l : cpus) {
            for (int i = 0; i < l.n; i++) {
                if (l.pid[i] == task) {
                    n++;
                }
            }
        }
        int[] cpu = new int[n];
        int[] index = new int[n];
        int k = 0;
        for (int c = 0; c < cpus.length; c++) {
            Lane l = cpus[c];
            for (int i = 0; i < l.n; i++) {
                if (l.pid[i] == task) {
                    cpu[k] = c;
                    index[k++] = i;
                }
            }
        }
        return new SliceRefs(cpu, index);
    }

    /** A task lane: the referenced slices copied in {@code order}, each ending no later than the next starts. */
    private Lane taskLane(int task, SliceRefs refs, Integer[] order) {
        int n = refs.n();
        long[] st = new long[n];
        long[] en = new long[n];
        int[] pid = new int[n];
        int[] comm = new int[n];
        int[] frame = new int[n];
        short[] prio = new short[n];
        byte[] state = new byte[n];
        long[] un = new long[(n + 63) >>> 6];
        int[] cpu = new int[n];
        for (int j = 0; j < n; j++) {
            int o = order[j];
            Lane l = cpus[refs.cpu()[o]];
            int i = refs.index()[o];
            st[j] = l.start[i];
            en[j] = l.end(i);
            pid[j] = task;
            comm[j] = l.comm[i];
            frame[j] = l.frame[i];
            prio[j] = l.prio[i];
            state[j] = l.state[i];
            cpu[j] = refs.cpu()[o];
            if (l.isUnchained(i)) {
                un[j >>> 6] |= 1L << j;
            }
        }
        for (int j = 0; j + 1 < n; j++) {
            en[j] = Math.min(en[j], st[j + 1]);
        }
        return new Lane(st, en, pid, comm, frame, prio, state, un, cpu, n, end);
    }

    /**
     * The first time of pixel column {@code x} of {@code width} over {@code [t0, t1)}: exact integer
     * arithmetic, so a brute-force check and the drawing agree on every boundary.
     */
    public static long columnStart(long t0, long t1, int width, int x) {
        long span = t1 - t0;
        long lo = span * x;
        if (Math.multiplyHigh(span, x) == 0 && lo >= 0) {
            return t0 + lo / width;
        }
        return t0 + (long) ((double) span * x / width);
    }

    /**
     * The level of detail of one lane over {@code [t0, t1)} in {@code width} pixel columns (see the
     * class comment).
     *
     * @param k       the lane (a CPU, or a task)
     * @param pidOut  per column: the task, {@link #MANY}, {@link #UNKNOWN} or {@link #NONE} (length ≥ width)
     * @param commOut per column: the task's name id ({@link #string}) in its first slice there, or −1
     * @param scratch a reusable accumulator (one per thread)
     */
    public void columns(TimelineModel.LaneKey k, long t0, long t1, int width, int[] pidOut, int[] commOut, ColumnAccumulator scratch) {
        Arrays.fill(pidOut, 0, width, NONE);
        Arrays.fill(commOut, 0, width, -1);
        Lane l = lane(k);
        if (l == null || l.n == 0 || width <= 0 || t1 <= t0) {
            return;
        }
        // the first slice reaching into [t0, ...): the last one starting at or before t0
        int i = Math.max(0, upperBound(l.start, l.n, t0) - 1);
        if (l.end != null) {
            while (i < l.n && l.end[i] <= t0) {
                i++;
            }
        }
        long a = t0;
        for (int x = 0; x < width && i < l.n; x++) {
            long b = x == width - 1 ? t1 : columnStart(t0, t1, width, x + 1);
            if (b <= a) {
                continue;
            }
            if (l.start[i] >= b) {
                // nothing here: skip to the column of slice i
                a = b;
                continue;
            }
            scratch.reset();
            int j = i;
            long[] st = l.start;
            long[] en = l.end;
            int[] pid = l.pid;
            long[] un = l.unchained;
            int n = l.n;
            SliceGroups groups = l.groups;
            while (j < n && st[j] < b) {
                if (groups.inside(l, j, a, b)) { // a whole group in the column: its sums at once
                    groups.addTo(j, scratch);
                    j += SliceGroups.SIZE;
                    continue;
                }
                long e = en != null ? en[j] : j + 1 < n ? st[j + 1] : Math.max(l.last, st[j]);
                long o = Math.min(e, b) - Math.max(st[j], a);
                if (o > 0) {
                    int p = pid[j];
                    if ((un[j >>> 6] & (1L << j)) != 0) {
                        scratch.add(UNKNOWN, o, -1);
                    } else if (p != 0) {
                        scratch.add(p, o, l.comm[j]);
                    }
                }
                j++;
            }
            // the next column starts with the last slice that began before b (it may reach past b)
            i = Math.max(i, j - 1);
            if (l.end(i) <= b && i + 1 < l.n) {
                i++;
            }
            scratch.decide(x, pidOut, commOut);
            a = b;
        }
    }

    /**
     * The slice under time {@code t} in a lane.
     *
     * @return the slice, or null when none covers {@code t}
     */
    public Slice sliceAt(TimelineModel.LaneKey k, long t) {
        Lane l = lane(k);
        if (l == null) {
            return null;
        }
        int i = upperBound(l.start, l.n, t) - 1;
        if (i < 0 || l.end(i) < t) {
            return null;
        }
        return new Slice(l.cpu == null ? k.id() : l.cpu[i], l.start[i], l.end(i), l.pid[i], string(l.comm[i]), l.prio[i],
                l.state[i] < 0 ? null : states.get(l.state[i]), l.frame[i], l.isUnchained(i));
    }

    /** A task's name: its last slice's name anywhere (a lane label), or "pid N". */
    public String comm(int pid) {
        if (pid == 0) {
            return "idle";
        }
        Lane l = lane(TimelineModel.LaneKey.task(pid));
        return l.n == 0 ? "pid " + pid : string(l.comm[l.n - 1]);
    }

    /** Raw access for checks: slice i of a CPU as {start, end, pid, comm id, unchained 0/1}. */
    public long[] slice(int cpu, int i) {
        Lane l = cpus[cpu];
        return new long[] {l.start[i], l.end(i), l.pid[i], l.comm[i], l.isUnchained(i) ? 1 : 0};
    }

    /** The index of the first element greater than key. */
    private static int upperBound(long[] a, int len, long key) {
        int lo = 0;
        int hi = len;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] <= key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
