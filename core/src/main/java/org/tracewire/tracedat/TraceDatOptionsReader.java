package org.tracewire.tracedat;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of a trace.dat as {@link TraceDatFile} reads them (v6: one list after the CPU count;
 * v7: a chain of options sections): the values kept for {@link TraceDatOptions}, the offsets of the
 * v7 sections they locate (header info, formats, kallsyms, printk, cmdlines), and the buffers they
 * describe (v7: section offset, clock, page size and per-CPU data; v6: instance names and
 * flyrecord offsets). Option ids follow {@code trace-cmd.dat.v7(5)}; unknown ids are kept by
 * number. Offsets are checked to lie in the file. Not thread-safe.
 */
final class TraceDatOptionsReader {
    /** A v7 buffer option: where its flyrecord section is, and its CPUs' data ({cpu, offset, size}). */
    static final class V7Buffer {
        long sectionOffset;
        String name;
        String clock;
        int pageSize;
        final List<long[]> cpus = new ArrayList<>();
    }

    private final ByteOrder byteOrder;
    private final long fileSize;

    Long date;
    final List<String> cpuStats = new ArrayList<>();
    String traceClock;
    String uname;
    Long offset;
    Integer cpuCount;
    String version;
    Long traceId;
    Long timeShift;
    long[] tsc2nsec;
    final List<Integer> unknown = new ArrayList<>();
    Long headerInfo;
    Long ftraceEvents;
    Long eventFormats;
    Long kallsyms;
    Long printk;
    Long cmdlines;
    boolean bufferText;
    final List<V7Buffer> v7Buffers = new ArrayList<>();
    final List<String> v6BufferNames = new ArrayList<>();

    TraceDatOptionsReader(ByteOrder byteOrder, long fileSize) {
        this.byteOrder = byteOrder;
        this.fileSize = fileSize;
    }

    /** The clock the options select ({@link TraceDatOptions#selectedClock}), or null. */
    String selectedClock() {
        return build().selectedClock();
    }

    /** The options read so far. */
    TraceDatOptions build() {
        return new TraceDatOptions(date, cpuStats, traceClock, uname, offset, cpuCount, version, traceId,
                timeShift, tsc2nsec, unknown);
    }

    /**
     * Reads options until DONE (v7; returns the next options section's offset) or id 0 (v6; returns 0).
     *
     * @param v6Buffers v6: receives {flyrecord offset, index into {@link #v6BufferNames}} per instance buffer
     */
    long read(Cursor c, boolean v7, List<long[]> v6Buffers) {
        while (true) {
            long at = c.position();
            int id = c.u16("option id");
            if (!v7 && id == 0) {
                return 0;
            }
            long size = c.size32("option " + id);
            long dataAt = c.position();
            byte[] data = c.bytes(size, "option " + id).array();
            Cursor o = Cursor.ofSection(data, dataAt, "option " + id, byteOrder);
            switch (id) {
                case 0 -> {
                    return o.u64("next options section offset");
                }
                case 1 -> date = parseLong(o.text(size, "DATE"));
                case 2 -> cpuStats.add(o.text(size, "CPUSTAT"));
                case 3 -> {
                    if (v7) {
                        v7Buffers.add(v7Buffer(o, at, dataAt));
                    } else {
                        long off = o.u64("buffer offset");
                        TraceDatFile.checkRange(fileSize, dataAt, off, 10, "buffer");
                        v6Buffers.add(new long[] {off, v6BufferNames.size()});
                        v6BufferNames.add(o.cstring("buffer name"));
                    }
                }
                case 4 -> traceClock = o.text(size, "TRACECLOCK");
                case 5 -> uname = o.text(size, "UNAME");
                case 7 -> offset = parseLong(o.text(size, "OFFSET"));
                case 8 -> cpuCount = (int) o.u32("CPUCOUNT");
                case 9 -> version = o.text(size, "VERSION");
                case 11 -> traceId = o.u64("TRACEID");
                case 12 -> timeShift = o.u64("TIME_SHIFT peer id");
                case 14 -> tsc2nsec = new long[] {o.u32("TSC2NSEC multiplier"), o.u32("TSC2NSEC shift"),
                        o.u64("TSC2NSEC offset")};
                case 16 -> headerInfo = sectionOffset(o, at);
                case 17 -> ftraceEvents = sectionOffset(o, at);
                case 18 -> eventFormats = sectionOffset(o, at);
                case 19 -> kallsyms = sectionOffset(o, at);
                case 20 -> printk = sectionOffset(o, at);
                case 21 -> cmdlines = sectionOffset(o, at);
                case 22 -> bufferText = true;
                default -> unknown.add(id);
            }
        }
    }

    /** A v7 BUFFER option (id 3): its flyrecord section, name, clock, page size and CPUs' data. */
    private V7Buffer v7Buffer(Cursor o, long at, long dataAt) {
        V7Buffer b = new V7Buffer();
        b.sectionOffset = o.u64("buffer section offset");
        TraceDatFile.checkRange(fileSize, at, b.sectionOffset, 16, "buffer section");
        b.name = o.cstring("buffer name");
        b.clock = o.cstring("buffer clock");
        long ps = o.u32("buffer page size");
        if (ps < 64 || ps > (1 << 24)) {
            throw new TraceDatException(dataAt, "buffer page size " + ps + " outside 64..16777216");
        }
        b.pageSize = (int) ps;
        long cpus = o.count32("buffer CPU count", 20);
        for (long i = 0; i < cpus; i++) {
            long cpu = o.u32("cpu id");
            long off = o.u64("cpu data offset");
            long sz = o.u64("cpu data size");
            if (cpu > 65535) {
                throw new TraceDatException(dataAt, "cpu id " + cpu + " exceeds 65535");
            }
            if (off < 0 || sz < 0) {
                TraceDatFile.checkRange(fileSize, dataAt, off, sz, "cpu " + cpu + " data");
            }
            b.cpus.add(new long[] {cpu, off, sz});
        }
        return b;
    }

    private long sectionOffset(Cursor o, long optionAt) {
        long off = o.u64("section offset");
        TraceDatFile.checkRange(fileSize, optionAt, off, 16, "section");
        return off;
    }

    private static Long parseLong(String s) {
        String t = s.strip();
        try {
            return Long.decode(t);
        } catch (NumberFormatException e) {
            try {
                return Long.parseUnsignedLong(t.startsWith("0x") ? t.substring(2) : t, t.startsWith("0x") ? 16 : 10);
            } catch (NumberFormatException e2) {
                return null;
            }
        }
    }
}
