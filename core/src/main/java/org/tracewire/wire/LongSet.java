package org.tracewire.wire;

/**
 * A set of {@code long} values by open addressing (linear probing), for the capture's hot path:
 * {@link #contains} and {@link #add} allocate nothing until the table grows. Grows by doubling at
 * half load; holds at most {@code maxSize} values ({@link #add} refuses more). Not thread-safe.
 */
final class LongSet {
    private long[] keys;
    private boolean[] used;
    private boolean hasZero;
    private int size;
    private final int maxSize;

    /** @param maxSize most values held */
    LongSet(int maxSize) {
        this.maxSize = maxSize;
        keys = new long[64];
        used = new boolean[64];
    }

    /** Values held. */
    int size() {
        return size;
    }

    /** True when {@link #add} would refuse a new value. */
    boolean full() {
        return size >= maxSize;
    }

    static int mix(long v) {
        long h = v * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    /** True when {@code v} is in the set. */
    boolean contains(long v) {
        if (v == 0) {
            return hasZero;
        }
        int mask = keys.length - 1;
        for (int i = mix(v) & mask; used[i]; i = (i + 1) & mask) {
            if (keys[i] == v) {
                return true;
            }
        }
        return false;
    }

    /** Adds {@code v}; false when it was there already or the set is full. */
    boolean add(long v) {
        if (v == 0) {
            if (hasZero || full()) {
                return false;
            }
            hasZero = true;
            size++;
            return true;
        }
        int mask = keys.length - 1;
        int i = mix(v) & mask;
        for (; used[i]; i = (i + 1) & mask) {
            if (keys[i] == v) {
                return false;
            }
        }
        if (full()) {
            return false;
        }
        keys[i] = v;
        used[i] = true;
        size++;
        if (size * 2 > keys.length) {
            grow();
        }
        return true;
    }

    private void grow() {
        long[] oldKeys = keys;
        boolean[] oldUsed = used;
        keys = new long[oldKeys.length * 2];
        used = new boolean[oldKeys.length * 2];
        int mask = keys.length - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldUsed[j]) {
                int i = mix(oldKeys[j]) & mask;
                while (used[i]) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                used[i] = true;
            }
        }
    }
}
