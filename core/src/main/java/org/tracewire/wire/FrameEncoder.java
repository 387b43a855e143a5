package org.tracewire.wire;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Writes tracewire version-2 frames ({@code docs/wire-format.md}) without the Ethernet header:
 * the form pcapng files hold (link type {@value #LINKTYPE}); {@link Ethernet#wrap} adds the 14 bytes
 * for network interfaces. An event frame is the 16-byte header and a copy of the record payload, so
 * encoding allocates nothing and does no per-field work.
 *
 * <p>The encoder numbers frames: one u32 sequence per header cpu value (0..65535 and
 * {@link WireHeader#NO_CPU}), starting at 0 for each value, as §2 requires; and one message id per
 * context kind. So use one encoder per capture, from one thread (not thread-safe).
 */
public final class FrameEncoder {
    /** pcapng / pcap link type of bare tracewire frames: LINKTYPE_USER15. */
    public static final int LINKTYPE = 162;
    /** Largest frame a pcapng file holds (header + payload), bytes. */
    public static final int MAX_FRAME = 65535;
    /**
     * Bytes of a context message per fragment: an Ethernet frame of a context fragment is then at
     * most 1514 bytes (14 + 16 + 12 + 1472), the size of a frame on an MTU-1500 interface.
     */
    public static final int FRAGMENT_BYTES = 1514 - Ethernet.HEADER - WireHeader.SIZE - ContextFragment.HEAD;

    private final long[] sequences = new long[0x10000];
    private final long[] messageIds = new long[16];
    private final int maxFrameSize;

    /**
     * @param maxFrameSize the largest bare frame in bytes ({@value WireHeader#SIZE} + 8 ..
     *                     {@value #MAX_FRAME}); an event payload beyond it is cut and flagged
     *                     {@link WireHeader#FLAG_TRUNCATED}
     */
    public FrameEncoder(int maxFrameSize) {
        if (maxFrameSize < WireHeader.SIZE + 8 || maxFrameSize > MAX_FRAME) {
            throw new IllegalArgumentException("max frame size " + maxFrameSize + " outside "
                    + (WireHeader.SIZE + 8) + ".." + MAX_FRAME);
        }
        this.maxFrameSize = maxFrameSize;
    }

    /** An encoder for pcapng files (frames up to {@value #MAX_FRAME} bytes). */
    public FrameEncoder() {
        this(MAX_FRAME);
    }

    /** The largest frame this encoder writes, bytes. */
    public int maxFrameSize() {
        return maxFrameSize;
    }

    /**
     * Writes one EVENT frame at {@code out}'s position and advances it: the header, then the bytes
     * of {@code payload} from its position to its limit (neither is changed).
     *
     * @param order   the kernel's byte order (sets {@link WireHeader#FLAG_LITTLE_ENDIAN})
     * @param payload the record payload, from {@code common_type} to the record's end (tail padding included)
     * @param cpu     0..65534
     * @param timeNs  ns since the Unix epoch (or the raw clock with {@code rawClock})
     * @return bytes written: 16 + payload length, or {@link #maxFrameSize()} when cut (then the frame
     *         carries {@link WireHeader#FLAG_TRUNCATED})
     * @throws BufferOverflowException  when {@code out} has less room than the frame (nothing written,
     *                                  the sequence not used)
     * @throws IllegalArgumentException for a cpu outside 0..65534
     */
    public int event(ByteOrder order, ByteBuffer payload, int cpu, long timeNs, boolean rawClock, ByteBuffer out) {
        checkEventCpu(cpu);
        int at = out.position();
        if (out.limit() - at < eventSize(payload.remaining())) {
            throw new BufferOverflowException();
        }
        int n = event(order, payload, payload.position(), payload.remaining(), cpu, timeNs, rawClock, out, at);
        out.position(at + n);
        return n;
    }

    /**
     * Checks the cpu of an EVENT frame's header: 0..65534 ({@link WireHeader#NO_CPU}, 65535, is for
     * context frames that concern no CPU).
     *
     * @throws IllegalArgumentException for a cpu outside 0..65534
     */
    private static void checkEventCpu(int cpu) {
        if (cpu < 0 || cpu >= WireHeader.NO_CPU) {
            throw new IllegalArgumentException("cpu " + cpu + " outside 0..65534");
        }
    }

    /**
     * The length of the EVENT frame {@link #event} writes for a payload of {@code payloadLength}
     * bytes: 16 + the payload, or {@link #maxFrameSize()} when the payload is cut.
     */
    public int eventSize(int payloadLength) {
        return Math.min(WireHeader.SIZE + payloadLength, maxFrameSize);
    }

    /**
     * Writes one EVENT frame at absolute index {@code at} of {@code out}: what
     * {@link #event(ByteOrder, ByteBuffer, int, long, boolean, ByteBuffer)} writes for the payload
     * {@code src[from, from + length)}, without changing any buffer's position or limit (no view of
     * the payload to set up). The frame is {@link #eventSize}{@code (length)} bytes.
     *
     * @param order  the kernel's byte order (sets {@link WireHeader#FLAG_LITTLE_ENDIAN})
     * @param src    holds the record payload (copied as it is, whatever the buffer's order)
     * @param from   the payload's index in {@code src} ({@code common_type})
     * @param length the payload's length, bytes (tail padding included)
     * @param cpu    0..65534
     * @param timeNs ns since the Unix epoch (or the raw clock with {@code rawClock})
     * @param out    where the frame goes (any byte order: the header is big-endian)
     * @param at     the index of the frame's first byte in {@code out}
     * @return bytes written
     * @throws IndexOutOfBoundsException when the payload is not inside {@code src}'s limit or the frame
     *                                   does not fit below {@code out}'s limit (nothing written, the
     *                                   sequence not used)
     * @throws IllegalArgumentException  for a cpu outside 0..65534
     */
    public int event(ByteOrder order, ByteBuffer src, int from, int length, int cpu, long timeNs, boolean rawClock,
                     ByteBuffer out, int at) {
        checkEventCpu(cpu);
        Objects.checkFromIndexSize(from, length, src.limit());
        int copied = eventPayloadLength(length);
        Objects.checkFromIndexSize(at, WireHeader.SIZE + copied, out.limit());
        WireHeader.putAt(out, at, eventHeader(order, length, cpu, rawClock), timeNs);
        out.put(at + WireHeader.SIZE, src, from, copied);
        return WireHeader.SIZE + copied;
    }

    /**
     * The payload bytes an EVENT frame holds for a payload of {@code length} bytes: all of them, or
     * as many as fit {@link #maxFrameSize()} (the frame is then flagged truncated).
     */
    public int eventPayloadLength(int length) {
        return Math.min(length, maxFrameSize - WireHeader.SIZE);
    }

    /**
     * Numbers the next EVENT frame of {@code cpu} and returns its header's first 8 bytes as one
     * value, most significant byte first (§2: version, kind and flags, cpu, sequence); the header's
     * other 8 bytes are the time, ns. For a writer that puts the header in front of the payload
     * itself ({@link org.tracewire.pcapng.PcapngWriter#writePacket(int, long, long, long, ByteBuffer,
     * int, int)}), with {@link #eventPayloadLength} of the payload after it.
     *
     * @param order         the kernel's byte order (sets {@link WireHeader#FLAG_LITTLE_ENDIAN})
     * @param payloadLength the payload's whole length, bytes (sets {@link WireHeader#FLAG_TRUNCATED}
     *                      when the frame cannot hold it)
     * @param cpu           0..65534
     * @param rawClock      true when the time is the raw trace clock
     * @throws IllegalArgumentException for a cpu outside 0..65534 (the sequence not used)
     */
    public long eventHeader(ByteOrder order, int payloadLength, int cpu, boolean rawClock) {
        checkEventCpu(cpu);
        int flags = (order == ByteOrder.LITTLE_ENDIAN ? WireHeader.FLAG_LITTLE_ENDIAN : 0)
                | (rawClock ? WireHeader.FLAG_RAW_CLOCK : 0)
                | (WireHeader.SIZE + payloadLength > maxFrameSize ? WireHeader.FLAG_TRUNCATED : 0);
        long sequence = sequences[cpu];
        sequences[cpu] = (sequence + 1) & 0xffff_ffffL;
        return WireHeader.first(WireHeader.VERSION, FrameKind.EVENT.code(), flags, cpu, sequence);
    }

    /**
     * The frames of one context message: fragments of at most {@link #FRAGMENT_BYTES} message bytes,
     * each a complete bare frame, with the next message id of the kind and the next sequence numbers
     * of {@code cpu}.
     *
     * @param message       the message
     * @param cpu           the CPU it concerns, or {@link WireHeader#NO_CPU}
     * @param littleEndian  the traced kernel's byte order (the flag is set on context frames too)
     * @param timeNs        when the message was made, ns since the epoch
     * @return one or more frames, in order
     * @throws IllegalArgumentException when the message needs more than 65535 fragments (≈ 96 MB)
     */
    public List<ByteBuffer> context(ContextMessage message, int cpu, boolean littleEndian, long timeNs) {
        byte[] bytes = message.toBytes();
        int count = Math.max(1, (bytes.length + FRAGMENT_BYTES - 1) / FRAGMENT_BYTES);
        if (count > 0xffff) {
            throw new IllegalArgumentException("context message of " + bytes.length + " bytes needs " + count
                    + " fragments, more than 65535");
        }
        if (cpu < 0 || cpu > WireHeader.NO_CPU) {
            throw new IllegalArgumentException("cpu " + cpu + " outside 0..65535");
        }
        int kind = message.kind().code();
        long id = messageIds[kind];
        messageIds[kind] = (id + 1) & 0xffff_ffffL;
        List<ByteBuffer> frames = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int from = i * FRAGMENT_BYTES;
            int n = Math.min(FRAGMENT_BYTES, bytes.length - from);
            ByteBuffer f = ByteBuffer.allocate(WireHeader.SIZE + ContextFragment.HEAD + n);
            WireHeader.write(f, WireHeader.VERSION, kind, littleEndian ? WireHeader.FLAG_LITTLE_ENDIAN : 0, cpu,
                    sequences[cpu], timeNs);
            sequences[cpu] = (sequences[cpu] + 1) & 0xffff_ffffL;
            f.putInt((int) id).putShort((short) i).putShort((short) count).putInt(bytes.length);
            f.put(bytes, from, n);
            frames.add(f.flip());
        }
        return frames;
    }

    /** The sequence number the next frame with this cpu value gets (0..2^32-1). */
    public long nextSequence(int cpu) {
        return sequences[cpu];
    }

    /** Forgets all sequence numbers and message ids (a new capture). */
    public void reset() {
        Arrays.fill(sequences, 0);
        Arrays.fill(messageIds, 0);
    }
}
