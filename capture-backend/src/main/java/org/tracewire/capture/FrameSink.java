package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.WireHeader;

/**
 * Encodes each captured event into one tracewire frame ({@code docs/wire-format.md}) and writes
 * it to every {@link FrameOutput}. One reusable direct buffer: no allocation per frame.
 */
public final class FrameSink implements EventSink, CaptureEngine.Flushable {
    private final FrameEncoder encoder;
    private final List<FrameOutput> outputs;
    private final boolean rawClock;
    private final ByteBuffer frame;
    private long frames;
    private long bytes;
    private long truncated;

    /**
     * @param encoder  the frame encoder (formats prepared, identity hash set)
     * @param outputs  where frames go
     * @param rawClock true when event times are raw trace-clock values, not wall-clock ns
     */
    public FrameSink(FrameEncoder encoder, List<FrameOutput> outputs, boolean rawClock) {
        this.encoder = encoder;
        this.outputs = List.copyOf(outputs);
        this.rawClock = rawClock;
        this.frame = ByteBuffer.allocateDirect(encoder.maxFrameSize());
    }

    @Override
    public void accept(CapturedEvent e) throws IOException {
        frame.clear();
        int flags = rawClock ? WireHeader.FLAG_RAW_CLOCK : 0;
        int n = encoder.encode(e.record(), e.record().cpu(), e.sequence(), e.lostBefore(), e.wallNs(), flags, frame);
        frame.flip();
        if ((frame.get(17) & WireHeader.FLAG_TRUNCATED) != 0) {
            truncated++;
        }
        for (FrameOutput out : outputs) {
            frame.position(0);
            out.write(frame, e);
        }
        frames++;
        bytes += n;
    }

    @Override
    public void flush() throws IOException {
        for (FrameOutput out : outputs) {
            out.flush();
        }
    }

    /** Frames written. */
    public long frames() {
        return frames;
    }

    /** Bytes of frames written (per output). */
    public long bytes() {
        return bytes;
    }

    /** Frames whose event did not fit and was truncated. */
    public long truncated() {
        return truncated;
    }

    /** The outputs. */
    public List<FrameOutput> outputs() {
        return outputs;
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (FrameOutput out : outputs) {
            try {
                out.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
