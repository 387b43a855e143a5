package org.tracewire.tracedat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.tracewire.io.AtomicFile;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferBuilder;
import org.tracewire.ringbuffer.SubBufferLayout;

/**
 * Writes a trace-cmd file of version 6 ({@code trace-cmd.dat.v6(5)}) that {@code trace-cmd report}
 * reads: the metadata given as the kernel's texts, then records packed into ring-buffer pages
 * per CPU as the kernel packs them ({@code kernel/trace/ring_buffer.c}): a page header (u64 time
 * stamp, {@code commit} of the long size with the missed-events bits, data), record headers of
 * {@code type_len}/{@code time_delta}, a length word for records over 112 bytes, time extends for
 * deltas of 2^27 or more, a new page for a time going backwards or for lost events (bit 31; with
 * the count stored after the data and bit 30 when known). Numbers in the given byte order. Pages
 * are kept in a temporary file per CPU until {@link #write}. Not thread-safe.
 */
public final class TraceDatWriter implements AutoCloseable {
    /**
     * The metadata of the file.
     *
     * @param headerPage  the {@code events/header_page} text
     * @param headerEvent the {@code events/header_event} text
     * @param kallsyms    {@code /proc/kallsyms} text ("" for none)
     * @param printk      {@code printk_formats} text ("" for none)
     * @param cmdlines    {@code saved_cmdlines} text ("" for none)
     * @param clock       the trace clock's name, e.g. {@code local}
     * @param uname       the {@code UNAME} option, or null
     */
    public record Metadata(String headerPage, String headerEvent, String kallsyms,
                           String printk, String cmdlines, String clock, String uname) {
    }

    private final Metadata meta;
    private final SubBufferLayout layout;
    private final ByteOrder order;
    private final int pageSize;
    private final Map<Integer, CpuPages> cpus = new TreeMap<>();
    private long skipped;

    /**
     * @param meta   the metadata
     * @param layout the page layout (byte order, long size, page size, header packing)
     */
    public TraceDatWriter(Metadata meta, SubBufferLayout layout) {
        this.meta = meta;
        this.layout = layout;
        this.order = layout.kernel().byteOrder();
        this.pageSize = layout.subBufferSize();
    }

    /**
     * Adds a record; records of one CPU must come in their order.
     *
     * @param cpu        the CPU (0..65535)
     * @param timestamp  its time stamp (trace-clock units)
     * @param payload    the payload from {@code common_type}, position to limit
     * @param lostBefore events lost on this CPU just before it: 0, a count, or -1 for unknown
     * @throws IOException when the temporary file cannot be written
     */
    public void add(int cpu, long timestamp, ByteBuffer payload, long lostBefore) throws IOException {
        if (cpu < 0 || cpu > 0xffff) {
            throw new IllegalArgumentException("cpu " + cpu);
        }
        CpuPages p = cpus.get(cpu);
        if (p == null) {
            p = new CpuPages();
            cpus.put(cpu, p);
        }
        if (!p.add(timestamp, payload, lostBefore)) {
            skipped++;
        }
    }

    /** Records that did not fit in an empty page and were left out. */
    public long skipped() {
        return skipped;
    }

    /**
     * Writes the file (a temporary file next to it, renamed over {@code out}).
     *
     * @param out        the file
     * @param cpuCount   CPUs of the traced system (at least the highest CPU with records + 1)
     * @param formats    system → the {@code format} texts of its events ({@code ftrace} goes to the
     *                   ftrace part); at least those of the records' events
     * @throws IOException when writing fails
     */
    public void write(Path out, int cpuCount, Map<String, List<String>> formats) throws IOException {
        int ncpu = Math.max(cpuCount, cpus.isEmpty() ? 1 : ((TreeMap<Integer, CpuPages>) cpus).lastKey() + 1);
        for (CpuPages p : cpus.values()) {
            p.finish();
        }
        Block h = metadata(ncpu, formats);
        h.bytes("flyrecord\0".getBytes(StandardCharsets.US_ASCII));
        long offsetsAt = h.size();
        for (int i = 0; i < ncpu; i++) {
            h.u64(0);
            h.u64(0);
        }
        byte[] clock = ("[" + meta.clock() + "]").getBytes(StandardCharsets.UTF_8);
        h.u64(clock.length);
        h.bytes(clock);
        long[][] where = placeCpuData(h.size(), ncpu);
        long end = align(where[ncpu - 1][0] + where[ncpu - 1][1]); // ncpu >= 1
        ByteBuffer header = h.buffer();
        for (int i = 0; i < ncpu; i++) {
            header.putLong((int) offsetsAt + 16 * i, where[i][0]);
            header.putLong((int) offsetsAt + 16 * i + 8, where[i][1]);
        }
        AtomicFile.write(out, null, ch -> {
            while (header.hasRemaining()) {
                ch.write(header);
            }
            for (int i = 0; i < ncpu; i++) {
                CpuPages p = cpus.get(i);
                if (p == null || p.bytes == 0) {
                    continue;
                }
                ch.position(where[i][0]);
                long done = 0;
                while (done < p.bytes) {
                    done += p.file.transferTo(done, p.bytes - done, ch);
                }
            }
            if (ch.size() < end) {
                ch.position(end - 1);
                ch.write(ByteBuffer.allocate(1));
            }
        });
    }

