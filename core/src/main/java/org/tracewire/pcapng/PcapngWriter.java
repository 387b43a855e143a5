package org.tracewire.pcapng;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import org.tracewire.posix.InvokingUser;

/**
 * Writes a pcapng file (draft-ietf-opsawg-pcapng): one Section Header Block (options from
 * {@link SectionInfo}), an Interface Description Block per {@link #addInterface(InterfaceInfo)}
 * (options from {@link InterfaceInfo}), Enhanced Packet Blocks with
 * nanosecond time stamps, and at {@link #close()} an Interface Statistics Block per interface.
 * All blocks are in the host's byte order (the SHB's byte-order magic 0x1A2B3C4D tells readers
 * which), every block and option padded to 32 bits. Output is buffered (256 KiB; or, on a
 * channel that lends its buffers ({@link BufferExchange}), written straight into those); not
 * thread-safe.
 *
 * <p>Statistics written at close, per interface: {@code isb_starttime} / {@code isb_endtime} =
 * the smallest / largest packet time stamp (omitted without packets), {@code isb_ifrecv} =
 * packets written + dropped, {@code isb_ifdrop} = the sum of the packets' drop counts plus
 * {@link #addDrops(int, long)}. The ISB's own time stamp is {@code isb_endtime}, or the wall
 * clock when no packet was written.
 */
public final class PcapngWriter implements AutoCloseable {
    /** LINKTYPE_ETHERNET: IEEE 802.3 Ethernet frames without FCS. */
    public static final int LINKTYPE_ETHERNET = 1;

    static final int SHB = 0x0A0D0D0A, IDB = 1, ISB = 5, EPB = 6;
    static final int BYTE_ORDER_MAGIC = 0x1A2B3C4D;
    static final int OPT_END = 0, OPT_COMMENT = 1;
    static final int SHB_HARDWARE = 2, SHB_OS = 3, SHB_USERAPPL = 4;
    static final int IF_NAME = 2, IF_DESCRIPTION = 3, IF_TSRESOL = 9, IF_OS = 12, IF_HARDWARE = 15;
    static final int EPB_DROPCOUNT = 4;
    static final int ISB_STARTTIME = 2, ISB_ENDTIME = 3, ISB_IFRECV = 4, ISB_IFDROP = 5;

    private static final int BUFFER = 256 * 1024;

    private final WritableByteChannel out;
    /** {@link #out} when it lends its buffers: blocks are written straight into them, else null. */
    private final BufferExchange exchange;
    private ByteBuffer buf;
    /** Per interface id, its snap length and counts; {@link #interfaceCount} of them are used. */
    private Stats[] interfaces = new Stats[1];
    private int interfaceCount;
    private boolean closed;

    private static final class Stats {
        final int snapLength;
        long packets;
        long drops;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;

        Stats(int snapLength) {
            this.snapLength = snapLength;
        }

        /** One packet written at {@code timeNs} after {@code drops} lost ones. */
        void count(long timeNs, long drops) {
            this.drops += drops;
            count(timeNs);
        }

        /** One packet written at {@code timeNs}, none lost before it. */
        void count(long timeNs) {
            packets++;
            first = Math.min(first, timeNs);
            last = Math.max(last, timeNs);
        }
    }

    /**
     * Starts a section on a channel (a {@link FileChannel} is written at its position).
     *
     * @param out     destination, closed by {@link #close()}
     * @param section the SHB options
     * @throws IOException when writing the SHB fails
     */
    public PcapngWriter(WritableByteChannel out, SectionInfo section) throws IOException {
        this.out = Objects.requireNonNull(out, "out");
        this.exchange = out instanceof BufferExchange x ? x : null;
        this.buf = (exchange != null ? exchange.lend() : ByteBuffer.allocateDirect(BUFFER)).order(ByteOrder.nativeOrder());
        byte[] hw = utf8(section.hardware());
        byte[] os = utf8(section.os());
        byte[] app = utf8(section.userApplication());
        byte[] comment = utf8(section.comment());
        int len = 28 + opt(comment) + opt(hw) + opt(os) + opt(app) + 4;
        ensure(len);
        int start = begin(SHB, len);
        buf.putInt(BYTE_ORDER_MAGIC).putShort((short) 1).putShort((short) 0).putLong(-1L);
        putOption(OPT_COMMENT, comment);
        putOption(SHB_HARDWARE, hw);
        putOption(SHB_OS, os);
        putOption(SHB_USERAPPL, app);
        buf.putInt(0);
        end(start, len);
    }

