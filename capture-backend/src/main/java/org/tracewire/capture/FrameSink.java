package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.tracewire.format.EventFormat;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.WireHeader;

/**
 * Where a capture's frames ({@code docs/wire-format.md}, version 2) go: every {@link FrameOutput},
 * in order, with the context that makes them self-describing. The capture engine's reader threads
 * encode each event frame ({@link FrameEncoder#event}: the 16-byte header and a copy of the record
 * payload) into their batches, leaving {@link FrameOutput#HEADROOM} bytes in front; its emitter
 * thread hands them here in time order ({@link #event}), and calls {@link #finish} at the end.
 *
 * <p>Here, on that one thread: the context messages each event needs are sent before it
 * ({@link ContextTracker}: CAPTURE first, then LOST, FORMAT, SYMBOLS, PROCESS as due), every frame
 * gets its per-cpu-value sequence number (§2: numbered in the order frames leave, context frames
 * included, so a gap means a frame lost after emission), and live interface outputs get the whole
 * context again every 2 s. Without a {@link CaptureContext} no context frames are sent (bare event
 * frames, for tests).
 */
public final class FrameSink implements AutoCloseable {
    /** Events between two checks of the clock for a due repeat. */
    static final int REPEAT_CHECK_EVENTS = 4096;

    private final List<FrameOutput> outputs;
    private final FrameOutput[] outs;
    private final boolean anyRepeats;
    private final CaptureContext context;
    private final ContextTracker tracker;
    private final FrameEncoder encoder = new FrameEncoder();
    private final boolean littleEndian;
    private final int[] sequences = new int[0x10000];
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(FrameOutput.HEADROOM + 2048);
    // written by the emitting thread only; published with release stores (no fence per event), read anywhere
    private long frameCount;
    private long byteCount;
    private long eventCount;
    private long contextCount;
    private final AtomicLong frames = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong contextFrames = new AtomicLong();
    private long lastTime;
    private int sinceCheck;
    private boolean begun;

    /**
     * @param outputs where frames go, in order
     * @param context what the context messages say, or null to send none
     */
    public FrameSink(List<FrameOutput> outputs, CaptureContext context) {
        this.outputs = List.copyOf(outputs);
        this.outs = this.outputs.toArray(new FrameOutput[0]);
        this.anyRepeats = this.outputs.stream().anyMatch(FrameOutput::repeatsContext);
        this.context = context;
        this.tracker = context == null ? null : new ContextTracker(context, this::sendContext);
        this.littleEndian = context == null || context.layout().byteOrder() == ByteOrder.LITTLE_ENDIAN;
    }

    /** The context the frames carry, or null. */
    public CaptureContext context() {
        return context;
    }

    /**
     * Sends the CAPTURE message (§4.1): first, before any other frame. Called before the first event
     * (with its time, so a file stays in time order; and only once tracing runs, so a capture tool
     * started during {@code --delay} sees it) or by {@link #finish}; idempotent.
     *
     * @param timeNs the frame's time, ns since the epoch
     */
    public void begin(long timeNs) throws IOException {
        if (begun) {
            return;
        }
        begun = true;
        lastTime = timeNs;
        if (tracker != null) {
            tracker.begin(timeNs);
        }
    }

    /**
     * Writes one event frame to every output, after the context it needs.
     *
     * @param buf    holds the frame (big-endian header at {@code frame}); the {@link FrameOutput#HEADROOM}
     *               bytes before it are free; position and limit are changed
     * @param frame  index of the frame in {@code buf}
     * @param length frame bytes (16 + payload)
     * @param format the event's format
     * @param cpu    its CPU
     * @param timeNs its time (the frame header's)
     * @param lost   events its CPU lost since its previous event (a LOST message goes first), else 0
     * @throws IOException when an output fails
     */
    public void event(ByteBuffer buf, int frame, int length, EventFormat format, int cpu, long timeNs, long lost)
            throws IOException {
        if (!begun) {
            begin(timeNs);
        }
        lastTime = timeNs;
        buf.limit(frame + length);
        if (tracker != null) {
            if (lost > 0) {
                tracker.lost(cpu, lost, timeNs);
            }
            tracker.beforeEvent(buf, frame + WireHeader.SIZE, length - WireHeader.SIZE, format, cpu, timeNs);
            if (anyRepeats && ++sinceCheck >= REPEAT_CHECK_EVENTS) {
                sinceCheck = 0;
                repeatIfDue();
            }
        }
        putSequence(buf, frame, cpu);
        for (FrameOutput out : outs) {
            buf.limit(frame + length).position(frame);
            out.write(buf, timeNs, 0);
        }
        frames.lazySet(++frameCount);
        events.lazySet(++eventCount);
        bytes.lazySet(byteCount += length);
    }

