package org.tracewire.tracedat;

import java.util.List;

/**
 * One recorded ring buffer of a trace.dat: the top instance ({@code name} empty) or a tracefs
 * instance recorded with {@code trace-cmd record -B NAME} (v7: a {@code BUFFER} option; v6: the
 * flyrecord header, or a {@code BUFFER} option for instances).
 *
 * @param name     the instance name, "" for the top instance
 * @param clock    its trace clock, e.g. {@code local} ("" when the file does not say)
 * @param pageSize size of one ring-buffer page (sub-buffer) in the data, in bytes
 * @param cpus     the per-CPU data, in file order
 */
public record TraceDatBuffer(String name, String clock, int pageSize, List<CpuData> cpus) {
    public TraceDatBuffer {
        cpus = List.copyOf(cpus);
    }

    /**
     * Where one CPU's pages are in the file.
     *
     * @param cpu        the CPU id
     * @param offset     file offset of the data (page-aligned in files trace-cmd writes)
     * @param size       bytes of data in the file (when {@code compressed}: the bytes of the
     *                   chunks, after the u32 chunk count)
     * @param compressed true when the data is a v7 chunk list ({@code <u32 count>} then
     *                   {@code <u32 compressed size><u32 size><data>} per chunk)
     */
    public record CpuData(int cpu, long offset, long size, boolean compressed) {
    }
}
