package org.tracewire.app.timeline;

import java.util.Arrays;

/**
 * A lane's slices summed by groups of {@value #SIZE} consecutive slices, so that the level of
 * detail of a zoomed-out view ({@link SliceTimeline#columns}) adds a group that lies wholly inside
 * a pixel column at once instead of slice by slice: per group, each task's run time (ns) in the
 * order of its first slice there, with that slice's name, the unchained slices' time as
 * {@link SliceTimeline#UNKNOWN}, idle (pid 0) left out, as the slice-by-slice sum counts them. The
 * sums are exact (integer ns), so a column's task is the same either way. About one entry per
 * task switch a group holds: a few bytes a slice.
 */
final class SliceGroups {
    /** Slices per group (a power of two). */
    static final int SIZE = 32;
    static final int SHIFT = Integer.numberOfTrailingZeros(SIZE);

    /** Entries of group g: [first[g], first[g + 1]). */
    private final int[] first;
    private final int[] key;
    private final long[] time;
    private final int[] comm;
    /** The latest end of a group's slices. */
    private final long[] end;

    private SliceGroups(int[] first, int[] key, long[] time, int[] comm, long[] end) {
        this.first = first;
        this.key = key;
        this.time = time;
        this.comm = comm;
        this.end = end;
    }

    /** Sums a lane's slices by group (the lane's arrays as {@link SliceTimeline.Lane} holds them). */
    static SliceGroups of(SliceTimeline.Lane l) {
        int groups = (l.n + SIZE - 1) >>> SHIFT;
        int[] first = new int[groups + 1];
        long[] end = new long[groups];
        int[] key = new int[Math.max(16, l.n / 4)];
        long[] time = new long[key.length];
        int[] comm = new int[key.length];
        int m = 0;
        for (int g = 0; g < groups; g++) {
            first[g] = m;
            long latest = Long.MIN_VALUE;
            for (int j = g << SHIFT; j < Math.min(l.n, (g + 1) << SHIFT); j++) {
                long e = l.end(j);
                latest = Math.max(latest, e);
                long o = e - l.start[j];
                if (o <= 0) {
                    continue;
                }
                int k = l.isUnchained(j) ? SliceTimeline.UNKNOWN : l.pid[j];
                if (k == 0) {
                    continue; // idle: not busy time
                }
                int at = first[g];
                while (at < m && key[at] != k) {
                    at++;
                }
                if (at < m) {
                    time[at] += o;
                    continue;
                }
                if (m == key.length) {
                    int grown = key.length * 2;
                    key = Arrays.copyOf(key, grown);
                    time = Arrays.copyOf(time, grown);
                    comm = Arrays.copyOf(comm, grown);
                }
                key[m] = k;
                time[m] = o;
                comm[m] = k == SliceTimeline.UNKNOWN ? -1 : l.comm[j];
                m++;
            }
            end[g] = latest;
        }
        first[groups] = m;
        return new SliceGroups(first, Arrays.copyOf(key, m), Arrays.copyOf(time, m), Arrays.copyOf(comm, m), end);
    }

    /**
     * True when slices {@code j} (the first of a group) to the group's last lie wholly in
     * {@code [a, b)} and start before {@code b} (as the slice-by-slice loop would take them).
     */
    boolean inside(SliceTimeline.Lane l, int j, long a, long b) {
        int last = j + SIZE - 1;
        return (j & (SIZE - 1)) == 0 && last < l.n && l.start[j] >= a && l.start[last] < b && end[j >>> SHIFT] <= b;
    }

    /** Adds the group of slice {@code j} to a column's sums. */
    void addTo(int j, ColumnAccumulator acc) {
        int g = j >>> SHIFT;
        for (int e = first[g]; e < first[g + 1]; e++) {
            acc.add(key[e], time[e], comm[e]);
        }
    }
}
