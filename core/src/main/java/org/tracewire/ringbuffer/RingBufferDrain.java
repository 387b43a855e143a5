package org.tracewire.ringbuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.tracewire.tracefs.Tracefs;

/**
 * Reads everything a (stopped) tracefs instance's ring buffers hold, through each CPU's
 * {@code trace_pipe_raw}, until the kernel answers EAGAIN. Consumes the buffers. Meant for an
 * instance whose {@code tracing_on} is 0 (the oracle tests, the end of a capture); a live
 * capture polls instead.
 */
public final class RingBufferDrain {
    private RingBufferDrain() {
    }

    /**
     * Drains every CPU's buffer.
     *
     * @param tracefs the instance (or tracefs) whose {@code per_cpu/cpuN/trace_pipe_raw} to read
     * @param layout  the sub-buffer layout
     * @return the decoded sub-buffers, CPU by CPU, each CPU's in the order read
     * @throws IOException          when a file cannot be opened or read
     * @throws CorruptPageException when a page does not decode
     */
    public static List<SubBuffer> drain(Tracefs tracefs, SubBufferLayout layout) throws IOException {
        List<SubBuffer> pages = new ArrayList<>();
        ByteBuffer page = ByteBuffer.allocateDirect(layout.subBufferSize());
        for (int cpu : tracefs.cpus()) {
            try (TracePipeRaw in = TracePipeRaw.open(tracefs.tracePipeRaw(cpu), cpu)) {
                while (in.readSubBuffer(page) > 0) {
                    ByteBuffer copy = ByteBuffer.allocate(page.limit());
                    copy.put(page.duplicate().position(0));
                    copy.flip();
                    pages.add(SubBuffer.decode(copy, layout, cpu));
                }
            }
        }
        return pages;
    }

    /**
     * The records of all pages in the order the kernel's text iterator shows them: by time stamp,
     * ties going to the lower CPU (as {@code peek_next_entry()} picks strictly smaller times), each
     * CPU's own order kept.
     */
    public static List<RawRecord> merge(List<SubBuffer> pages) {
        List<RawRecord> all = new ArrayList<>();
        for (SubBuffer p : pages) {
            all.addAll(p.records());
        }
        all.sort(Comparator.comparingLong(RawRecord::timestamp).thenComparingInt(RawRecord::cpu));
        return all;
    }
}
