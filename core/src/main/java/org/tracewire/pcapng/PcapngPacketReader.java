package org.tracewire.pcapng;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the packets of a pcapng file in file order, streaming: Section Header Blocks (either
 * byte order), Interface Description Blocks (link type, {@code if_tsresol}), Enhanced Packet
 * Blocks (time, captured bytes, {@code epb_dropcount}), Interface Statistics Blocks
 * ({@code isb_ifdrop}); the string options of sections and interfaces are kept ({@link #section()},
 * {@link #interfaces()}); other blocks are skipped. Blocks larger
 * than {@link #MAX_BLOCK} bytes are refused, so a corrupt length never allocates unboundedly; every
 * length is checked as the unsigned number it is, in {@code long} arithmetic. A malformed block, or
 * one the file ends inside (a capture killed while writing), ends reading with a
 * {@link PcapngFormatException} naming the file offset and block number, after every packet before
 * it was returned.
 */
public final class PcapngPacketReader implements AutoCloseable {
    /** The largest block accepted, in bytes. */
    public static final int MAX_BLOCK = 16 << 20;

    /**
     * One packet.
     *
     * @param interfaceId the interface (index of its IDB in the section)
     * @param linkType    the interface's link type ({@link PcapngWriter#LINKTYPE_ETHERNET} for tracewire)
     * @param timeNs      time stamp in ns (the interface's resolution converted)
     * @param dropCount   {@code epb_dropcount}, 0 when absent
     * @param data        the captured bytes
     */
    public record Packet(int interfaceId, int linkType, long timeNs, long dropCount, byte[] data) {
    }

    /**
     * Which packets {@link #next(Skip)} passes over without returning them (no copy of their bytes,
     * no object made for them).
     */
    @FunctionalInterface
    public interface Skip {
        /**
         * True to pass over a packet.
         *
         * @param linkType its interface's link type
         * @param block    the bytes of its block after the 8-byte head (valid during the call only)
         * @param at       where its captured bytes start in {@code block}
         * @param length   how many bytes were captured ({@code block} holds them all)
         */
        boolean skip(int linkType, byte[] block, int at, int length);
    }

    private final BlockInput in;
    private ByteOrder order = ByteOrder.LITTLE_ENDIAN;
    private final List<int[]> interfaces = new ArrayList<>(); // {linkType}
    private final List<long[]> resolution = new ArrayList<>(); // {numerator ns per unit multiplier, divisor}
    private long offset;
    private long packetOffset = -1;
    private final List<InterfaceInfo> infos = new ArrayList<>();
    private final List<Long> ifdrops = new ArrayList<>();
    private SectionInfo section;
    private int sections;
    private long blocks;
    private PcapngFormatException failure;
    /** True for a file: a last block cut short ends the file instead of failing ({@link #truncatedAt()}). */
    private final boolean tolerateCutEnd;
    private long truncatedAt = -1;

    /**
     * Opens a file. A file whose last block was cut short (the writer was killed, or its disk
     * filled, while writing it) is read up to its last whole block, as tshark reads it; the cut is
     * reported by {@link #truncatedAt()}.
     */
    public PcapngPacketReader(Path file) throws IOException {
        this(Files.newInputStream(file), true);
    }

    /** Reads a stream (closed by {@link #close()}); a block cut short by the stream's end is an error. */
    public PcapngPacketReader(InputStream stream) {
        this(stream, false);
    }

    /**
     * Reads a stream (closed by {@link #close()}).
     *
     * @param tolerateCutEnd true: a last block cut short by the stream's end ends it, as for a file
     */
    public PcapngPacketReader(InputStream stream, boolean tolerateCutEnd) {
        this.in = new BlockInput(stream, 1 << 18);
        this.tolerateCutEnd = tolerateCutEnd;
    }

    /**
     * The file offset of a last block cut short, after {@link #next()} returned null because of it;
     * -1 when the file ended after a whole block (or was not read to its end yet).
     */
    public long truncatedAt() {
        return truncatedAt;
    }

    /** Ends a file at a block cut short at {@code at} (returns true), or says it may not ({@code false}). */
    private boolean cutEnd(long at) {
        if (!tolerateCutEnd || at == 0) {
            return false;
        }
        truncatedAt = at;
        return true;
    }

    /**
     * The next packet, or null at the end of the file.
     *
     * @throws PcapngFormatException at a malformed block, or one the file ends inside
     *                               ({@link PcapngFormatException#truncated()}): every packet before
     *                               it was returned; later calls throw the same exception again
     * @throws IOException           when the stream cannot be read
     */
    public Packet next() throws IOException {
        return next(null);
    }

    /**
     * As {@link #next()}, passing over the packets {@code skip} says to (their blocks are read and
     * checked all the same: a malformed one ends reading as in {@link #next()}).
     *
     * @param skip which packets not to return (null: none)
     */
    public Packet next(Skip skip) throws IOException {
        if (failure != null) {
            throw failure;
        }
        try {
            return read(skip);
        } catch (PcapngFormatException e) {
            failure = e;
            throw e;
        }
    }

    /**
     * The error that ended reading ({@link #next()} threw it), or null while the file reads well
     * or after its clean end.
     */
    public PcapngFormatException failure() {
        return failure;
    }

    /** A block's first 8 bytes, read into again for each block, and a view of them. */
    private final byte[] head = new byte[8];
    private final ByteBuffer headView = ByteBuffer.wrap(head);
    /** The body of the block being read ({@link #readBody}), grown as needed, and a view of it. */
    private byte[] scratch = new byte[256];
    private ByteBuffer scratchView = ByteBuffer.wrap(scratch);
    /** The largest body read into {@link #scratch}. */
    private static final int SCRATCH_MAX = 64 << 10;

    // One block per iteration; the rare blocks (section, interface, statistics) and the errors are
    // methods of their own, so the per-packet path compiles small.
    private Packet read(Skip skip) throws IOException {
        while (true) {
            long at = offset;
            long block = blocks + 1;
            int n = in.readNBytes(head, 0, 8);
            if (n < 8 && (n == 0 || cutHead(at, block, n))) {
                return null;
            }
            if (headView.order(ByteOrder.BIG_ENDIAN).getInt(0) == 0x0A0D0D0A) {
                sectionHeader(at, block);
                continue;
            }
            if (at == 0) {
                throw new PcapngFormatException(0, 1, false, "not a pcapng file (no Section Header Block)");
            }
            headView.order(order);
            int type = headView.getInt(0);
            int len = headView.getInt(4);
            checkLength(at, block, len, 12);
            int size = len - 8; // the body's bytes (the buffer, reused from block to block, may be longer)
            ByteBuffer b = body(at, block, len, size);
            if (b == null) {
                return null;
            }
            blocks = block;
            offset = at + len;
            if (b.getInt(size - 4) != len) {
                throw new PcapngFormatException(at, block, false, "trailing block length differs");
            }
            if (type == 6) {
                Packet p = packet(b, at, block, len, size, skip);
                if (p != null) {
                    return p;
                }
            } else if (type == 1) {
                interfaceBlock(b, at, block, size);
            } else if (type == 5 && size >= 16) {
                statistics(b, size);
            }
        }
    }

    /**
     * A block's head cut short ({@code n} of its 8 bytes): true when that ends a file (its last
     * block cut), else the error.
     */
    private boolean cutHead(long at, long block, int n) throws PcapngFormatException {
        if (at == 0) {
            throw new PcapngFormatException(0, 1, false, "not a pcapng file (" + n + " bytes)");
        }
        if (cutEnd(at)) {
            return true;
        }
        throw new PcapngFormatException(at, block, true, "the file ends inside a block header (" + n + " of 8 bytes)");
    }

    /**
     * The body of a block ({@code size} bytes after its head) in the reader's buffer, in the
     * section's byte order; null when the file ends inside it and may end there ({@link #cutEnd}).
     */
    private ByteBuffer body(long at, long block, int len, int size) throws IOException {
        byte[] body;
        try {
            body = readBody(at, block, len, size, true);
        } catch (PcapngFormatException e) {
            if (e.truncated() && cutEnd(at)) {
                return null;
            }
            throw e;
        }
        if (body != scratch) {
            return ByteBuffer.wrap(body, 0, size).order(order); // a rare large block
        }
        if (scratchView.array() != scratch) {
            scratchView = ByteBuffer.wrap(scratch);
        }
        return scratchView.order(order);
    }

    /** A Section Header Block, its head read: the byte order, options; the interfaces start afresh. */
    private void sectionHeader(long at, long block) throws IOException {
        byte[] bom = new byte[4];
        if (in.readNBytes(bom, 0, 4) < 4) {
            throw new PcapngFormatException(at, block, true, "the file ends inside a section header");
        }
        int magic = ByteBuffer.wrap(bom).order(ByteOrder.BIG_ENDIAN).getInt();
        if (magic == 0x1A2B3C4D) {
            order = ByteOrder.BIG_ENDIAN;
        } else if (magic == 0x4D3C2B1A) {
            order = ByteOrder.LITTLE_ENDIAN;
        } else {
            throw new PcapngFormatException(at, block, false, "bad byte-order magic");
        }
        interfaces.clear();
        resolution.clear();
        infos.clear();
        ifdrops.clear();
        int len = headView.order(order).getInt(4);
        checkLength(at, block, len, 28);
        byte[] rest = readBody(at, block, len, len - 12, false);
        ByteBuffer sb = ByteBuffer.wrap(rest).order(order);
        if (sb.getInt(rest.length - 4) != len) {
            throw new PcapngFormatException(at, block, false, "trailing block length differs");
        }
        Map<Integer, String> o = options(sb, 12, rest.length - 4);
        section = new SectionInfo(o.getOrDefault(2, ""), o.getOrDefault(3, ""), o.getOrDefault(4, ""),
                o.getOrDefault(1, ""));
        sections++;
        blocks = block;
        offset = at + len;
    }

    /** An Interface Description Block's body ({@code size} bytes). */
    private void interfaceBlock(ByteBuffer b, long at, long block, int size) throws PcapngFormatException {
        if (size < 12) {
            throw new PcapngFormatException(at, block, false, "short interface block");
        }
        int linkType = b.getShort(0) & 0xffff;
        interfaces.add(new int[] {linkType});
        resolution.add(tsresol(b, 8, size - 4));
        Map<Integer, String> o = options(b, 8, size - 4);
        infos.add(new InterfaceInfo(linkType, Math.max(0, b.getInt(4)), o.getOrDefault(2, ""),
                o.getOrDefault(3, ""), o.getOrDefault(12, ""), o.getOrDefault(15, ""), o.getOrDefault(1, "")));
        ifdrops.add(-1L);
    }

    /** An Interface Statistics Block's body ({@code size} bytes): its {@code isb_ifdrop}. */
    private void statistics(ByteBuffer b, int size) {
        int iface = b.getInt(0);
        if (iface >= 0 && iface < ifdrops.size()) {
            ifdrops.set(iface, option8(b, 12, size - 4, 5, ifdrops.get(iface)));
        }
    }

    /**
     * An Enhanced Packet Block's body ({@code size} bytes): its packet, or null when {@code skip}
     * passes over it.
     */
    private Packet packet(ByteBuffer b, long at, long block, int len, int size, Skip skip) throws PcapngFormatException {
        if (size < 24) {
            throw new PcapngFormatException(at, block, false, "short packet block");
        }
        int iface = b.getInt(0);
        if (iface < 0 || iface >= interfaces.size()) {
            throw new PcapngFormatException(at, block, false, "packet of undeclared interface "
                    + Integer.toUnsignedString(iface));
        }
        long cap = b.getInt(12) & 0xffffffffL; // unsigned 32 bits: padded in long arithmetic
        long padded = (cap + 3) & ~3L;
        if (20 + padded > size - 4) {
            throw new PcapngFormatException(at, block, false, "captured length " + cap + " exceeds the block ("
                    + len + " bytes)");
        }
        int linkType = interfaces.get(iface)[0];
        if (skip != null && skip.skip(linkType, b.array(), 20, (int) cap)) {
            return null;
        }
        long ts = ((long) b.getInt(4) << 32) | (b.getInt(8) & 0xffffffffL);
        byte[] data = new byte[(int) cap];
        b.get(20, data);
        long drops = option8(b, 20 + (int) padded, size - 4, 4, 0);
        long[] r = resolution.get(iface);
        long ns = r[1] == 1 ? ts * r[0] : ts / r[1];
        packetOffset = at;
        return new Packet(iface, linkType, ns, drops, data);
    }

    /**
     * The {@code size} bytes after a block's head, or a truncation error when the file ends first:
     * in a new array, or with {@code reuse} at the start of the reader's scratch buffer (valid until
     * the next block is read; no packet keeps it: a packet's data is copied out).
     */
    private byte[] readBody(long at, long block, int len, int size, boolean reuse) throws IOException {
        byte[] body;
        if (!reuse || size > SCRATCH_MAX) {
            body = new byte[size]; // a rare large block: not kept
        } else {
            if (scratch.length < size) {
                scratch = new byte[Math.min(SCRATCH_MAX, Math.max(size, scratch.length * 2))];
            }
            body = scratch;
        }
        int n = in.readNBytes(body, 0, size);
        if (n < size) {
            throw new PcapngFormatException(at, block, true, "the file ends inside a block of " + len + " bytes ("
                    + (len - size + n) + " present)");
        }
        return body;
    }

    /**
     * The file offset in bytes of the Enhanced Packet Block of the packet {@link #next()} returned
     * last (where a reader seeks to read that frame again), or -1 before the first packet.
     */
    public long packetOffset() {
        return packetOffset;
    }

    /**
     * The options of the current section's Section Header Block ({@code shb_hardware},
     * {@code shb_os}, {@code shb_userappl}, {@code opt_comment}; absent ones empty), or null before
     * the first block was read.
     */
    public SectionInfo section() {
        return section;
    }

    /** How many Section Header Blocks were read so far (a file normally has one). */
    public int sections() {
        return sections;
    }

    /**
     * The interfaces of the current section declared so far, in id order, with their options
     * ({@code if_name}, {@code if_description}, {@code if_os}, {@code if_hardware}, {@code opt_comment}).
     */
    public List<InterfaceInfo> interfaces() {
        return List.copyOf(infos);
    }

    /**
     * {@code isb_ifdrop} of the latest Interface Statistics Block read for an interface of the
     * current section (tracewire writes one per interface at the end of a file), or -1 when none
     * was read (yet).
     *
     * @param interfaceId the interface
     */
    public long statisticsDrops(int interfaceId) {
        return interfaceId >= 0 && interfaceId < ifdrops.size() ? ifdrops.get(interfaceId) : -1;
    }

    /**
     * The value of the last 8-byte option {@code code} between {@code o} and {@code end} (options
     * up to the end-of-options or one that overruns), or {@code fallback} when there is none.
     */
    private static long option8(ByteBuffer b, int o, int end, int code, long fallback) {
        long v = fallback;
        while (o + 4 <= end) {
            int c = b.getShort(o) & 0xffff;
            int olen = b.getShort(o + 2) & 0xffff;
            if (c == 0 || o + 4 + olen > end) {
                break;
            }
            if (c == code && olen == 8) {
                v = b.getLong(o + 4);
            }
            o += 4 + ((olen + 3) & ~3);
        }
        return v;
    }

    /** String options (UTF-8) between {@code o} and {@code end}, by code; a code given twice keeps its first value. */
    private static Map<Integer, String> options(ByteBuffer b, int o, int end) {
        Map<Integer, String> m = new HashMap<>();
        while (o + 4 <= end) {
            int code = b.getShort(o) & 0xffff;
            int olen = b.getShort(o + 2) & 0xffff;
            if (code == 0 || o + 4 + olen > end) {
                break;
            }
            byte[] v = new byte[olen];
            b.get(o + 4, v);
            m.putIfAbsent(code, new String(v, StandardCharsets.UTF_8));
            o += 4 + ((olen + 3) & ~3);
        }
        return m;
    }

    private static long[] tsresol(ByteBuffer b, int o, int end) {
        while (o + 4 <= end) {
            int code = b.getShort(o) & 0xffff;
            int olen = b.getShort(o + 2) & 0xffff;
            if (code == 0 || o + 4 + olen > end) {
                break;
            }
            if (code == 9 && olen >= 1) {
                int v = b.get(o + 4) & 0xff;
                if ((v & 0x80) == 0 && v <= 18) {
                    return v <= 9 ? new long[] {pow10(9 - v), 1} : new long[] {1, pow10(v - 9)};
                }
            }
            o += 4 + ((olen + 3) & ~3);
        }
        return new long[] {1000, 1}; // default: microseconds
    }

    private static long pow10(int n) {
        long r = 1;
        for (int i = 0; i < n; i++) {
            r *= 10;
        }
        return r;
    }

    private static void checkLength(long at, long block, int len, int min) throws PcapngFormatException {
        if (len < min || len % 4 != 0 || len > MAX_BLOCK) {
            throw new PcapngFormatException(at, block, false, "bad block length " + Integer.toUnsignedString(len)
                    + " (" + min + ".." + MAX_BLOCK + ", a multiple of 4)");
        }
    }

    /**
     * True when more bytes can be read without blocking (buffered, or available from the stream):
     * a reader of a live stream flushes its own outputs when this is false, before it waits.
     */
    public boolean ready() throws IOException {
        return in.available() > 0;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
