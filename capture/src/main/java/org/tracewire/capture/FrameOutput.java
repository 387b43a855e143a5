package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.BiConsumer;
import org.tracewire.wire.Ethernet;

/**
 * A place frames go: a TAP interface, an existing interface, a pcapng file. Frames are bare
 * tracewire frames ({@code docs/wire-format.md} §2: the 16-byte header and the body); an output on
 * a network interface puts the Ethernet header ({@link Ethernet}) in front, a pcapng file writes
 * them as they are (link type 162).
 */
public interface FrameOutput extends AutoCloseable {
    /**
     * Bytes before every frame's position that an output may overwrite, e.g. with the Ethernet
     * header: the capture engine leaves this room in front of each frame.
     */
    int HEADROOM = Ethernet.HEADER;

    /**
     * Writes one frame (from {@code frame}'s position to its limit; the position may move).
     *
     * @param frame      the bare tracewire frame, a direct buffer; the {@link #HEADROOM} bytes
     *                   before its position are scratch space for this call
     * @param timeNs     the frame's time: ns since the Unix epoch (UTC), or the raw trace clock
     *                   when the frame has {@code FLAG_RAW_CLOCK}
     * @param lostBefore events lost on the frame's CPU just before it (set on the LOST context frame
     *                   that reports them, 0 on every other frame)
     * @throws IOException when the output fails
     */
    void write(ByteBuffer frame, long timeNs, long lostBefore) throws IOException;

    /**
     * True for live network outputs, which get the capture's context again every 2 s so a capture
     * tool started late can decode ({@code docs/wire-format.md} §6). Files do not. Default false.
     */
    default boolean repeatsContext() {
        return false;
    }

    /**
     * Events lost on a CPU that no frame carries (the remote relay's statistics block). Outputs that keep
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

    /** Event frames this output had to cut to its maximum frame size (flagged truncated). */
    default long truncated() {
        return 0;
    }

    /**
     * The capture gives up on this output after it failed ({@code e}): later calls of
     * {@link #close()} release it without reporting the same failure again, saving what can be
     * saved (a pcapng file is cut back to its last whole block). Default: nothing.
     *
     * @param e the failure
     * @return the failure as the summary names it
     */
    default String abandon(IOException e) {
        return reason(e);
    }

    /** An I/O failure in a few words: its message without the "writing the file failed: " wrappers. */
    static String reason(IOException e) {
        Throwable t = e;
        while (t.getCause() instanceof IOException c && c.getMessage() != null) {
            t = c;
        }
        String m = t.getMessage();
        return m == null ? t.getClass().getSimpleName() : m;
    }

    /** Human-readable description, e.g. "interface tw0" or "file out.pcapng". */
    String describe();

    /** Frames this output holds or has sent so far, or -1 when it does not count them. */
    default long frames() {
        return -1;
    }

    /**
     * What the summary says this output holds: its description and frame count ("file F 8801
     * frames"), or the description alone when it does not count them; a ring names each file.
     */
    default String held() {
        long n = frames();
        return n < 0 ? describe() : describe() + " " + n + " frames";
    }

    @Override
    void close() throws IOException;

    /**
     * Writes one bare frame to each output in turn (for a context repeat only to those that
     * {@link #repeatsContext()}): copied once into {@code scratch} behind {@link #HEADROOM} free
     * bytes (into a direct buffer of its own when it does not fit), and each output given it from
     * its first byte, since an output may move the position and use the headroom.
     *
     * @param outputs    the outputs, in order
     * @param scratch    a direct buffer the caller owns (its content is overwritten)
     * @param frame      the frame, position to limit; its position is moved to its limit
     * @param timeNs     the frame's time ({@link #write})
     * @param lost       events lost just before it ({@link #write})
     * @param repeatOnly true for a context repeat: outputs that do not repeat context are skipped
     * @throws IOException when an output fails
     */
    static void writeEach(List<FrameOutput> outputs, ByteBuffer scratch, ByteBuffer frame, long timeNs, long lost,
                          boolean repeatOnly) throws IOException {
        IOException[] first = new IOException[1];
        writeEach(outputs, scratch, frame, timeNs, lost, repeatOnly, (o, e) -> {
            if (first[0] == null) {
                first[0] = e;
            }
        });
        if (first[0] != null) {
            throw first[0];
        }
    }

    /**
     * {@link #writeEach(List, ByteBuffer, ByteBuffer, long, long, boolean)}, handing an output's
     * failure to {@code failed} and going on with the next output.
     *
     * @param failed receives an output that failed and why
     */
    static void writeEach(List<FrameOutput> outputs, ByteBuffer scratch, ByteBuffer frame, long timeNs, long lost,
                          boolean repeatOnly, BiConsumer<FrameOutput, IOException> failed) {
        int n = frame.remaining();
        ByteBuffer s = n + HEADROOM <= scratch.capacity() ? scratch : ByteBuffer.allocateDirect(HEADROOM + n);
        s.clear().position(HEADROOM);
        s.put(frame);
        for (FrameOutput out : outputs) {
            if (repeatOnly && !out.repeatsContext()) {
                continue;
            }
            s.limit(HEADROOM + n).position(HEADROOM);
            try {
                out.write(s, timeNs, lost);
            } catch (IOException e) {
                failed.accept(out, e);
            }
        }
    }
}
