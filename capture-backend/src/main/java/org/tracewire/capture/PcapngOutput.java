package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;

/**
 * Frames into a pcapng file: packet time stamps are the event times (ns), lost events are each
 * packet's {@code epb_dropcount}, and the Interface Statistics Block at the end totals them with
 * those lost after the last packet ({@link #dropsAfterLast}).
 *
 * <p>When the path already exists and is not a regular file (a FIFO such as Wireshark's extcap
 * pipe, {@code /dev/stdout}) the output is <em>live</em>: it is written without seeking,
 * truncating, renaming or syncing, and what is buffered is flushed at least every
 * {@link #LIVE_FLUSH_NS} (on the next frame, or while the capture is idle), so a reader sees the
 * frames as they come. A regular file is flushed only when the 256 KiB buffer fills and at close.
 */
public final class PcapngOutput implements FrameOutput {
    /** Longest time a live output holds written frames back: 100 ms. */
    public static final long LIVE_FLUSH_NS = 100_000_000L;

    private final Path file;
    private final PcapngWriter writer;
    private final int iface;
    private final boolean live;
    private long lastFlush = System.nanoTime();

    /**
     * @param file        the file to create (replaced if it exists), or an existing FIFO / device
     *                    to write into (live, see the class comment)
     * @param description the interface description, e.g. "ftrace events of host vm"
     * @param snapLength  the largest frame size
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
        this.file = file;
        this.live = live;
        PcapngWriter w = null;
        try {
            w = new PcapngWriter(channel, SectionInfo.host());
            this.iface = w.addInterface(InterfaceInfo.ethernet("tracewire", description, snapLength));
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        this.writer = w;
        if (live) {
            flush(); // the section and interface header: a reader can start
        }
    }

    private static boolean isLive(Path file) {
        return Files.exists(file) && !Files.isRegularFile(file);
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

    @Override
    public void dropsAfterLast(int cpu, long drops) {
        writer.addDrops(iface, drops);
    }

    @Override
    public void idle() throws IOException {
        if (live && writer.buffered() > 0 && System.nanoTime() - lastFlush >= LIVE_FLUSH_NS) {
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

    @Override
    public void close() throws IOException {
        writer.close();
    }
}