    /**
     * The file's metadata in v6 order: magic, version, byte order, long and page size, header_page
     * and header_event, the formats (ftrace's, then per system), kallsyms, printk formats, saved
     * cmdlines, the CPU count and the options (TRACECLOCK, UNAME, CPUCOUNT).
     */
    private Block metadata(int ncpu, Map<String, List<String>> formats) {
        Block h = new Block(order);
        h.bytes(new byte[] {0x17, 0x08, 0x44});
        h.bytes("tracing".getBytes(StandardCharsets.US_ASCII));
        h.cstring("6");
        h.u8(order == ByteOrder.LITTLE_ENDIAN ? 0 : 1);
        h.u8(layout.kernel().longSize());
        h.u32(pageSize);
        h.cstring("header_page");
        h.text64(meta.headerPage());
        h.cstring("header_event");
        h.text64(meta.headerEvent());
        List<String> ftrace = formats.getOrDefault("ftrace", List.of());
        h.u32(ftrace.size());
        for (String f : ftrace) {
            h.text64(f);
        }
        Map<String, List<String>> systems = new LinkedHashMap<>(formats);
        systems.remove("ftrace");
        h.u32(systems.size());
        for (Map.Entry<String, List<String>> s : systems.entrySet()) {
            h.cstring(s.getKey());
            h.u32(s.getValue().size());
            for (String f : s.getValue()) {
                h.text64(f);
            }
        }
        h.text32(meta.kallsyms());
        h.text32(meta.printk());
        h.text64(meta.cmdlines());
        h.u32(ncpu);
        h.bytes("options  \0".getBytes(StandardCharsets.US_ASCII));
        option(h, 4, ("[" + meta.clock() + "]\n").getBytes(StandardCharsets.UTF_8), true);
        if (meta.uname() != null) {
            option(h, 5, meta.uname().getBytes(StandardCharsets.UTF_8), true);
        }
        option(h, 8, Block.of(order, 4).putInt(0, ncpu).array(), false);
        h.u16(0);
        return h;
    }

    /** Each CPU's {offset, size} of data, page-aligned one after another from {@code headerEnd}. */
    private long[][] placeCpuData(long headerEnd, int ncpu) {
        long pos = align(headerEnd);
        long[][] where = new long[ncpu][2];
        for (int i = 0; i < ncpu; i++) {
            CpuPages p = cpus.get(i);
            long size = p == null ? 0 : p.bytes;
            where[i][0] = pos;
            where[i][1] = size;
            pos = align(pos + size);
        }
        return where;
    }

    private long align(long n) {
        return (n + pageSize - 1) / pageSize * pageSize;
    }

    private void option(Block h, int id, byte[] data, boolean nul) {
        h.u16(id);
        h.u32(data.length + (nul ? 1 : 0));
        h.bytes(data);
        if (nul) {
            h.u8(0);
        }
    }

    @Override
    public void close() throws IOException {
        for (CpuPages p : cpus.values()) {
            p.close();
        }
    }

    /** A growable byte block in the file's byte order. */
    private static final class Block {
        private ByteBuffer b;

        Block(ByteOrder order) {
            b = ByteBuffer.allocate(1 << 16).order(order);
        }

        static ByteBuffer of(ByteOrder order, int n) {
            return ByteBuffer.allocate(n).order(order);
        }

        void room(int n) {
            if (b.remaining() < n) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(b.capacity() * 2, b.position() + n)).order(b.order());
                b.flip();
                bigger.put(b);
                b = bigger;
            }
        }

        long size() {
            return b.position();
        }

        ByteBuffer buffer() {
            return b.duplicate().flip().order(b.order());
        }

        void bytes(byte[] v) {
            room(v.length);
            b.put(v);
        }

        void u8(int v) {
            room(1);
            b.put((byte) v);
        }

        void u16(int v) {
            room(2);
            b.putShort((short) v);
        }

        void u32(long v) {
            room(4);
            b.putInt((int) v);
        }

        void u64(long v) {
            room(8);
            b.putLong(v);
        }

        void cstring(String s) {
            bytes(s.getBytes(StandardCharsets.UTF_8));
            u8(0);
        }

        void text64(String s) {
            byte[] v = s.getBytes(StandardCharsets.UTF_8);
            u64(v.length);
            bytes(v);
        }

        void text32(String s) {
            byte[] v = s.getBytes(StandardCharsets.UTF_8);
            u32(v.length);
            bytes(v);
        }
    }

    /** One CPU's pages: the page being filled and a temporary file of the finished ones. */
    private final class CpuPages implements AutoCloseable {
        final Path path;
        final FileChannel file;
        final SubBufferBuilder page = new SubBufferBuilder(layout);
        long bytes;

        CpuPages() throws IOException {
            path = Files.createTempFile("tracewire-export", ".cpu");
            file = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    StandardOpenOption.DELETE_ON_CLOSE);
        }

        /**
         * Adds a record: a new page for lost events before it, for a time going backwards, or when
         * the page is full; false (nothing written) for a record that fits no page.
         */
        boolean add(long ts, ByteBuffer payload, long lostBefore) throws IOException {
            if (!page.fitsEmptyPage(payload.remaining())) {
                return false;
            }
            if (page.isOpen() && (lostBefore != 0 || Long.compareUnsigned(ts, page.lastTimestamp()) < 0)) {
                finish();
            }
            if (page.isOpen() && !page.tryAdd(ts, payload)) {
                finish();
            }
            if (!page.isOpen()) {
                page.start(ts, lostBefore);
                if (!page.tryAdd(ts, payload)) {
                    throw new IllegalStateException("a record that fits an empty page did not");
                }
            }
            return true;
        }

        void finish() throws IOException {
            if (!page.isOpen()) {
                return;
            }
            ByteBuffer b = page.finish();
            while (b.hasRemaining()) {
                file.write(b, bytes + b.position());
            }
            bytes += pageSize;
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }
}
