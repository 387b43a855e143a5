package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.WireHeader;

/**
 * Frames into a pcapng file: bare tracewire frames on an interface of link type 162
 * ({@code docs/wire-format.md} §1, §9), packet time stamps are the frames' times (ns: an event's
 * time for an event frame), lost events are the {@code epb_dropcount} of the LOST frame that reports
 * them, and the Interface Statistics Block at the end totals them.
 *
 * <p>When the path already exists and is not a regular file (a FIFO such as Wireshark's extcap
 * pipe, {@code /dev/stdout}) the output is <em>live</em>: it is written without seeking,
 * truncating, renaming or syncing, and what is buffered is flushed at least every
 * {@link #LIVE_FLUSH_NS} (on the next frame, or while the capture is idle), so a reader sees the
 * frames as they come. A regular file is flushed when its buffer fills, at close, and while the
 * capture is idle at least every {@link #FILE_FLUSH_NS}, so a reader of the growing file (the app's
 * live view, {@code sql --follow}) sees a slow capture's frames too (with {@code O_DIRECT}, all but
 * the last partial file-system block).
 */
public final class PcapngOutput implements FrameOutput {
    /** Longest time a live output holds written frames back: 100 ms. */
    public static final long LIVE_FLUSH_NS = 100_000_000L;
    /** Longest time a regular file holds written frames back while the capture is idle: 250 ms. */
    public static final long FILE_FLUSH_NS = 250_000_000L;

    private final String file;
    private final PcapngWriter writer;
    private final int iface;
    private final boolean live;
    private final WritableByteChannel channel;
    private long lastFlush = System.nanoTime();
    /** Set once the capture gave up on this output ({@link #abandon}): {@link #close()} is then quiet. */
    private volatile boolean abandoned;
    /** Why a stalled reader's channel was closed ({@link #interruptStalled}), or null. */
    private volatile String stallReason;

    /**
     * True when {@code file} names a stream rather than a file to create: it exists and is not a
     * regular file (a FIFO such as Wireshark's extcap pipe, {@code /dev/stdout}).
     */
    public static boolean isLive(Path file) {
        return Files.exists(file) && !Files.isRegularFile(file);
    }

    /**
     * @param file        the file to create (replaced if it exists), or an existing FIFO / device
     *                    to write into (live, see the class comment)
     * @param description the interface description, e.g. "ftrace events of host vm"
     * @param snapLength  the largest frame size (bare frame bytes)
     * @throws IOException when the file cannot be created or opened (opening a FIFO waits for
     *                     its reader)
     */
    public PcapngOutput(Path file, String description, int snapLength) throws IOException {
        this(file, isLive(file), FrameOutputs.FileOpener.PLAIN.open(file), description, snapLength);
    }

    /**
     * @param file        the file's name (for {@link #describe()})
     * @param channel     the file, opened and empty (or a FIFO); closed by {@link #close()} (also
     *                    when this constructor fails)
     * @param description the interface description, e.g. "ftrace events of host vm"
     * @param snapLength  the largest frame size
     * @throws IOException when writing the header blocks fails
     */
    public PcapngOutput(Path file, FileChannel channel, String description, int snapLength) throws IOException {
        this(file, isLive(file), channel, description, snapLength);
    }

    private PcapngOutput(Path file, boolean live, FileChannel channel, String description, int snapLength)
            throws IOException {
        this(file.toString(), channel, live, SectionInfo.host(), InterfaceInfo.tracewire("tracewire", description, snapLength));
    }

