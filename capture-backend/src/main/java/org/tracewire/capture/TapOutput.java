package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;

/** Frames onto a TAP interface tracewire created ({@link TapDevice}); closing removes the interface. */
public final class TapOutput implements FrameOutput {
    private final TapDevice tap;

    /** Creates the TAP interface {@code name}. @throws IOException when it exists or cannot be made */
    public TapOutput(String name) throws IOException {
        this.tap = TapDevice.create(name);
    }

    @Override
    public void write(ByteBuffer frame, long timeNs, long lostBefore) throws IOException {
        tap.write(frame);
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
