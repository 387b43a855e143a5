package org.tracewire.app.capture;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import org.tracewire.input.FrameStream;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.pcapng.PcapngFormatException;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.wire.WireFormatException;
import org.tracewire.wire.WireFrame;

/**
 * Reads single events of a pcapng again by where their packet block starts (the store's
 * {@code events.file_offset}), decoded by core's {@link FrameStream} as a whole read decodes them:
 * {@link #open} learns the context of the whole file once (every CAPTURE, FORMAT, PROCESS, …
 * message, the EVENT frames skipped undecoded) and keeps the file's blocks before its first packet
 * (Section Header and Interface Description Blocks) to put in front of each block read. A file
 * whose scope starts a second capture keeps the context as it stands at the end of the file (the
 * later capture's). {@link #follow} opens a file a capture still writes: its context is learnt
 * as far as the events asked for, when they are asked for. Not thread-safe.
 */
public final class FrameReader implements AutoCloseable {
    /** Block types (pcapng): Enhanced and Simple Packet Block, Section Header Block. */
    private static final int EPB = 6;
    private static final int SPB = 3;
    private static final int SHB = 0x0A0D0D0A;

    private final FileChannel channel;
    private final byte[] head;
    private final ByteOrder order;
    private final FrameStream stream = new FrameStream();
    private final RecordRows rows = new RecordRows();
    /** The file's context is learnt from the blocks before this offset (all of them after {@link #open}). */
    private long learnedTo = Long.MAX_VALUE;

    private FrameReader(Path file) throws IOException {
        this.channel = FileChannel.open(file, StandardOpenOption.READ);
        ByteBuffer b = ByteBuffer.allocate(12);
        channel.read(b, 0);
        b.flip();
        if (b.remaining() < 12 || b.getInt(0) != SHB) {
            throw new IOException(file + ": not a pcapng (no Section Header Block at offset 0)");
        }
        order = b.order(ByteOrder.LITTLE_ENDIAN).getInt(8) == 0x1A2B3C4D ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
        long pos = 0;
        long size = channel.size();
        while (pos + 8 <= size) {
            ByteBuffer h = ByteBuffer.allocate(8).order(order);
            channel.read(h, pos);
            int type = h.getInt(0);
            long len = Integer.toUnsignedLong(h.getInt(4));
            if (type == EPB || type == SPB || len < 12 || len > PcapngPacketReader.MAX_BLOCK) {
                break;
            }
            pos += len;
        }
        ByteBuffer hb = ByteBuffer.allocate((int) pos);
        channel.read(hb, 0);
        head = hb.array();
    }

    /**
     * Opens a pcapng that a capture still writes (a live capture's store): nothing of it is read
     * beyond its first blocks now; the context of the blocks before an event is learnt when that
     * event is read ({@link #event}, {@link #rows}), from where the last such pass stopped, so a
     * row decodes as a whole read of the file up to it does, and no pass chases the file's end.
     *
     * @param file the pcapng (its writer has started it)
     * @return the reader
     * @throws IOException when the file cannot be read or is no pcapng
     */
    public static FrameReader follow(Path file) throws IOException {
        FrameReader r = new FrameReader(file);
        r.learnedTo = r.head.length;
        return r;
    }

