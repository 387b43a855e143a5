package org.tracewire.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The assembler's memory stays bounded when fragments claim huge messages that never complete
 * (a hostile or broken stream): at most {@link ContextAssembler#MAX_PENDING_BYTES} held, oldest
 * dropped first, and a message that does complete afterwards still comes out.
 */
class ContextAssemblerBoundsTest {
    private static WireFrame fragment(long id, int index, int count, int length, int bytes) {
        ByteBuffer f = ByteBuffer.allocate(WireHeader.SIZE + ContextFragment.HEAD + bytes);
        new WireHeader(WireHeader.VERSION, FrameKind.SYMBOLS.code(), 0, WireHeader.NO_CPU, 0, 0).write(f);
        f.putInt((int) id).putShort((short) index).putShort((short) count).putInt(length);
        return WireDecoder.decodeBare(f.position(0));
    }

    @Test
    void incompleteHugeMessagesAreDroppedOldestFirst() {
        ContextAssembler a = new ContextAssembler();
        for (int id = 0; id < 100; id++) {
            assertNull(a.add("s", fragment(id, 0, 2, ContextAssembler.MAX_MESSAGE, 100)));
            assertTrue(a.pendingBytes() <= ContextAssembler.MAX_PENDING_BYTES, "pending " + a.pendingBytes());
        }
        assertEquals(ContextAssembler.MAX_PENDING_BYTES / ContextAssembler.MAX_MESSAGE, a.pending());
        assertEquals(100 - a.pending(), a.dropped());
        // a small two-fragment message still assembles
        ContextMessage m = ContextMessage.builder(FrameKind.SYMBOLS).printk(1, "x".repeat(50)).build();
        byte[] bytes = m.toBytes();
        int half = 30;
        assertNull(a.add("s", WireDecoder.decodeBare(frame(1000, 0, 2, bytes, 0, half))));
        ContextMessage.Parsed p = a.add("s", WireDecoder.decodeBare(frame(1000, 1, 2, bytes, half, bytes.length - half)));
        assertNotNull(p);
        assertEquals(m, p.message());
        a.reset("s");
        assertEquals(0, a.pending());
        assertEquals(0, a.pendingBytes());
    }

    private static ByteBuffer frame(long id, int index, int count, byte[] message, int from, int n) {
        ByteBuffer f = ByteBuffer.allocate(WireHeader.SIZE + ContextFragment.HEAD + n);
        new WireHeader(WireHeader.VERSION, FrameKind.SYMBOLS.code(), 0, WireHeader.NO_CPU, 0, 0).write(f);
        f.putInt((int) id).putShort((short) index).putShort((short) count).putInt(message.length).put(message, from, n);
        return f.flip();
    }
}
