package org.tracewire.app.timeline;

import java.util.Arrays;

/**
 * Per pixel column, the run time of each task in it (a small open-addressed table), and which
 * task ran most ({@link SliceTimeline#columns}: at least half of the busy time, else
 * {@link SliceTimeline#MANY}). One per drawing thread, reused column after column.
 */
public final class ColumnAccumulator {
    private int[] keys = new int[64];
    private long[] vals = new long[64];
    private int[] comms = new int[64];
    private int[] used = new int[64];
    private int count;
    private long busy;
    private int lastKey = Integer.MIN_VALUE;
    private int lastSlot;

    /** An empty accumulator. */
    public ColumnAccumulator() {
        Arrays.fill(keys, Integer.MIN_VALUE);
    }

    void reset() {
        for (int u = 0; u < count; u++) {
            keys[used[u]] = Integer.MIN_VALUE;
        }
        count = 0;
        busy = 0;
        lastKey = Integer.MIN_VALUE;
    }

    void add(int pid, long t, int comm) {
        if (pid == lastKey) {
            busy += t;
            vals[lastSlot] += t;
            return;
        }
        busy += t;
        int mask = keys.length - 1;
        int h = (pid * 0x9E3779B9) >>> 7 & mask;
        while (keys[h] != Integer.MIN_VALUE && keys[h] != pid) {
            h = (h + 1) & mask;
        }
        if (keys[h] == Integer.MIN_VALUE) {
            keys[h] = pid;
            vals[h] = t;
            comms[h] = comm;
            used[count++] = h;
            if (count * 2 > keys.length) {
                grow();
                lastKey = Integer.MIN_VALUE;
                return;
            }
        } else {
            vals[h] += t;
        }
        lastKey = pid;
        lastSlot = h;
    }

    private void grow() {
        lastKey = Integer.MIN_VALUE;
        int[] ok = keys;
        long[] ov = vals;
        int[] oc = comms;
        int[] ou = used;
        int n = count;
        keys = new int[ok.length * 2];
        Arrays.fill(keys, Integer.MIN_VALUE);
        vals = new long[keys.length];
        comms = new int[keys.length];
        used = new int[keys.length];
        count = 0;
        long b = busy;
        for (int u = 0; u < n; u++) {
            add(ok[ou[u]], ov[ou[u]], oc[ou[u]]);
        }
        busy = b;
    }

    void decide(int x, int[] pidOut, int[] commOut) {
        if (count == 0) {
            return;
        }
        int best = 0;
        long bestT = -1;
        int bestComm = -1;
        for (int u = 0; u < count; u++) {
            int h = used[u];
            if (vals[h] > bestT || vals[h] == bestT && keys[h] < best) {
                best = keys[h];
                bestT = vals[h];
                bestComm = comms[h];
            }
        }
        if (bestT * 2 >= busy) {
            pidOut[x] = best;
            commOut[x] = bestComm;
        } else {
            pidOut[x] = SliceTimeline.MANY;
        }
    }
}