    /** Learns the context of the blocks from {@link #learnedTo} to {@code upTo} (a block's offset: every block before it is whole). */
    private void learn(long upTo) throws IOException {
        if (upTo <= learnedTo) {
            return;
        }
        InputStream range = new BufferedInputStream(new InputStream() {
            private long pos = learnedTo;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = (int) Math.min(len, upTo - pos);
                if (n <= 0) {
                    return -1;
                }
                int got = channel.read(ByteBuffer.wrap(b, off, n), pos);
                if (got > 0) {
                    pos += got;
                }
                return got;
            }
        }, 1 << 16);
        try (PcapngPacketReader in = new PcapngPacketReader(new SequenceInputStream(new ByteArrayInputStream(head), range))) {
            feedContext(in, this);
        }
        learnedTo = upTo;
    }

    /** Feeds every context message of a packet reader's packets to a reader's stream (the EVENT frames skipped undecoded). */
    private static void feedContext(PcapngPacketReader in, FrameReader r) throws IOException {
        while (true) {
            PcapngPacketReader.Packet p;
            try {
                p = in.next(PcapngInput.EVENT_FRAMES); // not copied out nor decoded
            } catch (PcapngFormatException e) {
                return; // a damaged tail: the context before it stands
            }
            if (p == null) {
                return;
            }
            WireFrame f;
            try {
                f = PcapngInput.frame(p);
            } catch (WireFormatException e) {
                continue;
            }
            if (f != null && f.fragment() != null) {
                r.stream.packet(p, 0);
            }
        }
    }

    /**
     * Opens a pcapng and reads its context (one pass over the file).
     *
     * @param file the pcapng
     * @return the reader
     * @throws IOException when the file cannot be read or is no pcapng
     */
    public static FrameReader open(Path file) throws IOException {
        FrameReader r = new FrameReader(file);
        try (PcapngPacketReader in = new PcapngPacketReader(file)) {
            feedContext(in, r);
        } catch (IOException | RuntimeException e) {
            r.close();
            throw e;
        }
        return r;
    }

    /**
     * Opens a finished pcapng and learns its context from the blocks at {@code contextBlocks} alone
     * (its store's {@code context_offsets}: every block the build read without an event, the
     * context messages among them), with no pass over the other blocks: ~10,000 blocks of a
     * 10 M-event capture, where {@link #open(Path)} reads its 909 MB.
     *
     * @param file          the pcapng the store was built from (unchanged since: the store cache checks)
     * @param contextBlocks the blocks' file offsets in bytes, in file order
     * @return the reader
     * @throws IOException when the file cannot be read, is no pcapng, or an offset holds no packet block
     */
    public static FrameReader open(Path file, long[] contextBlocks) throws IOException {
        FrameReader r = new FrameReader(file);
        InputStream blocks = new InputStream() {
            private int next;
            private byte[] block = new byte[0];
            private int pos;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                while (pos == block.length) {
                    if (next == contextBlocks.length) {
                        return -1;
                    }
                    block = r.blockAt(contextBlocks[next++]);
                    pos = 0;
                }
                int n = Math.min(len, block.length - pos);
                System.arraycopy(block, pos, b, off, n);
                pos += n;
                return n;
            }
        };
        try (PcapngPacketReader in = new PcapngPacketReader(new SequenceInputStream(new ByteArrayInputStream(r.head),
                blocks))) {
            feedContext(in, r);
        } catch (IOException | RuntimeException e) {
            r.close();
            throw e;
        }
        return r;
    }

    /**
     * The event whose packet block starts at {@code offset}.
     *
     * @param offset the block's file offset in bytes
     * @param frame  its packet number (1-based), given to the event
     * @return the event, or null when the block holds none this context decodes
     * @throws IOException when the block cannot be read
     */
    public RecordInput.Event event(long offset, long frame) throws IOException {
        learn(offset);
        try (PcapngPacketReader in = new PcapngPacketReader(new SequenceInputStream(new ByteArrayInputStream(head),
                new ByteArrayInputStream(blockAt(offset))))) {
            PcapngPacketReader.Packet p = in.next();
            return p == null ? null : stream.packet(p, frame);
        }
    }

    /**
     * The packet block (Enhanced or Simple) that starts at {@code offset}, whole.
     *
     * @throws IOException when the file cannot be read or holds no packet block there
     */
    private byte[] blockAt(long offset) throws IOException {
        ByteBuffer h = ByteBuffer.allocate(8).order(order);
        if (channel.read(h, offset) < 8) {
            throw new IOException("pcapng offset " + offset + ": past the end of the file");
        }
        long len = Integer.toUnsignedLong(h.getInt(4));
        int type = h.getInt(0);
        if ((type != EPB && type != SPB) || len < 12 || len > PcapngPacketReader.MAX_BLOCK) {
            throw new IOException("pcapng offset " + offset + ": no packet block there");
        }
        ByteBuffer block = ByteBuffer.allocate((int) len);
        while (block.hasRemaining()) {
            if (channel.read(block, offset + block.position()) < 0) {
                throw new IOException("pcapng offset " + offset + ": the block runs past the end of the file");
            }
        }
        return block.array();
    }

    /** A span of the file read in one go by {@link #rows}, bytes. */
    static final int SPAN = 4 << 20;

    /**
     * The rows of several events ({@link #row}): those whose blocks lie within {@value #SPAN} bytes
     * are read in one go (a page of rows in frame order is one read), the others one by one.
     *
     * @param offsets the blocks' file offsets
     * @param frames  their packet numbers, index for index
     * @return the rows, index for index (null where a block holds no event this context decodes)
     * @throws IOException when a block cannot be read
     */
    public EventRow[] rows(long[] offsets, long[] frames) throws IOException {
        EventRow[] out = new EventRow[offsets.length];
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        Map<Long, Integer> at = new HashMap<>();
        for (int i = 0; i < offsets.length; i++) {
            lo = Math.min(lo, offsets[i]);
            hi = Math.max(hi, offsets[i]);
            at.put(offsets[i], i);
        }
        learn(hi);
        if (offsets.length < 2 || hi - lo > SPAN) {
            for (int i = 0; i < offsets.length; i++) {
                out[i] = row(offsets[i], frames[i]);
            }
            return out;
        }
        ByteBuffer last = ByteBuffer.allocate(8).order(order);
        if (channel.read(last, hi) < 8) {
            throw new IOException("pcapng offset " + hi + ": past the end of the file");
        }
        long end = hi + Integer.toUnsignedLong(last.getInt(4));
        if (end - lo > SPAN + PcapngPacketReader.MAX_BLOCK) {
            throw new IOException("pcapng offset " + hi + ": no packet block there");
        }
        ByteBuffer span = ByteBuffer.allocate((int) (end - lo));
        while (span.hasRemaining()) {
            if (channel.read(span, lo + span.position()) < 0) {
                throw new IOException("pcapng offset " + lo + ": the blocks run past the end of the file");
            }
        }
        try (PcapngPacketReader in = new PcapngPacketReader(new SequenceInputStream(new ByteArrayInputStream(head),
                new ByteArrayInputStream(span.array())))) {
            for (PcapngPacketReader.Packet p = in.next(); p != null; p = in.next()) {
                Integer i = at.get(in.packetOffset() - head.length + lo);
                if (i != null) {
                    RecordInput.Event e = stream.packet(p, frames[i]);
                    out[i] = e == null ? null : rows.row(e);
                }
            }
        }
        return out;
    }

    /**
     * The rows of the events among the packets of a span of the file, by packet number: the span
     * starts at the packet block of frame {@code firstFrame} and each packet block after it is the
     * next frame (as the file's packets are numbered), so no offsets are needed. Packets not asked
     * for (context frames, other events) are passed over undecoded.
     *
     * @param from       where the span starts: the packet block of {@code firstFrame}, bytes
     * @param to         where it ends (a block boundary, or the file's size), bytes
     * @param firstFrame the packet number of the block at {@code from}
     * @param frames     the packet numbers wanted, ascending
     * @return the rows, index for index (null where a frame is not in the span or holds no event
     *         this context decodes)
     * @throws IOException when the span cannot be read or is no run of pcapng blocks
     */
    public EventRow[] rowsOfFrames(long from, long to, long firstFrame, long[] frames) throws IOException {
        EventRow[] out = new EventRow[frames.length];
        if (frames.length == 0) {
            return out;
        }
        if (to - from > 2L * SPAN || to < from) {
            throw new IOException("pcapng offsets " + from + " to " + to + ": a span too long to read in one go");
        }
        ByteBuffer span = ByteBuffer.allocate((int) (to - from));
        while (span.hasRemaining()) {
            if (channel.read(span, from + span.position()) < 0) {
                break; // the file is shorter: the frames past its end stay null
            }
        }
        long last = frames[frames.length - 1];
        try (PcapngPacketReader in = new PcapngPacketReader(new SequenceInputStream(new ByteArrayInputStream(head),
                new ByteArrayInputStream(span.array(), 0, span.position())))) {
            long frame = firstFrame;
            int i = 0;
            for (PcapngPacketReader.Packet p = in.next(); p != null && frame <= last; p = in.next(), frame++) {
                while (i < frames.length && frames[i] < frame) {
                    i++;
                }
                if (i < frames.length && frames[i] == frame) {
                    RecordInput.Event e = stream.packet(p, frame);
                    out[i] = e == null ? null : rows.row(e);
                }
            }
        } catch (PcapngFormatException e) {
            // a cut block at the span's end: the frames past it stay null
        }
        return out;
    }

    /** The row of the event at {@code offset} ({@link RecordRows}), or null as for {@link #event}. */
    public EventRow row(long offset, long frame) throws IOException {
        RecordInput.Event e = event(offset, frame);
        return e == null ? null : rows.row(e);
    }

    /** The file's size in bytes. */
    public long size() throws IOException {
        return channel.size();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
