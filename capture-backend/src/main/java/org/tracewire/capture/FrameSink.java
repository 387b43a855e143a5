package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import org.tracewire.format.EventFormat;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.MacAddress;
import org.tracewire.wire.WireHeader;

/**
 * Where a capture's frames ({@code docs/wire-format.md}) go: every {@link FrameOutput}, in
 * order. The capture engine's reader threads encode frames with their own encoder from
 * {@link #newEncoder()}; its emitter thread hands them, in time order, to
 * {@link #write(ByteBuffer, long, long, boolean)}.
 */
public final class FrameSink implements AutoCloseable {
    private final MacAddress destination;
    private final MacAddress source;
    private final long formatHash;
    private final int maxFrameSize;
    private final List<EventFormat> formats;
    private final List<FrameOutput> outputs;
    private final boolean rawClock;
    private volatile long frames;
    private volatile long bytes;
    private volatile long truncated;

    /**
     * @param destination  Ethernet destination of every frame
     * @param source       Ethernet source (identifies the traced host)
     * @param formatHash   identity hash of the kernel's formats
     * @param maxFrameSize largest frame in bytes (see {@link FrameEncoder})
     * @param formats      the captured events' formats (encoder plans are computed up front)
     * @param outputs      where frames go
     * @param rawClock     true when event times are raw trace-clock values, not wall-clock ns
     */
    public FrameSink(MacAddress destination, MacAddress source, long formatHash, int maxFrameSize,
                     Collection<EventFormat> formats, List<FrameOutput> outputs, boolean rawClock) {
        this.destination = destination;
        this.source = source;
        this.formatHash = formatHash;
        this.maxFrameSize = maxFrameSize;
        this.formats = List.copyOf(formats);
        this.outputs = List.copyOf(outputs);
        this.rawClock = rawClock;
    }

    /** A new encoder with this sink's addresses, hash and frame size, its plans prepared; one per thread. */
    public FrameEncoder newEncoder() {
        // TEMP backend compile (readers2): v2 encoder; backend2 replaces this
        return new FrameEncoder(Math.min(maxFrameSize, FrameEncoder.MAX_FRAME));
    }

    /** The largest frame in bytes. */
    public int maxFrameSize() {
        return maxFrameSize;
    }

    /** Header flags the encoder is given for every frame: {@link WireHeader#FLAG_RAW_CLOCK} or 0. */
    public int headerFlags() {
        return rawClock ? WireHeader.FLAG_RAW_CLOCK : 0;
    }

    /**
     * Writes one encoded frame to every output. Called from one thread.
     *
     * @param frame      the frame from its position to its limit; both are restored afterwards
     * @param timeNs     the event time (see {@link FrameOutput#write})
     * @param lostBefore events lost on its CPU since its previous frame (0 or N: always counted, see {@link CaptureEngine})
     * @param truncated  the encoder truncated this frame ({@link FrameEncoder#lastTruncated()})
     * @throws IOException when an output fails
     */
    public void write(ByteBuffer frame, long timeNs, long lostBefore, boolean truncated) throws IOException {
        int start = frame.position();
        int end = frame.limit();
        if (truncated) {
            this.truncated++;
        }
        for (FrameOutput out : outputs) {
            frame.limit(end).position(start);
            out.write(frame, timeNs, lostBefore);
        }
        frame.limit(end).position(start);
        frames++;
        bytes += end - start;
    }

    /**
     * Reports events lost on a CPU that no frame carries (lost after its last frame): each output
     * that keeps statistics counts them ({@link FrameOutput#dropsAfterLast}). Called from the
     * emitter thread after the last frame.
     *
     * @param cpu   the CPU
     * @param drops events, at least 0
     */
    public void addDrops(int cpu, long drops) throws IOException {
        for (FrameOutput out : outputs) {
            out.dropsAfterLast(cpu, drops);
        }
    }

    /** Pushes out anything the outputs buffer. */
    public void flush() throws IOException {
        for (FrameOutput out : outputs) {
            out.flush();
        }
    }

    /** Tells every output that the emitter is idle ({@link FrameOutput#idle()}). Called from the emitting thread. */
    public void idle() throws IOException {
        for (FrameOutput out : outputs) {
            out.idle();
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
