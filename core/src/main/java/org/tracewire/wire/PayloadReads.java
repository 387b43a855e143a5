package org.tracewire.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Reads values of the traced kernel's byte order out of an event payload held by any
 * {@link ByteBuffer}, whatever the buffer's own order, with absolute gets only (its position and
 * limit are not changed): what the {@link ContextPlanner} and its helpers read from records.
 */
final class PayloadReads {
    private final ByteOrder kernelOrder;

    PayloadReads(ByteOrder kernelOrder) {
        this.kernelOrder = kernelOrder;
    }

    /** A task pid (4 bytes of the kernel's byte order) at an index of {@code buf}, whatever its order. */
    int pid(ByteBuffer buf, int at) {
        int v = buf.getInt(at);
        return buf.order() == kernelOrder ? v : Integer.reverseBytes(v);
    }

    /** An unsigned integer of the kernel's byte order at an index of {@code buf} (whatever its order). */
    long read(ByteBuffer buf, int at, int size) {
        boolean swap = buf.order() != kernelOrder;
        switch (size) {
            case 8 -> {
                long v = buf.getLong(at);
                return swap ? Long.reverseBytes(v) : v;
            }
            case 4 -> {
                int v = buf.getInt(at);
                return (swap ? Integer.reverseBytes(v) : v) & 0xffff_ffffL;
            }
            case 2 -> {
                short v = buf.getShort(at);
                return (swap ? Short.reverseBytes(v) : v) & 0xffff;
            }
            default -> {
                return buf.get(at) & 0xff;
            }
        }
    }

    /** The payload offset a {@code __data_loc} field at {@code locOff} points to, or -1 when out of bounds. */
    int dataLoc(ByteBuffer buf, int payload, int length, int locOff) {
        if (locOff + 4 > length) {
            return -1;
        }
        long loc = read(buf, payload + locOff, 4);
        int at = (int) (loc & 0xffff);
        int len = (int) (loc >>> 16);
        return len == 0 || at + len > length ? -1 : at;
    }

    /** A task name: up to {@code max} (at most 16) bytes at {@code at}, to the first NUL. */
    static String comm(ByteBuffer buf, int at, int max) {
        byte[] b = new byte[16];
        int n = 0;
        while (n < max) {
            byte c = buf.get(at + n);
            if (c == 0) {
                break;
            }
            b[n++] = c;
        }
        return new String(b, 0, n, StandardCharsets.UTF_8);
    }
}
