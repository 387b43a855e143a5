package org.tracewire.wire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.tracewire.record.EventRecord;

/**
 * Writes records as a self-describing stream of tracewire version-2 bare frames
 * ({@code docs/wire-format.md} §6): the CAPTURE message first, then before each EVENT frame the
 * context {@link ContextPlanner} says it needs and a LOST message when its CPU lost events just before
 * it. What {@code import} and the tests write; a live capture sends the same messages. Frame times:
 * the record's trace-clock time + the clock offset (the CAPTURE message's item 6), or the raw trace
 * clock; context frames take the time of the event they precede. Not thread-safe.
 */
public final class RecordFrames {
    /** Where frames go, e.g. a pcapng interface. */
    public interface Out {
        /**
         * @param frame          a bare frame, position to limit (valid during the call only)
         * @param timeNs         its time (ns since the epoch, or the raw trace clock)
         * @param originalLength its length before truncation
         * @param lostBefore     events lost on its CPU just before it (an EVENT frame's drop count), else 0
         * @throws IOException when writing fails
         */
        void write(ByteBuffer frame, long timeNs, int originalLength, long lostBefore) throws IOException;
    }

    private final FrameEncoder encoder;
    private final ContextMessage capture;
    private final ContextPlanner sight;
    private final long clockOffset;
    private final boolean rawClock;
    private final boolean littleEndian;
    private final Out out;
    private final ByteBuffer frame;
    private boolean started;
    private long events;
    private long contextFrames;
    private long truncated;

    /**
     * @param encoder      numbers and encodes the frames (its maximum frame size applies)
     * @param capture      the CAPTURE message, sent first
     * @param sight        what to describe before each event (a planner made by {@link ContextPlanner#forRecords})
     * @param clockOffset  added to a record's time stamp for its frame time (the CAPTURE offset); 0 with {@code rawClock}
     * @param rawClock     frame times are the raw trace clock ({@link WireHeader#FLAG_RAW_CLOCK})
     * @param littleEndian the traced kernel's byte order (flag of the context frames)
     * @param out          where frames go
     */
    public RecordFrames(FrameEncoder encoder, ContextMessage capture, ContextPlanner sight, long clockOffset,
                        boolean rawClock, boolean littleEndian, Out out) {
        this.encoder = encoder;
        this.capture = capture;
        this.sight = sight;
        this.clockOffset = rawClock ? 0 : clockOffset;
        this.rawClock = rawClock;
        this.littleEndian = littleEndian;
        this.out = out;
        this.frame = ByteBuffer.allocate(encoder.maxFrameSize());
    }

    /**
     * Writes one record's frames: CAPTURE (the first time), its context, LOST, its EVENT frame.
     *
     * @param r          the record (its time stamp in the trace clock)
     * @param lostBefore events its CPU lost just before it (0 or more; an unknown number, &lt; 0, is not sent)
     * @throws IOException when {@link Out} fails
     */
    public void event(EventRecord r, long lostBefore) throws IOException {
        long time = r.timestampNs() + clockOffset;
        start(time);
        for (ContextMessage m : sight.before(r)) {
            context(encoder.context(m, WireHeader.NO_CPU, littleEndian, time), time);
        }
        if (lostBefore > 0) {
            context(encoder.context(ContextMessages.lost(lostBefore), r.cpu(), littleEndian, time), time);
        }
        frame.clear();
        int full = WireHeader.SIZE + r.payload().remaining();
        int n = encoder.event(r.layout().byteOrder(), r.payload(), r.cpu(), time, rawClock, frame);
        if (n < full) {
            truncated++;
        }
        frame.flip();
        out.write(frame, time, full, Math.max(0, lostBefore));
        events++;
    }

    /**
     * Ends the stream: writes the CAPTURE message when no record came (so the file still says what
     * it is), and a LOST message for events lost after a CPU's last record.
     *
     * @param lostAfter per CPU, events lost after its last record (may be empty)
     * @param timeNs    time of those frames
     * @throws IOException when {@link Out} fails
     */
    public void finish(Map<Integer, Long> lostAfter, long timeNs) throws IOException {
        start(timeNs);
        for (var e : lostAfter.entrySet()) {
            if (e.getValue() > 0) {
                context(encoder.context(ContextMessages.lost(e.getValue()), e.getKey(), littleEndian, timeNs), timeNs);
            }
        }
    }

    private void start(long time) throws IOException {
        if (!started) {
            started = true;
            context(encoder.context(capture, WireHeader.NO_CPU, littleEndian, time), time);
        }
    }

    private void context(List<ByteBuffer> frames, long time) throws IOException {
        for (ByteBuffer b : frames) {
            out.write(b, time, b.remaining(), 0);
            contextFrames++;
        }
    }

    /** EVENT frames written. */
    public long events() {
        return events;
    }

    /** Context frames written. */
    public long contextFrames() {
        return contextFrames;
    }

    /** EVENT frames cut to the maximum frame size. */
    public long truncated() {
        return truncated;
    }
}
