package org.tracewire.capture;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.tracewire.ringbuffer.SubBuffer;

/**
 * A sub-buffer read from the kernel, with its header and lost count, on its way from a CPU's
 * drainer to the emitter ({@link CpuReader}). While the emitter has it, it is only read at absolute
 * indexes (the cursor, the frame sink, the record copy).
 */
final class Page {
    final ByteBuffer buf;
    SubBuffer.PageHeader header;
    /** Lost events the drainer attributed to this page (they go before its first record). */
    long lost;
    /** The sink's event count once this page's records were emitted ({@link PagePool#holdUntilDurable}). */
    long durableAt;

    /** A page over a new direct buffer of {@code size} bytes in the kernel's byte order. */
    Page(int size, ByteOrder order) {
        buf = ByteBuffer.allocateDirect(size).order(order);
    }

    /** A page over memory of the read-ahead's ({@link ReadAhead.Arena}), in the kernel's byte order. */
    Page(ByteBuffer b) {
        buf = b;
    }

    /**
     * In a CPU's page queue after a read that found its buffer empty: no later record of that CPU is
     * older than {@code time} (trace clock, ns); {@code last} after the final drain (or a failure).
     */
    record Mark(long time, boolean last) {
    }
}
