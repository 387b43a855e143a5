package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.tracewire.wire.MacAddress;

/**
 * Frames onto a TAP interface tracewire created ({@link TapDevice}), in Ethernet
 * ({@link EthernetFraming}); closing removes the interface. Repeats the capture's context every
 * 2 s for capture tools started late.
 */
public final class TapOutput implements FrameOutput {
    private final TapDevice tap;
    private final EthernetFraming framing;

    /**
     * Creates the TAP interface {@code name}.
     *
     * @param source   the frames' Ethernet source (the traced host)
     * @param maxFrame largest Ethernet frame, bytes (event frames beyond it are cut and flagged)
     * @throws IOException when it exists or cannot be made
     */
    public TapOutput(String name, MacAddress source, int maxFrame) throws IOException {
        this.tap = TapDevice.create(name);
        this.framing = new EthernetFraming(source, maxFrame);
    }

    @Override
    public void write(ByteBuffer frame, long timeNs, long lostBefore) throws IOException {
        framing.frame(frame);
        try {
            tap.write(frame);
            frames++;
        } finally {
            framing.restore(frame);
        }
    }

    @Override
    public long frames() {
        return frames;
    }

    /** Frames written to the interface (emitting thread; read at the end). */
    private long frames;

    @Override
    public boolean repeatsContext() {
        return true;
    }

    @Override
    public long truncated() {
        return framing.truncated();
    }

    @Override
    public String describe() {
        return "interface " + tap.name();
    }

    @Override
    public void close() {
        tap.close();
    }
}
