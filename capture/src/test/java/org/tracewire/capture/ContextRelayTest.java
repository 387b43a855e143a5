package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.tracewire.wire.ContextAssembler;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.ContextPlanner;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireDecoder;
import org.tracewire.wire.WireFrame;
import org.tracewire.wire.WireHeader;

/**
 * {@link ContextRelay}: a relayed stream reaches a file as it came, and a live output gets its
 * context again every 2 s, numbered on from the stream's own context (no message id twice), so a
 * receiver that starts at a repeat has every FORMAT and task.
 */
class ContextRelayTest {
    static final long T0 = 1_700_000_000_000_000_000L;

    /** An output that keeps every frame it is given (position to limit), as a TAP or a file. */
    static final class Kept implements FrameOutput {
        final boolean live;
        final List<byte[]> frames = new ArrayList<>();
        final List<Long> lost = new ArrayList<>();

        Kept(boolean live) {
            this.live = live;
        }

        @Override
        public void write(ByteBuffer frame, long timeNs, long lostBefore) {
            byte[] b = new byte[frame.remaining()];
            frame.get(b);
            frames.add(b);
            lost.add(lostBefore);
        }

        @Override
        public boolean repeatsContext() {
            return live;
        }

        @Override
        public String describe() {
            return live ? "live" : "file";
        }

        @Override
        public void close() {
        }
    }

    /** A remote capture's stream: its encoder's frames, in the order it sent them. */
    static final class Remote {
        final FrameEncoder encoder = new FrameEncoder();
        final List<byte[]> frames = new ArrayList<>();
        final ContextMessage capture = ContextMessage.builder(FrameKind.CAPTURE).text(ContextMessage.CAPTURE_HOST, "far")
                .text(ContextMessage.CAPTURE_KERNEL_RELEASE, "9.9.0").build();
        /** Big enough for three fragments (each at most FrameEncoder.FRAGMENT_BYTES). */
        final ContextMessage format = ContextMessage.builder(FrameKind.FORMAT).u16(ContextMessage.FORMAT_ID, 316)
                .text(ContextMessage.FORMAT_NAME, "sched_switch").text(ContextMessage.FORMAT_TEXT, "x".repeat(3000)).build();
        final ContextMessage tasks = ContextMessage.builder(FrameKind.PROCESS).task(42, 40, "worker").build();

        void context(ContextMessage m, int cpu) {
            for (ByteBuffer f : encoder.context(m, cpu, true, T0)) {
                byte[] b = new byte[f.remaining()];
                f.get(b);
                frames.add(b);
            }
        }

        byte[] event(int cpu, long t) {
            ByteBuffer payload = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putShort(0, (short) 316).putInt(4, 42);
            ByteBuffer out = ByteBuffer.allocate(64);
            int n = encoder.event(ByteOrder.LITTLE_ENDIAN, payload, cpu, t, false, out);
            byte[] b = new byte[n];
            out.flip().get(b);
            frames.add(b);
            return b;
        }
    }

    private static WireHeader header(byte[] frame) {
        return WireDecoder.decodeBare(frame).header();
    }

