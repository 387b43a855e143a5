package org.tracewire.symbols;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;

/** BTF enum parsing: a hand-built blob in both byte orders, and the live kernel's BTF. */
class KernelEnumsTest {

    /** BTF with one INT type, then an ENUM {A=1, B=-2 (signed)} and an ENUM64 {C=2^40}. */
    static byte[] blob(ByteOrder order) {
        byte[] strings = "\0A\0B\0C\0e\0".getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer types = ByteBuffer.allocate(16 + 12 + 16 + 12 + 12).order(order);
        types.putInt(0).putInt(1 << 24).putInt(4).putInt(32);                          // INT, 4 extra bytes
        types.putInt(7).putInt((1 << 31) | (6 << 24) | 2).putInt(4);                  // signed ENUM e, 2 members
        types.putInt(1).putInt(1).putInt(3).putInt(-2);
        types.putInt(7).putInt((19 << 24) | 1).putInt(8);                             // ENUM64, 1 member
        types.putInt(5).putInt(0).putInt(1 << 8);
        ByteBuffer b = ByteBuffer.allocate(24 + types.capacity() + strings.length).order(order);
        b.putShort((short) 0xeb9f).put((byte) 1).put((byte) 0).putInt(24);
        b.putInt(0).putInt(types.capacity()).putInt(types.capacity()).putInt(strings.length);
        b.put(types.array()).put(strings);
        return b.array();
    }

    @Test
    void parsesEnumAndEnum64InBothByteOrders() throws IOException {
        for (ByteOrder o : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
            KernelEnums e = KernelEnums.parse(blob(o));
            assertEquals(1L, e.value("A"));
            assertEquals(-2L, e.value("B"));
            assertEquals(1L << 40, e.value("C"));
            assertNull(e.value("e"));
            assertEquals(3, e.size());
        }
        assertThrows(IOException.class, () -> KernelEnums.parse(new byte[30]));
    }

    @Tag("live")
    @Test
    void liveKernelBtf() throws IOException {
        Prerequisites.requireRoot();
        Path btf = Path.of("/sys/kernel/btf/vmlinux");
        KernelEnums e = KernelEnums.load(btf);
        assertTrue(e.size() > 1000, "only " + e.size());
        assertEquals(10L, e.value("TCP_LISTEN"));       // include/net/tcp_states.h
        assertEquals(1L, e.value("HRTIMER_MODE_REL"));  // include/linux/hrtimer_types.h
    }
}