    /** A writer that goes on after blocks written before ({@link #resume}): no header block written. */
    private PcapngWriter(WritableByteChannel out) throws IOException {
        this.out = Objects.requireNonNull(out, "out");
        this.exchange = out instanceof BufferExchange x ? x : null;
        this.buf = (exchange != null ? exchange.lend() : ByteBuffer.allocateDirect(BUFFER)).order(ByteOrder.nativeOrder());
    }

    /**
     * Goes on writing a section of this host's byte order whose header and one interface were written
     * before (a killed capture's file, cut back to its last whole block): packets are added to
     * interface 0, and the statistics block at {@link #close()} totals them with the ones before.
     *
     * @param out        positioned after the last whole block; closed by {@link #close()}
     * @param snapLength the interface's snap length (0: none)
     * @param packets    packets the interface has in the file already
     * @param drops      the sum of their drop counts
     * @param firstNs    the smallest packet time stamp in the file (any value when {@code packets} is 0)
     * @param lastNs     the largest
     * @return the writer
     * @throws IOException when the channel fails
     */
    public static PcapngWriter resume(WritableByteChannel out, int snapLength, long packets, long drops, long firstNs,
                                      long lastNs) throws IOException {
        PcapngWriter w = new PcapngWriter(out);
        Stats s = new Stats(snapLength);
        s.packets = packets;
        s.drops = drops;
        if (packets > 0) {
            s.first = firstNs;
            s.last = lastNs;
        }
        w.interfaces[0] = s;
        w.interfaceCount = 1;
        return w;
    }

    /** Starts a section on a stream (closed by {@link #close()}). */
    public PcapngWriter(OutputStream out, SectionInfo section) throws IOException {
        this(Channels.newChannel(out), section);
    }

