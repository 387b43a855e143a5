package org.tracewire.app.timeline;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds a timeline slice by slice (the store's loader uses it; so can a benchmark or a test).
 * Slices of each CPU must come in time order; each CPU's count is given up front so the arrays
 * are allocated once.
 */
public final class SliceTimelineBuilder {
    private final Map<String, Integer> ids = new HashMap<>();
    private final List<String> strings = new ArrayList<>();
    private final Map<String, Integer> stateIds = new HashMap<>();
    private final List<String> stateStrings = new ArrayList<>();
    private final long[][] st;
    private final int[][] pid;
    private final int[][] comm;
    private final int[][] frame;
    private final short[][] prio;
    private final byte[][] state;
    private final long[][] un;
    private final int[] fill;
    private final long[] unchainedPerCpu;
    private long unchainedCount;
    private final long first;
    private final long last;

    /**
     * @param perCpu slices of each CPU (CPU i: {@code perCpu[i]})
     * @param first  the capture's first event (ns, trace clock)
     * @param last   its last event: where each CPU's last slice ends
     */
    public SliceTimelineBuilder(int[] perCpu, long first, long last) {
        int ncpu = perCpu.length;
        st = new long[ncpu][];
        pid = new int[ncpu][];
        comm = new int[ncpu][];
        frame = new int[ncpu][];
        prio = new short[ncpu][];
        state = new byte[ncpu][];
        un = new long[ncpu][];
        fill = new int[ncpu];
        unchainedPerCpu = new long[ncpu];
        for (int c = 0; c < ncpu; c++) {
            int n = perCpu[c];
            st[c] = new long[n];
            pid[c] = new int[n];
            comm[c] = new int[n];
            frame[c] = new int[n];
            prio[c] = new short[n];
            state[c] = new byte[n];
            un[c] = new long[(n + 63) >>> 6];
        }
        this.first = first;
        this.last = last;
    }

    /**
     * Adds the next slice of a CPU.
     *
     * @param cpu       the CPU
     * @param start     its start (ns, trace clock; not before the CPU's previous slice)
     * @param task      the task that ran (0: idle)
     * @param name      its name, or null
     * @param priority  its priority
     * @param endState  the state it left in ({@code R}, {@code S}, ...), or null
     * @param frameNo   the frame of the {@code sched_switch} that began it
     * @param unchained the switch that ends it does not switch out this task
     * @throws IllegalArgumentException when the CPU is full, a start goes back in time, the frame
     *                                  exceeds 2^31 − 1 or there are more than 127 end states
     */
    public void add(int cpu, long start, int task, String name, int priority, String endState, long frameNo, boolean unchained) {
        int i = fill[cpu];
        if (i == st[cpu].length) {
            throw new IllegalArgumentException("CPU " + cpu + " has room for " + i + " slices");
        }
        if (i > 0 && start < st[cpu][i - 1]) {
            throw new IllegalArgumentException("CPU " + cpu + ": slice at " + start + " before the previous one");
        }
        if (frameNo > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("frame " + frameNo + " is past the timeline's limit of 2^31 - 1 frames");
        }
        int es = id(endState, stateIds, stateStrings);
        if (es > Byte.MAX_VALUE) {
            throw new IllegalArgumentException("more than 127 distinct end states");
        }
        fill[cpu]++;
        st[cpu][i] = start;
        pid[cpu][i] = task;
        comm[cpu][i] = id(name, ids, strings);
        prio[cpu][i] = (short) priority;
        state[cpu][i] = (byte) es;
        frame[cpu][i] = (int) frameNo;
        if (unchained) {
            un[cpu][i >>> 6] |= 1L << i;
            unchainedPerCpu[cpu]++;
            unchainedCount++;
        }
    }

    /** The timeline, with its warning when slices are unchained. */
    public SliceTimeline build() {
        int ncpu = st.length;
        SliceTimeline.Lane[] lanes = new SliceTimeline.Lane[ncpu];
        long all = 0;
        for (int c = 0; c < ncpu; c++) {
            lanes[c] = new SliceTimeline.Lane(st[c], null, pid[c], comm[c], frame[c], prio[c], state[c], un[c], null, fill[c], last);
            all += fill[c];
        }
        String warning = null;
        if (unchainedCount > 0) {
            // a filter on sched_switch leaves most switches unchained; lost events only some
            StringBuilder b = new StringBuilder(unchainedCount * 2 >= all
                    ? String.format("sched_switch looks filtered: %,d of %,d slices end at a switch that does not switch out"
                            + " their task, so when it stopped is unknown (drawn hatched)", unchainedCount, all)
                    : String.format("%,d of %,d slices end at a switch that does not switch out their task (events lost or left out,"
                            + " e.g. the capture's own threads): when it stopped is unknown (drawn hatched)", unchainedCount, all));
            b.append(" (");
            for (int c = 0; c < ncpu; c++) {
                b.append(c == 0 ? "" : ", ").append("CPU ").append(c).append(": ").append(String.format("%,d", unchainedPerCpu[c]));
            }
            warning = b.append(")").toString();
        }
        return new SliceTimeline(lanes, List.copyOf(strings), List.copyOf(stateStrings), first, last, unchainedCount, warning);
    }

    private static int id(String s, Map<String, Integer> ids, List<String> strings) {
        if (s == null) {
            return -1;
        }
        Integer id = ids.get(s);
        if (id == null) {
            id = strings.size();
            ids.put(s, id);
            strings.add(s);
        }
        return id;
    }
}