    @Test
    void aLiveOutputGetsTheContextAgainAndAFileTheStreamAsItCame() throws Exception {
        Remote remote = new Remote();
        remote.context(remote.capture, WireHeader.NO_CPU);
        remote.context(remote.format, WireHeader.NO_CPU);
        remote.context(remote.tasks, WireHeader.NO_CPU);
        remote.event(0, T0 + 1);
        int beforeRepeat = remote.frames.size();
        byte[] second = remote.event(1, T0 + 2);
        remote.context(ContextMessage.builder(FrameKind.LOST).u64(ContextMessage.LOST_EVENTS, 7).build(), 1);
        remote.event(1, T0 + 3);
        assertEquals(5, remote.encoder.nextSequence(WireHeader.NO_CPU), "CAPTURE, three FORMAT fragments, PROCESS");

        long[] now = {0};
        Kept live = new Kept(true);
        Kept file = new Kept(false);
        ContextRelay relay = new ContextRelay(List.of(file, live), () -> now[0]);
        for (int i = 0; i < remote.frames.size(); i++) {
            if (i == beforeRepeat) {
                now[0] += ContextPlanner.REPEAT_NS; // 2 s later, before the second event
            }
            relay.relay(remote.frames.get(i), header(remote.frames.get(i)).timeNs(), 0);
        }
        relay.finish();

        assertEquals(1, relay.repeats());
        assertEquals(remote.frames.size(), file.frames.size(), "a file gets no repeat");
        for (int i = 0; i < remote.frames.size(); i++) {
            assertArrayEquals(remote.frames.get(i), file.frames.get(i), "file frame " + i + " as the remote sent it");
        }

        // the live output: the stream, and before the second event CAPTURE, FORMAT (3 fragments) and PROCESS again
        assertEquals(remote.frames.size() + 5, live.frames.size());
        int at = indexOf(live.frames, second);
        assertEquals(beforeRepeat + 5, at, "the repeat goes right before the frame that found it due");
        List<byte[]> repeat = live.frames.subList(beforeRepeat, at);
        ContextAssembler late = new ContextAssembler(); // a receiver that starts at the repeat
        List<ContextMessage> got = new ArrayList<>();
        long sequence = 5; // the stream's own context frames took 0..4
        for (byte[] f : repeat) {
            WireFrame w = WireDecoder.decodeBare(f);
            assertEquals(WireHeader.NO_CPU, w.header().cpu());
            assertEquals(sequence++, w.header().sequence(), "numbered on from the stream's context frames");
            assertEquals(1, w.fragment().messageId(), "a new message id of its kind, not the stream's 0 again");
            assertTrue((w.header().flags() & WireHeader.FLAG_LITTLE_ENDIAN) != 0, "the remote kernel's byte order");
            ContextMessage.Parsed p = late.add("tap", w);
            if (p != null) {
                got.add(p.message());
            }
        }
        assertEquals(List.of(remote.capture, remote.format, remote.tasks), got);
        // event and LOST frames keep the remote's per-CPU numbering and the LOST frame its drop count slot
        for (int i = at; i < live.frames.size(); i++) {
            assertArrayEquals(remote.frames.get(i - 5), live.frames.get(i));
        }
    }

    @Test
    void framesItCannotTakeApartAndUnfinishedMessagesArriveAsTheyCame() throws Exception {
        Remote remote = new Remote();
        remote.context(remote.capture, WireHeader.NO_CPU);
        remote.context(remote.format, WireHeader.NO_CPU);
        byte[] firstFragment = remote.frames.get(1);
        byte[] bad = remote.frames.get(2).clone();
        bad[WireHeader.SIZE + 4] = 0x7f; // fragment index 0x7f.. of 3: malformed
        Kept live = new Kept(true);
        Kept file = new Kept(false);
        ContextRelay relay = new ContextRelay(List.of(live, file), () -> 0);
        relay.relay(remote.frames.get(0), T0, 0);
        relay.relay(firstFragment, T0, 0);
        assertEquals(1, live.frames.size(), "a fragment waits for the rest of its message");
        relay.relay(bad, T0, 0);
        assertEquals(3, live.frames.size(), "the malformed frame, after the fragment held for its message");
        assertArrayEquals(firstFragment, live.frames.get(1));
        assertArrayEquals(bad, live.frames.get(2));

        // a message cut off by the end of the stream: its fragments are written at finish
        ContextRelay cut = new ContextRelay(List.of(live), () -> 0);
        live.frames.clear();
        cut.relay(remote.frames.get(0), T0, 0);
        cut.relay(firstFragment, T0, 0);
        assertEquals(1, live.frames.size());
        cut.finish();
        assertEquals(2, live.frames.size());
        assertArrayEquals(firstFragment, live.frames.get(1));
    }

    @Test
    void withoutALiveOutputNothingIsReencodedOrRepeated() throws Exception {
        Remote remote = new Remote();
        remote.context(remote.capture, WireHeader.NO_CPU);
        remote.event(0, T0 + 1);
        byte[] odd = remote.frames.get(0).clone();
        odd[WireHeader.SIZE + 3] = 9; // message id 9: a relay with a live output would renumber it
        long[] now = {0};
        Kept file = new Kept(false);
        ContextRelay relay = new ContextRelay(List.of(file), () -> now[0]);
        relay.relay(odd, T0, 0);
        now[0] += 3 * ContextPlanner.REPEAT_NS;
        relay.relay(remote.frames.get(1), T0 + 1, 4);
        relay.finish();
        assertEquals(0, relay.repeats());
        assertEquals(2, file.frames.size());
        assertArrayEquals(odd, file.frames.get(0));
        assertArrayEquals(remote.frames.get(1), file.frames.get(1));
        assertEquals(List.of(0L, 4L), file.lost, "drop counts go through");
        assertNotNull(header(file.frames.get(1)));
    }

    private static int indexOf(List<byte[]> frames, byte[] frame) {
        for (int i = 0; i < frames.size(); i++) {
            if (Arrays.equals(frames.get(i), frame)) {
                return i;
            }
        }
        return -1;
    }
}