    /**
     * Creates (or truncates) a file and starts a section in it; run as root for another user (sudo,
     * pkexec), the file is that user's to write ({@link org.tracewire.posix.InvokingUser#openOutput}).
     */
    public static PcapngWriter create(Path file, SectionInfo section) throws IOException {
        FileChannel ch = InvokingUser.openOutput(file, "pcapng");
        try {
            return new PcapngWriter(ch, section);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * Writes an Interface Description Block.
     *
     * @return the interface id (0, 1, … in order of addition) for {@link #writePacket}
     */
    public int addInterface(InterfaceInfo info) throws IOException {
        checkOpen();
        byte[] name = utf8(info.name());
        byte[] desc = utf8(info.description());
        byte[] comment = utf8(info.comment());
        byte[] os = utf8(info.os());
        byte[] hw = utf8(info.hardware());
        int len = 16 + opt(comment) + opt(name) + opt(desc) + 8 + opt(os) + opt(hw) + 4 + 4;
        ensure(len);
        int start = begin(IDB, len);
        buf.putShort((short) info.linkType()).putShort((short) 0).putInt(info.snapLength());
        putOption(OPT_COMMENT, comment);
        putOption(IF_NAME, name);
        putOption(IF_DESCRIPTION, desc);
        putOption(IF_TSRESOL, new byte[] {9});
        putOption(IF_OS, os);
        putOption(IF_HARDWARE, hw);
        buf.putInt(0);
        end(start, len);
        if (interfaceCount == interfaces.length) {
            interfaces = Arrays.copyOf(interfaces, 2 * interfaceCount);
        }
        interfaces[interfaceCount] = new Stats(info.snapLength());
        return interfaceCount++;
    }

    /**
     * Writes an Enhanced Packet Block: the bytes from {@code packet}'s position to its limit
     * (cut to the interface's snap length), without changing the buffer's position.
     *
     * @param interfaceId    an id returned by {@link #addInterface}
     * @param timeNs         time stamp in ns since 1970-01-01 UTC (unsigned 64 bits)
     * @param packet         the frame bytes
     * @param originalLength the packet's length before any cut (at least the captured length)
     * @param dropCount      packets lost between the previous packet of this interface and this
     *                       one; written as {@code epb_dropcount} (option 4) when non-zero
     * @throws IOException              when writing fails
     * @throws IllegalArgumentException for an unknown interface or a negative drop count
     */
    public void writePacket(int interfaceId, long timeNs, ByteBuffer packet, int originalLength, long dropCount)
            throws IOException {
        checkOpen();
        Stats s = stats(interfaceId);
        if (dropCount < 0) {
            throw new IllegalArgumentException("drop count " + dropCount + " is negative");
        }
        int cap = packet.remaining();
        if (s.snapLength > 0 && cap > s.snapLength) {
            cap = s.snapLength;
        }
        int orig = Math.max(originalLength, cap);
        int len = 32 + pad(cap) + (dropCount != 0 ? 12 + 4 : 0);
        ensure(len);
        int start = begin(EPB, len);
        buf.putInt(interfaceId).putInt((int) (timeNs >>> 32)).putInt((int) timeNs).putInt(cap).putInt(orig);
        buf.put(buf.position(), packet, packet.position(), cap);
        buf.position(buf.position() + cap);
        zeros(pad(cap) - cap);
        if (dropCount != 0) {
            buf.putShort((short) EPB_DROPCOUNT).putShort((short) 8).putLong(dropCount);
            buf.putInt(0);
        }
        end(start, len);
        s.count(timeNs, dropCount);
    }

    /**
     * Writes an Enhanced Packet Block whose packet is a 16-byte prefix, two 8-byte values stored
     * big-endian ({@code prefixHigh} first), followed by {@code length} bytes copied from
     * {@code src[from, from + length)}: the per-packet path of a capture, where the prefix is a
     * frame header and the bytes a record payload. The same block {@link #writePacket} writes for
     * those 16 + {@code length} bytes, without an intermediate copy, a drop count or a change of
     * {@code src}'s position.
     *
     * @param interfaceId an interface added with {@link #addInterface}
     * @param timeNs      time stamp in ns since 1970-01-01 UTC (unsigned 64 bits)
     * @param prefixHigh  the packet's bytes 0..7, most significant byte first
     * @param prefixLow   the packet's bytes 8..15, most significant byte first
     * @param src         holds the rest of the packet (any byte order: copied as it is)
     * @param from        index of its first byte in {@code src}
     * @param length      its length, bytes; 16 + {@code length} at most the interface's snap length
     * @throws IOException               when flushing earlier blocks to make room fails
     * @throws IllegalArgumentException  for an unknown interface, or a packet beyond the snap length
     * @throws IndexOutOfBoundsException when the bytes are not inside {@code src}'s limit (nothing written)
     * @throws IllegalStateException     when the writer is closed
     */
    public void writePacket(int interfaceId, long timeNs, long prefixHigh, long prefixLow, ByteBuffer src, int from,
                            int length) throws IOException {
        checkOpen();
        Stats s = stats(interfaceId);
        Objects.checkFromIndexSize(from, length, src.limit());
        int cap = 16 + length;
        if (s.snapLength > 0 && cap > s.snapLength) {
            throw new IllegalArgumentException("packet of " + cap + " bytes on an interface with snap length "
                    + s.snapLength);
        }
        int len = 32 + pad(cap);
        ByteBuffer b = buf;
        int p = b.position();
        if (b.limit() - p < len) {
            ensure(len);
            b = buf;
            p = b.position();
        }
        // the buffer is in native order: each putLong stores two 32-bit fields, or 8 big-endian bytes
        b.putLong(p, twoInts(EPB, len)); // block type, block length
        b.putLong(p + 8, twoInts(interfaceId, (int) (timeNs >>> 32))); // interface, time stamp high
        b.putLong(p + 16, twoInts((int) timeNs, cap)); // time stamp low, captured length
        b.putInt(p + 24, cap); // original length
        b.putLong(p + 28, NATIVE_BIG ? prefixHigh : Long.reverseBytes(prefixHigh));
        b.putLong(p + 36, NATIVE_BIG ? prefixLow : Long.reverseBytes(prefixLow));
        if ((length & 3) != 0) {
            b.putInt(p + len - 8, 0); // zeros over the 1..3 padding bytes (below the packet's end: rewritten by it)
        }
        b.put(p + 44, src, from, length);
        b.putInt(p + len - 4, len);
        b.position(p + len);
        s.count(timeNs);
    }

    /** Writes a whole array as one packet without drops. */
    public void writePacket(int interfaceId, long timeNs, byte[] packet) throws IOException {
        writePacket(interfaceId, timeNs, ByteBuffer.wrap(packet), packet.length, 0);
    }

    /** Counts drops that belong to no written packet (e.g. lost after the last one) into {@code isb_ifdrop}. */
    public void addDrops(int interfaceId, long drops) {
        checkOpen();
        if (drops < 0) {
            throw new IllegalArgumentException("drops " + drops + " is negative");
        }
        stats(interfaceId).drops += drops;
    }

    /** Packets written on an interface so far. */
    public long packets(int interfaceId) {
        return stats(interfaceId).packets;
    }

    /**
     * An interface's snap length: the most packet bytes it keeps, 0 for no limit.
     *
     * @throws IllegalArgumentException for an unknown interface
     */
    public int snapLength(int interfaceId) {
        return stats(interfaceId).snapLength;
    }

    /** Bytes of blocks written into the buffer and not yet flushed to the channel. */
    public int buffered() {
        return buf.position();
    }

    /** Writes the buffered blocks to the channel. */
    public void flush() throws IOException {
        if (exchange != null) {
            buf = exchange.exchange(buf).order(ByteOrder.nativeOrder());
            return;
        }
        buf.flip();
        while (buf.hasRemaining()) {
            out.write(buf);
        }
        buf.clear();
    }

    /** Writes an Interface Statistics Block per interface, flushes and closes the channel. Idempotent. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        try {
            for (int i = 0; i < interfaceCount; i++) {
                writeStatistics(i, interfaces[i]);
            }
            flush();
        } finally {
            closed = true;
            out.close();
        }
    }

    private void writeStatistics(int id, Stats s) throws IOException {
        boolean times = s.packets > 0;
        int len = 24 + (times ? 2 * 12 : 0) + 2 * 12 + 4;
        ensure(len);
        long ts = times ? s.last : System.currentTimeMillis() * 1_000_000L;
        int start = begin(ISB, len);
        buf.putInt(id).putInt((int) (ts >>> 32)).putInt((int) ts);
        if (times) {
            buf.putShort((short) ISB_STARTTIME).putShort((short) 8).putInt((int) (s.first >>> 32)).putInt((int) s.first);
            buf.putShort((short) ISB_ENDTIME).putShort((short) 8).putInt((int) (s.last >>> 32)).putInt((int) s.last);
        }
        buf.putShort((short) ISB_IFRECV).putShort((short) 8).putLong(s.packets + s.drops);
        buf.putShort((short) ISB_IFDROP).putShort((short) 8).putLong(s.drops);
        buf.putInt(0);
        end(start, len);
    }

    private Stats stats(int interfaceId) {
        if (interfaceId < 0 || interfaceId >= interfaceCount) {
            throw new IllegalArgumentException("unknown interface " + interfaceId + " (" + interfaceCount + " added)");
        }
        return interfaces[interfaceId];
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("pcapng writer is closed");
        }
    }

    private void ensure(int len) throws IOException {
        if (buf.remaining() < len) {
            flush();
            if (exchange != null && buf.remaining() < len) {
                throw new IllegalArgumentException("a block of " + len + " bytes does not fit the channel's "
                        + exchange.bufferCapacity() + "-byte buffers");
            }
            if (buf.capacity() < len) {
                buf = ByteBuffer.allocateDirect(len).order(ByteOrder.nativeOrder());
            }
        }
    }

    private int begin(int type, int len) {
        int start = buf.position();
        buf.putInt(type).putInt(len);
        return start;
    }

    private void end(int start, int len) {
        buf.putInt(len);
        if (buf.position() - start != len) {
            throw new IllegalStateException("block length " + (buf.position() - start) + " != " + len);
        }
    }

    /** Bytes of an option holding {@code value}, 0 when the value is empty (option omitted). */
    private static int opt(byte[] value) {
        return value.length == 0 ? 0 : 4 + pad(value.length);
    }

    private void putOption(int code, byte[] value) {
        if (value.length == 0) {
            return;
        }
        buf.putShort((short) code).putShort((short) value.length).put(value);
        zeros(pad(value.length) - value.length);
    }

    private void zeros(int n) {
        for (int i = 0; i < n; i++) {
            buf.put((byte) 0);
        }
    }

    /** True on a big-endian machine: {@link #buf} is in native order. */
    private static final boolean NATIVE_BIG = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;

    /**
     * Two adjacent 32-bit fields, {@code first} at the lower index, as the 8-byte value that
     * {@code putLong} stores as those two fields into a buffer of native order, {@link #buf}'s
     * (one store, not two).
     */
    private static long twoInts(int first, int second) {
        return NATIVE_BIG
                ? ((long) first << 32) | (second & 0xffff_ffffL)
                : ((long) second << 32) | (first & 0xffff_ffffL);
    }

    static int pad(int n) {
        return (n + 3) & ~3;
    }

    private static byte[] utf8(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return b.length > 0xffff ? Arrays.copyOf(b, 0xffff) : b;
    }
}
