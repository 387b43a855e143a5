package org.tracewire.tracedat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatException;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.HeaderPage;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.symbols.Kallsyms;
import org.tracewire.tracetext.SavedCmdlines;

/**
 * A trace-cmd file ({@code trace.dat}), versions 6 and 7, opened for reading. The metadata is
 * read and checked on {@link #open}; the per-CPU ring-buffer pages are read lazily by
 * {@link #records()}.
 *
 * <p>Layout (sources: {@code trace-cmd.dat.v6(5)}, {@code trace-cmd.dat.v7(5)}, libtracecmd's
 * {@code trace-input.c}): magic {@code 17 08 44 "tracing"}, the version as a NUL-terminated decimal
 * string, one byte endianness (0 little, 1 big: every later number is in that order), one byte
 * {@code sizeof(long)} of the tracing user space, a u32 page size. Version 6 then holds, in this
 * order: {@code header_page} and {@code header_event} (name, u64 size, text), the {@code ftrace}
 * formats (u32 count, then u64 size + text each), the other systems' formats (u32 systems, each a
 * NUL-terminated name, u32 count, u64 size + text), {@code /proc/kallsyms} (u32 size),
 * {@code printk_formats} (u32 size), {@code saved_cmdlines} (u64 size), u32 CPU count, optional
 * {@code "options  \0"} (u16 id, u32 size, data; id 0 ends), then {@code "flyrecord\0"} and a u64
 * offset and u64 size per CPU. Version 7 holds, after the page size, the compression algorithm
 * and its version (NUL-terminated), and the u64 offset of the first options section; every part
 * is a section (u16 id, u16 flags (1 = compressed), u32 description string id, u64 size; a
 * compressed section's content is {@code <u32 compressed size><u32 size><data>}) located by an
 * option; CPU data of a compressed file is a chunk list (see {@link TraceDatBuffer.CpuData}).
 *
 * <p>This class reads the file header and walks the v6 / v7 layout; the metadata parts both versions hold are read by
 * {@link TraceDatSections}, the options by {@link TraceDatOptionsReader}, the per-CPU data by
 * {@link TraceDatCpuData}.
 *
 * <p>Errors: a {@link TraceDatException} naming the file offset for anything malformed; every size
 * is checked against the bytes that remain before anything is allocated. Not thread-safe.
 */
public final class TraceDatFile implements AutoCloseable {
    private static final byte[] MAGIC = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
    private static final int SECTION_OPTIONS = 0;
    private static final int SECTION_HEADER_INFO = 16;
    private static final int SECTION_FTRACE_EVENTS = 17;
    private static final int SECTION_EVENT_FORMATS = 18;
    private static final int SECTION_KALLSYMS = 19;
    private static final int SECTION_PRINTK = 20;
    private static final int SECTION_CMDLINES = 21;
    private static final int MAX_OPTION_SECTIONS = 4096;

    private final Path path;
    private final FileChannel channel;
    private final long fileSize;
    private int version;
    private ByteOrder byteOrder;
    private int userLongSize;
    private int pageSize;
    private Decompressor decompressor;
    private String compression = "none";
    private TraceDatSections sections;
    private FormatCatalog catalog;
    private int cpusInHeader = -1;
    private boolean latency;
    private final List<TraceDatBuffer> buffers = new ArrayList<>();
    private TraceDatOptionsReader options;
    private TraceDatOptions optionsView;
    private TraceDatCpuData cpuData;

    private TraceDatFile(Path path, FileChannel channel, long fileSize) {
        this.path = path;
        this.channel = channel;
        this.fileSize = fileSize;
    }

