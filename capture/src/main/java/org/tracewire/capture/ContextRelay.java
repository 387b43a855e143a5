package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.tracewire.wire.ContextAssembler;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.ContextPlanner;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireDecoder;
import org.tracewire.wire.WireFormatException;
import org.tracewire.wire.WireFrame;
import org.tracewire.wire.WireHeader;

/**
 * Writes the frames of a capture made elsewhere (a remote host's stream, {@code capture --remote})
 * to local outputs, and gives the live ones among them (TAP, {@code --send-on}:
 * {@link FrameOutput#repeatsContext()}) that stream's context again every
 * {@link ContextPlanner#REPEAT_NS}, as a local capture does ({@code docs/wire-format.md} §6), so a
 * capture tool started after the relay began can still decode what follows.
 *
 * <p>Without a live output every frame is written as it came. With one, the frames that concern no
 * CPU ({@link WireHeader#NO_CPU}: CAPTURE, FORMAT, SYMBOLS, PROCESS) are reassembled into their
 * messages, kept for the repeats, and written again through this relay's own {@link FrameEncoder},
 * so the repeats and the stream's own context share one numbering of message ids and sequence
 * numbers (§2, §4) and no id is used twice. EVENT and LOST frames (numbered per CPU by the remote)
 * are written as they came. A context frame this relay cannot take apart (malformed, a message
 * that parses with errors, a reserved kind) is written as it came too, and the fragments of a
 * message still incomplete at {@link #finish} are written then: nothing is dropped.
 *
 * <p>A repeat is due before the first frame relayed {@link ContextPlanner#REPEAT_NS} after the
 * last one (a stream that pauses gets its repeat with its next frame); it goes to the live outputs
 * only, with the time of the frame that follows it. Not thread-safe.
 */
public final class ContextRelay {
    private static final Object SCOPE = "relay";

    private final List<FrameOutput> outputs;
    private final boolean anyRepeats;
    private final LongSupplier nanoTime;
    private final FrameEncoder encoder = new FrameEncoder();
    private final ContextAssembler assembler = new ContextAssembler();
    /** Frames of messages still incomplete, as they came, by (kind, message id). */
    private final Map<Long, List<byte[]>> held = new LinkedHashMap<>();
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(FrameOutput.HEADROOM + FrameEncoder.MAX_FRAME);
    /** What a repeat sends: the latest CAPTURE, then every FORMAT, SYMBOLS and PROCESS message in the order they came. */
    private ContextMessage capture;
    private final List<ContextMessage> described = new ArrayList<>();
    private boolean littleEndian;
    private long lastRepeat;
    private long repeats;

    /**
     * @param outputs where frames go, in order (not closed here)
     */
    public ContextRelay(List<FrameOutput> outputs) {
        this(outputs, System::nanoTime);
    }

    /** With the clock that times the repeats ({@link System#nanoTime()} or a test's). */
    ContextRelay(List<FrameOutput> outputs, LongSupplier nanoTime) {
        this.outputs = List.copyOf(outputs);
        this.anyRepeats = this.outputs.stream().anyMatch(FrameOutput::repeatsContext);
        this.nanoTime = nanoTime;
        this.lastRepeat = nanoTime.getAsLong();
    }

    /**
     * Writes one relayed frame to every output, after a repeat of the context when one is due.
     *
     * @param frame     a bare tracewire frame ({@code docs/wire-format.md} §2), not changed
     * @param timeNs    its time: ns since the Unix epoch, or the raw trace clock (as the stream had it)
     * @param dropCount events lost just before it, as the stream's packet said (0 for most frames)
     * @throws IOException when an output fails
     */
    public void relay(byte[] frame, long timeNs, long dropCount) throws IOException {
        if (!anyRepeats) {
            write(ByteBuffer.wrap(frame), timeNs, dropCount, false);
            return;
        }
        if (capture != null && nanoTime.getAsLong() - lastRepeat >= ContextPlanner.REPEAT_NS) {
            repeat(timeNs);
        }
        FrameKind kind = frame.length >= WireHeader.SIZE ? FrameKind.of(WireHeader.kindCode(frame)) : null;
        int cpu = frame.length >= WireHeader.SIZE ? WireHeader.cpu(frame) : -1;
        if (kind == null || kind == FrameKind.EVENT || kind == FrameKind.LOST || cpu != WireHeader.NO_CPU) {
            write(ByteBuffer.wrap(frame), timeNs, dropCount, false);
            return;
        }
        WireFrame decoded;
        ContextMessage.Parsed parsed;
        try {
            decoded = WireDecoder.decodeBare(frame);
            parsed = assembler.add(SCOPE, decoded);
        } catch (WireFormatException e) {
            writeHeld(kind, frame, timeNs, dropCount);
            return;
        }
        long key = ((long) kind.code() << 32) | decoded.fragment().messageId();
        if (parsed == null) {
            held.computeIfAbsent(key, k -> new ArrayList<>()).add(frame);
            return;
        }
        if (parsed.truncated()) {
            writeHeld(kind, frame, timeNs, dropCount);
            return;
        }
        held.remove(key);
        ContextMessage m = parsed.message();
        littleEndian = (decoded.header().flags() & WireHeader.FLAG_LITTLE_ENDIAN) != 0;
        if (kind == FrameKind.CAPTURE) {
            capture = m;
        } else {
            described.add(m);
        }
        send(m, timeNs, false);
    }

    /**
     * Writes the fragments of messages that never completed, as they came (call once the stream has
     * ended, before the outputs are closed).
     *
     * @throws IOException when an output fails
     */
    public void finish() throws IOException {
        for (List<byte[]> frames : held.values()) {
            for (byte[] f : frames) {
                write(ByteBuffer.wrap(f), WireDecoder.decodeBare(f).header().timeNs(), 0, false);
            }
        }
        held.clear();
    }

    /** Context repeats sent so far (each a CAPTURE and everything described after it). */
    public long repeats() {
        return repeats;
    }

    /** A frame written as it came, after the held fragments of its message (a message this relay gives up on). */
    private void writeHeld(FrameKind kind, byte[] frame, long timeNs, long dropCount) throws IOException {
        if (frame.length >= WireHeader.SIZE + 4) {
            long id = ByteBuffer.wrap(frame, WireHeader.SIZE, 4).getInt() & 0xffff_ffffL;
            List<byte[]> before = held.remove(((long) kind.code() << 32) | id);
            if (before != null) {
                for (byte[] f : before) {
                    write(ByteBuffer.wrap(f), timeNs, 0, false);
                }
            }
        }
        write(ByteBuffer.wrap(frame), timeNs, dropCount, false);
    }

    private void repeat(long timeNs) throws IOException {
        lastRepeat = nanoTime.getAsLong();
        repeats++;
        send(capture, timeNs, true);
        for (ContextMessage m : described) {
            send(m, timeNs, true);
        }
    }

    private void send(ContextMessage m, long timeNs, boolean repeatOnly) throws IOException {
        for (ByteBuffer f : encoder.context(m, WireHeader.NO_CPU, littleEndian, timeNs)) {
            write(f, timeNs, 0, repeatOnly);
        }
    }

    /** One bare frame (position to limit) to every output, or to the live ones for a repeat. */
    private void write(ByteBuffer frame, long timeNs, long lost, boolean repeatOnly) throws IOException {
        FrameOutput.writeEach(outputs, scratch, frame, timeNs, lost, repeatOnly);
    }
}
