package org.tracewire.tracedat;

import java.util.ArrayList;
import java.util.List;

/**
 * Where each CPU's ring-buffer data of a trace.dat lies ({@link TraceDatBuffer.CpuData}): read
 * from a v6 flyrecord (offsets, sizes, the clock after them) or a v7 flyrecord section, checked
 * against the file's size; data that runs past the end of a file cut short is kept up to the end
 * (whole pages when uncompressed) and noted in {@link #truncation()}. Not thread-safe.
 */
final class TraceDatCpuData {
    private static final int SECTION_BUFFER = 3;

    private final long fileSize;
    private String truncation;

    /** @param fileSize the file's size, bytes */
    TraceDatCpuData(long fileSize) {
        this.fileSize = fileSize;
    }

    /** The first place the file is cut short, or null when all its data is there. */
    String truncation() {
        return truncation;
    }

    /**
     * A v6 flyrecord: per CPU a u64 offset and size of its data, then (trace-cmd) the buffer's clock.
     *
     * @param c        at the offsets (after the {@code flyrecord} tag)
     * @param name     the buffer's name ("" for the top instance)
     * @param cpus     the CPU count of the file header
     * @param pageSize the file's page size
     * @param options  the options (their clock when the flyrecord names none)
     */
    TraceDatBuffer v6Flyrecord(Cursor c, String name, int cpus, int pageSize, TraceDatOptionsReader options) {
        if ((long) cpus * 16 > c.remaining()) {
            throw c.error("CPU offsets of " + cpus + " CPUs run past the end of the file");
        }
        List<TraceDatBuffer.CpuData> data = new ArrayList<>();
        for (int cpu = 0; cpu < cpus; cpu++) {
            long at = c.position();
            long off = c.u64("cpu " + cpu + " data offset");
            long size = c.u64("cpu " + cpu + " data size");
            size = cutShort(at, off, size, name, cpu, pageSize, false);
            data.add(new TraceDatBuffer.CpuData(cpu, off, size, false));
        }
        // trace-cmd writes the trace clock after the offsets: u64 size, then the trace_clock text.
        String clock = null;
        if (c.remaining() >= 8) {
            long at = c.position();
            long n = c.peek(8).getLong(0);
            if (n > 0 && n <= Cursor.MAX_NAME && n <= c.remaining() - 8) {
                c.u64("clock size");
                clock = new TraceDatOptions(null, List.of(), c.text(n, "clock"), null, null, null, null, null, null,
                        null, List.of()).selectedClock();
            } else {
                c.seek(at);
            }
        }
        if (clock == null) {
            clock = options.selectedClock();
        }
        return new TraceDatBuffer(name, clock == null ? "" : clock, pageSize, data);
    }

    /**
     * The flyrecord section a v7 BUFFER option locates: the buffer's CPUs' data, as much as the file holds.
     *
     * @param canDecompress true when the file names a compression (a compressed section is malformed otherwise)
     */
    TraceDatBuffer v7Flyrecord(Cursor c, TraceDatOptionsReader.V7Buffer b, boolean canDecompress) {
        c.seek(b.sectionOffset);
        int id = c.u16("section id");
        int flags = c.u16("section flags");
        if (id != SECTION_BUFFER) {
            throw new TraceDatException(b.sectionOffset, "expected a flyrecord section (id 3), found id " + id);
        }
        boolean compressed = (flags & 1) != 0;
        if (compressed && !canDecompress) {
            throw new TraceDatException(b.sectionOffset, "compressed flyrecord section in a file without compression");
        }
        List<TraceDatBuffer.CpuData> cpus = new ArrayList<>();
        for (long[] d : b.cpus) {
            long size = cutShort(b.sectionOffset, d[1], d[2], b.name, (int) d[0], b.pageSize, compressed);
            cpus.add(new TraceDatBuffer.CpuData((int) d[0], d[1], size, compressed));
        }
        return new TraceDatBuffer(b.name, b.clock, b.pageSize, cpus);
    }

    /**
     * The size of a CPU's data that lies in the file: all of it, or, when it runs past the end of
     * the file (a file cut short), the whole pages before the end (uncompressed) or the bytes
     * before it (compressed: its chunks are checked as they are read), noted in
     * {@link #truncation()}. Offsets and sizes that are negative as signed 64-bit numbers are
     * malformed, not cut short.
     */
    private long cutShort(long at, long off, long size, String buffer, int cpu, int page, boolean compressed) {
        String what = (buffer.isEmpty() ? "" : "buffer '" + buffer + "' ") + "cpu " + cpu + " data";
        if (off < 0 || size < 0) {
            TraceDatFile.checkRange(fileSize, at, off, size, what);
        }
        if (off <= fileSize && size <= fileSize - off) {
            return size;
        }
        long present = Math.max(0, fileSize - off);
        long kept = compressed ? present : present - present % page;
        if (truncation == null) {
            truncation = "trace.dat offset " + off + ": " + what + " of " + size + " bytes runs past the end of the file ("
                    + fileSize + " bytes): the file is cut short; the records of its " + kept + " bytes before the end were read";
        }
        return kept;
    }
}
