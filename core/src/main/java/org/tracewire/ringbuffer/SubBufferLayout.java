package org.tracewire.ringbuffer;

import java.util.Objects;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.HeaderPage;
import org.tracewire.format.KernelLayout;

/**
 * Everything needed to decode a sub-buffer read from {@code per_cpu/cpuN/trace_pipe_raw}: where
 * the page header's time stamp, commit and data sit ({@code events/header_page}), how record
 * headers are packed ({@code events/header_event}), and the kernel's byte order and long size.
 *
 * @param kernel          byte order and long size
 * @param timestampOffset offset of the u64 base time stamp (0)
 * @param commitOffset    offset of {@code commit} (8)
 * @param commitSize      size of {@code commit} (the long size)
 * @param dataOffset      offset of the first record (16)
 * @param subBufferSize   size of a whole sub-buffer in bytes (4096 by default)
 * @param headerEvent     record-header packing
 */
public record SubBufferLayout(KernelLayout kernel, int timestampOffset, int commitOffset, int commitSize,
                              int dataOffset, int subBufferSize, HeaderEvent headerEvent) {
    public SubBufferLayout {
        Objects.requireNonNull(kernel, "kernel");
        Objects.requireNonNull(headerEvent, "headerEvent");
        if (dataOffset <= 0 || subBufferSize <= dataOffset) {
            throw new IllegalArgumentException("data offset " + dataOffset + " / sub-buffer size " + subBufferSize);
        }
    }

    /**
     * The layout described by a tracefs's {@code header_page} and {@code header_event}.
     *
     * @param kernel byte order (stated by the caller) and long size (from header_page)
     */
    public static SubBufferLayout of(HeaderPage page, HeaderEvent event, KernelLayout kernel) {
        return new SubBufferLayout(kernel, page.timestamp().offset(), page.commit().offset(),
                page.commit().size(), page.data().offset(), page.subBufferSize(), event);
    }
}
