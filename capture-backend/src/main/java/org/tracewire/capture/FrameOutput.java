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
     * @param lostBefore events lost on the frame's CPU since its previous frame: 0 none, else the
     *                   count (reconciled with the kernel's per-CPU stats; never unknown)
     * @throws IOException when the output fails
     */
    void write(ByteBuffer frame, long timeNs, long lostBefore) throws IOException;

    /**
     * Events lost on a CPU after its last frame (no frame carries them). Outputs that keep
     * statistics count them (pcapng: the Interface Statistics Block's {@code isb_ifdrop}); the
     * default ignores them.
     *
     * @param cpu   the CPU
     * @param drops events, at least 0
     */
    default void dropsAfterLast(int cpu, long drops) throws IOException {
    }

    /** Pushes out anything buffered. */
    default void flush() throws IOException {
    }

    /**
     * Called by the emitter when it has nothing to emit for now (at least every
     * {@code CaptureEngine.IDLE_WAIT_NS} while idle): an output that holds frames back may push
     * them out so a live reader sees them. Default: nothing.
     *
     * @throws IOException when the output fails
     */
    default void idle() throws IOException {
    }

    /** Human-readable description, e.g. "interface tw0" or "file out.pcapng". */
    String describe();

    @Override
    void close() throws IOException;
}
