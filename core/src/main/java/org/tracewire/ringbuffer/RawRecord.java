package org.tracewire.ringbuffer;

import java.nio.ByteBuffer;

/**
 * A data record found in a sub-buffer: its absolute time stamp and where its payload lies.
 *
 * @param cpu         the CPU the sub-buffer belongs to
 * @param timestamp   absolute time in trace-clock units (ns for the {@code local} clock): page
 *                    time stamp plus the deltas and time extends before it
 * @param payload     read-only view of the payload bytes (starting at {@code common_type}),
 *                    including the kernel's alignment padding at the end
 * @param pageOffset  byte offset of the record header in the sub-buffer
 */
public record RawRecord(int cpu, long timestamp, ByteBuffer payload, int pageOffset) {
    /** The event id: the payload's first 16 bits ({@code common_type}). */
    public int eventId() {
        return payload.getShort(0) & 0xffff;
    }
}
