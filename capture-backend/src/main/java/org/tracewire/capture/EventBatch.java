package org.tracewire.capture;

import java.nio.ByteBuffer;

/**
 * A run of one CPU's records on their way from its reader thread to the emitter: for each entry
 * its trace-clock time stamp, event time, per-CPU record number and lost count, and where its
 * encoded event frame (the 16-byte header and the record payload, {@code docs/wire-format.md} §3)
 * lies in {@link #bytes}, with {@link FrameOutput#HEADROOM} free bytes before it.
 *
 * <p>Batches are recycled through a per-CPU pool, so steady capture allocates nothing per record.
 * Owned by one thread at a time; handed over through a queue.
 */
final class EventBatch {
    final ByteBuffer bytes;
    final int capacity;
    final long[] traceTs;
    final long[] timeNs;
    final long[] sequence;
    final long[] lost;
    final int[] eventId;
    final int[] frameOffset;
    final int[] frameLength;
    /** Entries filled. */
    int count;
    /** The emitter's next entry. */
    int next;

    /**
     * @param capacity entries at most
     * @param bytes    bytes of frames (with their headroom) at most
     */
    EventBatch(int capacity, int bytes) {
        this.bytes = ByteBuffer.allocateDirect(bytes);
        this.capacity = capacity;
        this.traceTs = new long[capacity];
        this.timeNs = new long[capacity];
        this.sequence = new long[capacity];
        this.lost = new long[capacity];
        this.eventId = new int[capacity];
        this.frameOffset = new int[capacity];
        this.frameLength = new int[capacity];
    }

    /** True when another entry of up to {@code need} bytes fits. */
    boolean fits(int need) {
        return count < capacity && bytes.capacity() - bytes.position() >= need;
    }

    /** True when the emitter has emitted every entry. */
    boolean exhausted() {
        return next >= count;
    }

    /** Empties the batch for reuse. */
    void clear() {
        bytes.clear();
        count = 0;
        next = 0;
    }
}
