package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;

/** A place frames go: a TAP interface, an existing interface, a pcapng file. */
public interface FrameOutput extends AutoCloseable {
    /**
     * Writes one frame (from {@code frame}'s position to its limit; the position may move).
     *
     * @param frame      the encoded Ethernet frame, a direct buffer
     * @param timeNs     the event's time: ns since the Unix epoch (UTC), or the raw trace clock
     *                   when the frame has {@code FLAG_RAW_CLOCK}
     * @param lostBefore events lost on the frame's CPU since its previous frame: 0 none, N known,
     *                   -1 some, count unknown
     * @throws IOException when the output fails
     */
    void write(ByteBuffer frame, long timeNs, long lostBefore) throws IOException;

    /** Pushes out anything buffered. */
    default void flush() throws IOException {
    }

    /** Human-readable description, e.g. "interface tw0" or "file out.pcapng". */
    String describe();

    @Override
    void close() throws IOException;
}
