package org.tracewire.app.capture;

import java.io.IOException;
import java.nio.file.Path;
import org.tracewire.input.PcapngInput;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.wire.WireFrame;
import org.tracewire.wire.WireHeader;

/**
 * Finds a streamed row's packet in the pcapng a live capture writes, so "Show in Wireshark" can
 * open the file at that frame ({@code wireshark -r FILE -g N}). Streamed rows carry no frame
 * number (the stream may skip events the file has), so the row is found by its EVENT frame
 * (wire format v2): the same CPU and time in ns in the header ({@link WireHeader#timeNs()}, the
 * streamed row's {@link EventRow#ts()}: both are the backend's wall-clock time of the event) and the
 * same {@code common_pid} at payload offset 4 (in the kernel's byte order).
 */
public final class PcapngFrames {
    private PcapngFrames() {
    }

    /**
     * The 1-based packet number (Wireshark's {@code frame.number}: every packet counts, tracewire
     * frame or not) of a row's frame. A file still being written may end in a partial block: the
     * search stops there.
     *
     * @param file the pcapng
     * @param row  a streamed row
     * @return the frame number, or 0 when the file holds no such frame (yet)
     * @throws IOException when the file cannot be opened or is no pcapng
     */
    public static long find(Path file, EventRow row) throws IOException {
        long n = 0;
        try (PcapngPacketReader in = new PcapngPacketReader(file)) {
            while (true) {
                PcapngPacketReader.Packet p;
                try {
                    p = in.next();
                } catch (IOException e) {
                    if (n == 0) {
                        throw e;
                    }
                    return 0;    // a partial block at the end of a file being written
                }
                if (p == null) {
                    return 0;
                }
                n++;
                WireFrame f;
                try {
                    f = PcapngInput.frame(p);
                } catch (org.tracewire.wire.WireFormatException e) {
                    continue;    // not a readable frame: it cannot be the row's
                }
                if (f == null) {
                    continue;
                }
                WireHeader h = f.header();
                if (f.body() != null && h.timeNs() == row.ts() && h.cpu() == row.cpu() && f.body().getInt(4) == row.pid()) {
                    return n;
                }
            }
        }
    }
}