    /**
     * Reports events lost on a CPU after its last event frame (or on events not emitted): a LOST
     * message at the end of the stream (§4.5), whose pcapng drop count the statistics block totals.
     *
     * @param cpu  the CPU
     * @param lost events, at least 1
     */
    public void lostAtEnd(int cpu, long lost) throws IOException {
        finish();
        if (tracker != null) {
            tracker.lost(cpu, lost, lastTime);
        } else {
            for (FrameOutput out : outputs) {
                out.dropsAfterLast(cpu, lost);
            }
        }
    }

    /** Ends the stream: a capture without any event still starts with its CAPTURE frame. */
    public void finish() throws IOException {
        if (!begun) {
            begin(lastTime != 0 ? lastTime : ClockSync.epochNanos(java.time.Instant.now()));
        }
    }

    private void putSequence(ByteBuffer buf, int frame, int cpu) {
        int s = sequences[cpu]++;
        buf.putInt(frame + 4, buf.order() == ByteOrder.BIG_ENDIAN ? s : Integer.reverseBytes(s));
    }

    /** {@link ContextTracker.Out}: each fragment frame through the scratch buffer to the outputs. */
    private void sendContext(ContextMessage m, int cpu, long timeNs, long lost, boolean repeatOnly) throws IOException {
        List<ByteBuffer> fragments = encoder.context(m, cpu, littleEndian, timeNs);
        for (ByteBuffer f : fragments) {
            int n = f.remaining();
            ByteBuffer s = n + FrameOutput.HEADROOM <= scratch.capacity() ? scratch
                    : ByteBuffer.allocateDirect(FrameOutput.HEADROOM + n);
            s.clear().position(FrameOutput.HEADROOM);
            s.put(f).flip().position(FrameOutput.HEADROOM);
            putSequence(s, FrameOutput.HEADROOM, cpu);
            for (FrameOutput out : outputs) {
                if (repeatOnly && !out.repeatsContext()) {
                    continue;
                }
                s.limit(FrameOutput.HEADROOM + n).position(FrameOutput.HEADROOM);
                out.write(s, timeNs, lost);
            }
            lost = 0;
            frames.lazySet(++frameCount);
            contextFrames.lazySet(++contextCount);
            bytes.lazySet(byteCount += n);
        }
    }

    private void repeatIfDue() throws IOException {
        if (tracker != null && anyRepeats && begun && tracker.repeatDue(System.nanoTime())) {
            tracker.repeat(ClockSync.epochNanos(java.time.Instant.now()));
        }
    }

    /** Pushes out anything the outputs buffer. */
    public void flush() throws IOException {
        for (FrameOutput out : outputs) {
            out.flush();
        }
    }

    /**
     * Tells every output that the emitter is idle ({@link FrameOutput#idle()}), and repeats the
     * context on live interfaces when due. Called from the emitting thread.
     */
    public void idle() throws IOException {
        if (begun) {
            repeatIfDue();
        }
        for (FrameOutput out : outputs) {
            out.idle();
        }
    }

    /** Frames written (event and context frames; per output). */
    public long frames() {
        return frames.get();
    }

    /** Event frames written. */
    public long events() {
        return events.get();
    }

    /** Context frames written (repeats included). */
    public long contextFrames() {
        return contextFrames.get();
    }

    /** Bytes of frames written (bare frames, per output). */
    public long bytes() {
        return bytes.get();
    }

    /** Event frames an output cut to its maximum frame size (the largest count of any output). */
    public long truncated() {
        long t = 0;
        for (FrameOutput out : outputs) {
            t = Math.max(t, out.truncated());
        }
        return t;
    }

    /** Addresses and tasks the context could not describe because a cap was reached. */
    public long contextDropped() {
        return tracker == null ? 0 : tracker.dropped();
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
