package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;

/**
 * Frames into a pcapng file: packet time stamps are the event times (ns), lost events are each
 * packet's {@code epb_dropcount}, and the Interface Statistics Block at the end totals them.
 */
public final class PcapngOutput implements FrameOutput {
    private final Path file;
    private final PcapngWriter writer;
    private final int iface;

    /**
     * @param file        the file to create (replaced if it exists)
     * @param description the interface description, e.g. "ftrace events of host vm"
     * @param snapLength  the largest frame size
     * @throws IOException when the file cannot be created
     */
    public PcapngOutput(Path file, String description, int snapLength) throws IOException {
        this.file = file;
        this.writer = PcapngWriter.create(file, SectionInfo.host());
        this.iface = writer.addInterface(InterfaceInfo.ethernet("tracewire", description, snapLength));
    }

    @Override
    public void write(ByteBuffer frame, long timeNs, long lostBefore) throws IOException {
        writer.writePacket(iface, timeNs, frame, frame.remaining(), Math.max(0, lostBefore));
    }

    @Override
    public void flush() throws IOException {
        writer.flush();
    }

    @Override
    public String describe() {
        return "file " + file;
    }

    @Override
    public void close() throws IOException {
        writer.close();
    }
}
