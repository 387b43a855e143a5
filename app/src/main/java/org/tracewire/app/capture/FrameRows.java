package org.tracewire.app.capture;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.tracewire.input.FrameStream;
import org.tracewire.input.RecordInput;

/**
 * The rows of a live capture from the tracewire frames (wire format v2, bare) the backend streams,
 * in stream order: context frames (CAPTURE, FORMAT, SYMBOLS, PROCESS, LOST) carried in the same
 * stream are reassembled and applied as they come, so every event is decoded and rendered with its
 * capture's own formats, symbols and task names, on a machine without tracefs too (core's
 * {@link FrameStream}, the decoder {@code report} reads files with). One instance per capture; not
 * thread-safe (the backend client's reader thread feeds it).
 */
public final class FrameRows {
    /** The scope of the stream's context: one capture per backend stream. */
    private static final Object SCOPE = "backend";

    private final FrameStream stream = new FrameStream();
    private final RecordRows rows = new RecordRows();
    private long frames;

    /**
     * Decodes frames.
     *
     * @param batch bare frames, position to limit each (not changed), in stream order
     * @return the rows of the event frames among them whose format the stream described
     */
    public List<EventRow> rows(List<ByteBuffer> batch) {
        List<EventRow> out = new ArrayList<>(batch.size());
        for (ByteBuffer f : batch) {
            RecordInput.Event e = stream.bare(SCOPE, f, ++frames);
            if (e != null) {
                out.add(rows.row(e));
            }
        }
        return out;
    }

    /** False once an event frame carried the trace clock instead of the epoch (the raw-clock flag). */
    public boolean wallClock() {
        return !stream.rawClock();
    }

    /** Frames decoded so far (context and events). */
    public long frames() {
        return frames;
    }

    /** Events the kernel lost per CPU (LOST context), frames skipped and why. */
    public List<String> summary() {
        return stream.summary();
    }
}