    /**
     * Opens and reads the metadata of a trace.dat.
     *
     * @param file the file
     * @return the open file; close it
     * @throws IOException       when the file cannot be read
     * @throws TraceDatException when it is not a valid version 6 or 7 trace.dat (with the offset)
     */
    public static TraceDatFile open(Path file) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        TraceDatFile f = new TraceDatFile(file, ch, ch.size());
        try {
            f.read();
            return f;
        } catch (TraceDatException | UncheckedIOException e) {
            ch.close();
            throw e;
        } catch (RuntimeException e) {
            ch.close();
            throw new TraceDatException(-1, "unexpected: " + e, e);
        }
    }

    /** True when the file starts with the trace.dat magic ({@code 17 08 44 "tracing"}). */
    public static boolean hasMagic(byte[] head) {
        if (head.length < MAGIC.length) {
            return false;
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (head[i] != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    private void read() {
        Cursor c = Cursor.ofFile(channel, fileSize, ByteOrder.LITTLE_ENDIAN);
        ByteBuffer magic = c.bytes(Math.min(MAGIC.length, fileSize), "magic");
        for (int i = 0; i < MAGIC.length; i++) {
            if (i >= magic.limit() || magic.get(i) != MAGIC[i]) {
                throw new TraceDatException(0, "not a trace.dat file (no 17 08 44 'tracing' magic)");
            }
        }
        long at = c.position();
        String v = c.cstring("version");
        if (!v.equals("6") && !v.equals("7")) {
            throw new TraceDatException(at, "unsupported trace.dat version '" + abbreviate(v) + "' (6 and 7 are read)");
        }
        version = Integer.parseInt(v);
        at = c.position();
        int endian = c.u8("endianness");
        if (endian > 1) {
            throw new TraceDatException(at, "endianness byte " + endian + " (0 little, 1 big)");
        }
        byteOrder = endian == 0 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
        c.order(byteOrder);
        sections = new TraceDatSections(byteOrder);
        options = new TraceDatOptionsReader(byteOrder, fileSize);
        cpuData = new TraceDatCpuData(fileSize);
        at = c.position();
        userLongSize = c.u8("long size");
        if (userLongSize != 4 && userLongSize != 8) {
            throw new TraceDatException(at, "long size " + userLongSize + " (4 or 8)");
        }
        at = c.position();
        long ps = c.u32("page size");
        if (ps < 64 || ps > (1 << 24)) {
            throw new TraceDatException(at, "page size " + ps + " outside 64..16777216");
        }
        pageSize = (int) ps;
        if (version == 6) {
            readV6(c);
        } else {
            readV7(c);
        }
        if (sections.headerPage == null) {
            throw new TraceDatException(0, "the file has no header_page");
        }
        catalog = sections.catalog();
        optionsView = options.build();
        if (buffers.isEmpty() && !latency) {
            throw new TraceDatException(0, "the file has no flyrecord data");
        }
    }

    // ---------------------------------------------------------------- version 6

    private void readV6(Cursor c) {
        sections.headerInfo(c);
        sections.ftraceFormats(c);
        sections.eventFormats(c);
        sections.kallsyms(c);
        sections.printk(c);
        sections.cmdlines(c);
        long at = c.position();
        long cpus = c.u32("CPU count");
        if (cpus > 65536) {
            throw new TraceDatException(at, "CPU count " + cpus + " exceeds 65536");
        }
        cpusInHeader = (int) cpus;
        List<long[]> v6Buffers = new ArrayList<>();
        at = c.position();
        String tag = c.text(Math.min(10, c.remaining()), "section tag");
        if (tag.equals("options  ")) {
            options.read(c, false, v6Buffers);
            at = c.position();
            tag = c.text(Math.min(10, c.remaining()), "section tag");
        }
        if (tag.equals("latency  ")) {
            latency = true;
            return;
        }
        if (!tag.equals("flyrecord")) {
            throw new TraceDatException(at, "expected 'flyrecord' or 'latency' but found '" + abbreviate(tag) + "'");
        }
        buffers.add(cpuData.v6Flyrecord(c, "", cpusInHeader, pageSize, options));
        for (long[] b : v6Buffers) {
            c.seek(b[0]);
            at = c.position();
            c.expect("flyrecord\0", "the instance buffer's 'flyrecord' tag");
            buffers.add(cpuData.v6Flyrecord(c, options.v6BufferNames.get((int) b[1]), cpusInHeader, pageSize, options));
        }
    }

    // ---------------------------------------------------------------- version 7

    private void readV7(Cursor c) {
        long at = c.position();
        String comp = c.cstring("compression name");
        c.cstring("compression version");
        decompressor = Decompressor.of(comp, at);
        compression = decompressor == null ? "none" : comp;
        long next = c.u64("first options section offset");
        Set<Long> seen = new HashSet<>();
        List<long[]> unused = new ArrayList<>();
        while (next != 0) {
            if (!seen.add(next) || seen.size() > MAX_OPTION_SECTIONS) {
                throw new TraceDatException(next, "options sections form a loop");
            }
            Cursor s = section(c, next, SECTION_OPTIONS, "options");
            next = options.read(s, true, unused);
        }
        if (options.headerInfo == null) {
            throw new TraceDatException(0, "the file has no HEADER_INFO option");
        }
        sections.headerInfo(section(c, options.headerInfo, SECTION_HEADER_INFO, "header info"));
        if (options.ftraceEvents != null) {
            sections.ftraceFormats(section(c, options.ftraceEvents, SECTION_FTRACE_EVENTS, "ftrace events"));
        }
        if (options.eventFormats != null) {
            sections.eventFormats(section(c, options.eventFormats, SECTION_EVENT_FORMATS, "event formats"));
        }
        if (options.kallsyms != null) {
            sections.kallsyms(section(c, options.kallsyms, SECTION_KALLSYMS, "kallsyms"));
        }
        if (options.printk != null) {
            sections.printk(section(c, options.printk, SECTION_PRINTK, "printk"));
        }
        if (options.cmdlines != null) {
            sections.cmdlines(section(c, options.cmdlines, SECTION_CMDLINES, "cmdlines"));
        }
        for (TraceDatOptionsReader.V7Buffer b : options.v7Buffers) {
            buffers.add(cpuData.v7Flyrecord(c, b, decompressor != null));
        }
        if (options.bufferText) {
            latency = true;
        }
    }

    /** Reads a v7 section's header at {@code offset} and returns a cursor over its (decompressed) content. */
    private Cursor section(Cursor file, long offset, int expectedId, String label) {
        file.seek(offset);
        int id = file.u16(label + " section id");
        int flags = file.u16(label + " section flags");
        file.u32(label + " section description");
        long size = file.size64(label + " section");
        if (id != expectedId) {
            throw new TraceDatException(offset, "expected the " + label + " section (id " + expectedId + "), found id " + id);
        }
        if ((flags & 1) == 0) {
            if (size > Decompressor.MAX_BLOCK) {
                throw new TraceDatException(offset, label + " section of " + size + " bytes is too large");
            }
            return Cursor.ofSection(file.bytes(size, label + " section").array(), offset, label, byteOrder);
        }
        if (decompressor == null) {
            throw new TraceDatException(offset, "compressed " + label + " section in a file without compression");
        }
        long csize = file.u32(label + " compressed size");
        long usize = file.u32(label + " uncompressed size");
        if (csize + 8 > size) {
            throw new TraceDatException(offset, label + " section: compressed size " + csize + " exceeds the section ("
                    + size + " bytes)");
        }
        byte[] src = file.bytes(csize, label + " compressed data").array();
        return Cursor.ofSection(decompressor.decompress(src, usize, offset), offset, label, byteOrder);
    }

    /**
     * Where the file is cut short (a CPU's data that runs past its end, with the offset), or null
     * when all its data is there. The records before the end are read.
     */
    public String truncation() {
        return cpuData.truncation();
    }

    /** Throws when {@code size} bytes at {@code off} do not lie in a file of {@code fileSize} bytes ({@code at}: where they are named). */
    static void checkRange(long fileSize, long at, long off, long size, String what) {
        if (off < 0 || size < 0 || off > fileSize || size > fileSize - off) {
            throw new TraceDatException(at, what + " at offset " + Long.toUnsignedString(off) + " of "
                    + Long.toUnsignedString(size) + " bytes lies outside the file (" + fileSize + " bytes)");
        }
    }

    private static String abbreviate(String s) {
        String t = s.replaceAll("[^\\x20-\\x7e]", "?");
        return t.length() > 40 ? t.substring(0, 40) + "..." : t;
    }

    // ---------------------------------------------------------------- accessors

    /** The file's path. */
    public Path path() {
        return path;
    }

    /** The file format version: 6 or 7. */
    public int version() {
        return version;
    }

    /** Byte order of every number in the file and in the ring-buffer data. */
    public ByteOrder byteOrder() {
        return byteOrder;
    }

    /** {@code sizeof(long)} of the tracing user space (the file header's byte); see {@link #kernelLayout()}. */
    public int userLongSize() {
        return userLongSize;
    }

    /** The traced host's page size in bytes. */
    public int pageSize() {
        return pageSize;
    }

    /** The compression algorithm of a v7 file ({@code zstd}, {@code zlib}) or {@code none}. */
    public String compression() {
        return compression;
    }

    /** The traced kernel's layout: the file's byte order and the long size of header_page's {@code commit}. */
    public KernelLayout kernelLayout() {
        return sections.kernelLayout;
    }

    /** The parsed {@code events/header_page}. */
    public HeaderPage headerPage() {
        return sections.headerPage;
    }

    /** The parsed {@code events/header_event}. */
    public HeaderEvent headerEvent() {
        return sections.headerEvent;
    }

    /** The {@code header_page} text as stored. */
    public String headerPageText() {
        return sections.headerPageText;
    }

    /** The {@code header_event} text as stored. */
    public String headerEventText() {
        return sections.headerEventText;
    }

    /** Every stored event format ({@code ftrace} and the recorded systems); unparsable ones in its failures. */
    public FormatCatalog catalog() {
        return catalog;
    }

    /** The stored text of a parsed format ({@code system:name}), or null. */
    public String formatText(String fullName) {
        return sections.formatTexts.get(fullName);
    }

    /** The stored {@code /proc/kallsyms}, or null when the file has none. */
    public Kallsyms kallsyms() {
        return sections.kallsyms;
    }

    /** The stored {@code /proc/kallsyms} text ("" when none). */
    public String kallsymsText() {
        return sections.kallsymsText;
    }

    /** The stored {@code printk_formats}. */
    public PrintkFormats printkFormats() {
        return sections.printk;
    }

    /** The stored {@code printk_formats} text. */
    public String printkText() {
        return sections.printkText;
    }

    /** The stored {@code saved_cmdlines}. */
    public SavedCmdlines cmdlines() {
        return sections.cmdlines;
    }

    /** The stored {@code saved_cmdlines} text. */
    public String cmdlinesText() {
        return sections.cmdlinesText;
    }

    /** The options. */
    public TraceDatOptions options() {
        return optionsView;
    }

    /** True for a latency-format file (text, no records): {@link #buffers()} is then empty. */
    public boolean isLatency() {
        return latency;
    }

    /** The recorded buffers: the top instance first (v6), or in option order (v7). */
    public List<TraceDatBuffer> buffers() {
        return List.copyOf(buffers);
    }

    /** The buffers that hold CPU data (at least one CPU with a non-zero size). */
    public List<TraceDatBuffer> buffersWithData() {
        return buffers.stream().filter(b -> b.cpus().stream().anyMatch(d -> d.size() > 0)).toList();
    }

    /** The CPU count: the {@code CPUCOUNT} option, else v6's header count, else the highest CPU id + 1. */
    public int cpuCount() {
        if (optionsView.cpuCount() != null) {
            return optionsView.cpuCount();
        }
        if (cpusInHeader >= 0) {
            return cpusInHeader;
        }
        int max = 0;
        for (TraceDatBuffer b : buffers) {
            for (TraceDatBuffer.CpuData d : b.cpus()) {
                max = Math.max(max, d.cpu() + 1);
            }
        }
        return max;
    }

    /** The clock of the first buffer with data (else of the first buffer, else {@code local}). */
    public String clock() {
        List<TraceDatBuffer> with = buffersWithData();
        List<TraceDatBuffer> list = with.isEmpty() ? buffers : with;
        String c = list.isEmpty() ? "" : list.get(0).clock();
        if (c.isEmpty()) {
            c = optionsView.selectedClock();
        }
        return c == null || c.isEmpty() ? "local" : c;
    }

    /** The sub-buffer layout of a buffer's pages. */
    public SubBufferLayout subBufferLayout(TraceDatBuffer buffer) {
        try {
            HeaderPage page = sections.headerPage;
            return new SubBufferLayout(sections.kernelLayout, page.timestamp().offset(), page.commit().offset(),
                    page.commit().size(), page.data().offset(), buffer.pageSize(), sections.headerEvent);
        } catch (IllegalArgumentException | FormatException e) {
            throw new TraceDatException(0, "buffer '" + buffer.name() + "': " + e.getMessage());
        }
    }

    /**
     * The context for rendering print fmts from the file alone: its kallsyms and printk formats
     * (HZ, enum constants and kernel variables unknown; see {@link TraceDatContext}).
     */
    public PrintContext printContext() {
        return new PrintContext(sections.kallsyms, sections.printk, 0, null, null);
    }

    /**
     * The records of the buffers with data, merged in time order across CPUs (and buffers).
     * Reads pages lazily; close the returned stream before the file.
     */
    public TraceDatRecords records() {
        return new TraceDatRecords(this, buffersWithData());
    }

    /** The records of one buffer, merged in time order across its CPUs. */
    public TraceDatRecords records(TraceDatBuffer buffer) {
        return new TraceDatRecords(this, List.of(buffer));
    }

    FileChannel channel() {
        return channel;
    }

    long fileSize() {
        return fileSize;
    }

    Decompressor decompressor() {
        return decompressor;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
