package org.tracewire.wire;

import java.util.function.IntConsumer;

/**
 * The tasks a capture has described in PROCESS context ({@code docs/wire-format.md} §4.4): pid →
 * tgid, comm, and the raw 16 comm bytes last seen in a record ({@code prev_comm}, {@code comm}, …),
 * so the hot path compares two {@code long}s to know whether a task's name changed. Open
 * addressing on the pid, no allocation on lookups; at most {@code maxSize} tasks. Slots are
 * indices into the table, valid until the next {@link #put}. Not thread-safe.
 */
public final class TaskTable {
    private int[] pids;
    private boolean[] used;
    private long[] raw0;
    private long[] raw1;
    private int[] tgids;
    private String[] comms;
    private int size;
    private final int maxSize;

    /** @param maxSize most tasks held */
    public TaskTable(int maxSize) {
        this.maxSize = maxSize;
        alloc(256);
    }

    private void alloc(int n) {
        pids = new int[n];
        used = new boolean[n];
        raw0 = new long[n];
        raw1 = new long[n];
        tgids = new int[n];
        comms = new String[n];
    }

    /** Tasks held. */
    public int size() {
        return size;
    }

    /** True when no further task can be added. */
    public boolean full() {
        return size >= maxSize;
    }

    /** The slot of a pid, or -1 when it is not in the table. */
    public int slot(int pid) {
        int mask = pids.length - 1;
        for (int i = LongSet.mix(pid) & mask; used[i]; i = (i + 1) & mask) {
            if (pids[i] == pid) {
                return i;
            }
        }
        return -1;
    }

    /** True when the slot's raw comm bytes are these. */
    public boolean sameRaw(int slot, long r0, long r1) {
        return raw0[slot] == r0 && raw1[slot] == r1;
    }

    /** Sets the raw comm bytes of a slot. */
    public void setRaw(int slot, long r0, long r1) {
        raw0[slot] = r0;
        raw1[slot] = r1;
    }

    /** The comm of a slot. */
    public String comm(int slot) {
        return comms[slot];
    }

    /** The tgid of a slot (-1: unknown). */
    public int tgid(int slot) {
        return tgids[slot];
    }

    /** The pid of a slot. */
    public int pid(int slot) {
        return pids[slot];
    }

    /**
     * Adds a task (or updates it when present).
     *
     * @return its slot, or -1 when the table is full (nothing added)
     */
    public int put(int pid, int tgid, String comm) {
        int s = slot(pid);
        if (s >= 0) {
            tgids[s] = tgid;
            comms[s] = comm;
            return s;
        }
        if (full()) {
            return -1;
        }
        if ((size + 1) * 2 > pids.length) {
            grow();
        }
        int mask = pids.length - 1;
        int i = LongSet.mix(pid) & mask;
        while (used[i]) {
            i = (i + 1) & mask;
        }
        used[i] = true;
        pids[i] = pid;
        tgids[i] = tgid;
        comms[i] = comm;
        size++;
        return i;
    }

    /** Calls {@code action} with every slot in use. */
    public void forEach(IntConsumer action) {
        for (int i = 0; i < pids.length; i++) {
            if (used[i]) {
                action.accept(i);
            }
        }
    }

    private void grow() {
        int[] p = pids;
        boolean[] u = used;
        long[] a = raw0;
        long[] b = raw1;
        int[] t = tgids;
        String[] c = comms;
        alloc(p.length * 2);
        int mask = pids.length - 1;
        for (int j = 0; j < p.length; j++) {
            if (u[j]) {
                int i = LongSet.mix(p[j]) & mask;
                while (used[i]) {
                    i = (i + 1) & mask;
                }
                used[i] = true;
                pids[i] = p[j];
                raw0[i] = a[j];
                raw1[i] = b[j];
                tgids[i] = t[j];
                comms[i] = c[j];
            }
        }
    }
}
