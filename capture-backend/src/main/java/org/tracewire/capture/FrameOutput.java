package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;

/** A place frames go: a TAP interface, an existing interface, a pcapng file. */
public interface FrameOutput extends AutoCloseable {
    /**
     * Writes one frame (from {@code frame}'s position to its limit; the position may move).
     *
     * @param frame the encoded Ethernet frame, a direct buffer
     * @param event the event it encodes (its time and lost-events count)
     * @throws IOException when the output fails
     */
    void write(ByteBuffer frame, CapturedEvent event) throws IOException;

    /** Pushes out anything buffered. */
    default void flush() throws IOException {
    }

    /** Human-readable description, e.g. "interface tw0" or "file out.pcapng". */
    String describe();

    @Override
    void close() throws IOException;
}