    /**
     * An output with given section and interface options (a remote capture keeps the remote
     * host's; a capture names its host and clock mapping, {@link FrameOutputs}).
     *
     * @param name      what {@link #describe()} names, e.g. the file's path or {@code "stdout"}
     * @param channel   where the blocks go, empty (a file) or a stream (FIFO, pipe, socket);
     *                  closed by {@link #close()} (also when this constructor fails)
     * @param live      true for a stream someone reads while it is written: flushed at once and
     *                  then at least every {@link #LIVE_FLUSH_NS}
     * @param section   the Section Header Block's options
     * @param iface     the one interface (snap length = the largest frame)
     * @throws IOException when writing the header blocks fails
     */
    public PcapngOutput(String name, WritableByteChannel channel, boolean live, SectionInfo section,
                        InterfaceInfo iface) throws IOException {
        this.file = name;
        this.live = live;
        this.channel = channel;
        PcapngWriter w = null;
        try {
            w = new PcapngWriter(channel, section);
            this.iface = w.addInterface(iface);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        this.writer = w;
        if (live) {
            flush(); // the section and interface header: a reader can start
        }
    }

    /**
     * An output that goes on writing interface 0 of a file written before ({@link PcapngWriter#resume}).
     *
     * @param name   the file's name (for {@link #describe()})
     * @param writer the resumed writer, closed by {@link #close()}
     */
    PcapngOutput(String name, PcapngWriter writer) {
        this.file = name;
        this.live = false;
        this.channel = null;
        this.writer = writer;
        this.iface = 0;
    }

    /** True when writing into a FIFO or device (flushed every {@link #LIVE_FLUSH_NS}). */
    public boolean live() {
        return live;
    }

    @Override
    public void write(ByteBuffer frame, long timeNs, long lostBefore) throws IOException {
        writer.writePacket(iface, timeNs, frame, frame.remaining(), Math.max(0, lostBefore));
        if (live && System.nanoTime() - lastFlush >= LIVE_FLUSH_NS) {
            flush();
        }
    }

    /**
     * True when {@link #writeEvent} can take every frame {@code encoder} writes: the interface's snap
     * length is at least the encoder's largest frame.
     */
    boolean encodesInPlace(FrameEncoder encoder) {
        int snap = writer.snapLength(iface);
        return snap == 0 || snap >= encoder.maxFrameSize();
    }

    /**
     * Encodes one event frame straight into the file's buffer, inside its Enhanced Packet Block
     * (the frame is written once, not encoded elsewhere and copied here): what {@link #write} does
     * for a frame {@code encoder.event(...)} made. Only when {@link #encodesInPlace} holds. The
     * header comes from {@link FrameEncoder#eventHeader} and the writer puts it and the payload into
     * the block ({@link PcapngWriter#writePacket(int, long, long, long, ByteBuffer, int, int)}).
     *
     * @param encoder  the capture's encoder (numbers the frame)
     * @param order    the kernel's byte order
     * @param src      holds the record payload
     * @param from     the payload's index in {@code src}
     * @param length   the payload's length, bytes
     * @param cpu      the CPU
     * @param timeNs   the frame's time, ns (the packet's time stamp)
     * @param rawClock true when {@code timeNs} is the raw trace clock
     * @return the frame's length, bytes
     * @throws IOException               when flushing to the file fails
     * @throws IllegalArgumentException  for a cpu outside 0..65534 (nothing written)
     * @throws IndexOutOfBoundsException when the payload is not inside {@code src}'s limit (nothing written)
     */
    int writeEvent(FrameEncoder encoder, ByteOrder order, ByteBuffer src, int from, int length, int cpu, long timeNs,
                   boolean rawClock) throws IOException {
        Objects.checkFromIndexSize(from, length, src.limit()); // before the frame is numbered
        int copied = encoder.eventPayloadLength(length);
        long first = encoder.eventHeader(order, length, cpu, rawClock);
        writer.writePacket(iface, timeNs, first, timeNs, src, from, copied);
        if (live && System.nanoTime() - lastFlush >= LIVE_FLUSH_NS) {
            flush();
        }
        return WireHeader.SIZE + copied;
    }

    /** Bytes of blocks written and not yet handed to the channel ({@link PcapngWriter#buffered()}). */
    int buffered() {
        return writer.buffered();
    }

    @Override
    public long frames() {
        return writer.packets(iface);
    }

    @Override
    public void dropsAfterLast(int cpu, long drops) {
        writer.addDrops(iface, drops);
    }

    @Override
    public void idle() throws IOException {
        if (writer.buffered() > 0 && System.nanoTime() - lastFlush >= (live ? LIVE_FLUSH_NS : FILE_FLUSH_NS)) {
            flush();
        }
    }

    @Override
    public void flush() throws IOException {
        writer.flush();
        lastFlush = System.nanoTime();
    }

    @Override
    public String describe() {
        return (live ? "pipe " : "file ") + file;
    }

    /**
     * Closes the channel under a write that blocks because the reader takes nothing (a pipe, a
     * FIFO): that write then fails (an {@link java.nio.channels.AsynchronousCloseException}) and
     * the capture drops this output, naming {@code reason}. Any thread.
     *
     * @param reason what the failure says, e.g. "the reader took nothing for 5 s"
     */
    void interruptStalled(String reason) {
        stallReason = reason;
        try {
            channel.close();
        } catch (IOException ignored) {
            // closed is what we want
        }
    }

    /**
     * Lets a file output say how many event frames it holds whole ({@link #eventsKept}).
     *
     * @param events the event frames handed to this output so far (read on the emitting thread)
     */
    void countEventsWith(LongSupplier events) {
        if (channel instanceof AsyncFileChannel a) {
            a.countWith(events);
        }
    }

    /**
     * Event frames the output holds for certain after it failed: for a file, those in its whole
     * blocks on disk (it is cut back to them at close); for a stream, {@code handed}.
     *
     * @param handed event frames handed to the output before it failed
     */
    long eventsKept(long handed) {
        if (channel instanceof AsyncFileChannel a && a.error() != null) {
            return Math.min(handed, a.wholeCount());
        }
        return handed;
    }

    /** Event frames in the file's whole blocks on disk ({@link #countEventsWith}); MAX_VALUE for a stream. */
    long eventsDurable() {
        return channel instanceof AsyncFileChannel a ? a.wholeCount() : Long.MAX_VALUE;
    }

    /** True when this output is a regular file written by a thread of its own (not a pipe or FIFO). */
    boolean regularFile() {
        return channel instanceof AsyncFileChannel;
    }

    @Override
    public String abandon(IOException e) {
        abandoned = true;
        String stalled = stallReason;
        return stalled != null ? stalled : FrameOutput.reason(e);
    }

    /**
     * Writes the Interface Statistics Block and closes the file. After {@link #abandon} it closes
     * quietly: a file is then cut back to its last whole block (out of disk: {@code AsyncFileChannel}),
     * a pipe is simply closed.
     */
    @Override
    public void close() throws IOException {
        if (!abandoned) {
            writer.close();
            return;
        }
        try {
            writer.close();
        } catch (IOException | RuntimeException ignored) {
            // the failure was reported when the output was abandoned
        }
    }
}
