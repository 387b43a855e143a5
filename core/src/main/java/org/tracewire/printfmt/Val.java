package org.tracewire.printfmt;

import java.nio.charset.StandardCharsets;

/** A value during evaluation (internal): a C integer, memory inside the record, or text. */
sealed interface Val {

    /**
     * A C integer of a given size and signedness; {@code bits} is already truncated and
     * sign/zero-extended to 64 bits according to them.
     *
     * @param pointer true when the C type is a pointer (the value is a kernel address)
     */
    record Int(long bits, int size, boolean signed, boolean pointer) implements Val {
        static Int of(long bits, int size, boolean signed) {
            return new Int(extend(bits, size, signed), size, signed, false);
        }

        static Int of(CInt c) {
            return new Int(c.bits(), c.size(), c.signed(), false);
        }

        static Int bool(boolean b) {
            return new Int(b ? 1 : 0, 4, true, false);
        }

        static long extend(long bits, int size, boolean signed) {
            return CInt.extend(bits, size, signed);
        }

        /** The C integer, without the pointer flag, for {@link CInt}'s arithmetic. */
        CInt c() {
            return new CInt(bits, size, signed);
        }
    }

    /**
     * A pointer into the record's bytes (an array or string field, a dynamic array).
     *
     * @param data       the bytes (shared, never modified)
     * @param offset     first byte the pointer points at
     * @param limit      end (exclusive) of the readable bytes
     * @param elemSize   size of the pointed-to element (1 for char)
     * @param elemSigned signedness of the element
     */
    record Mem(byte[] data, int offset, int limit, int elemSize, boolean elemSigned) implements Val {
        int available() {
            return Math.max(0, limit - offset);
        }

        /** Bytes up to the first NUL or the end, as text. */
        String cString(int maxBytes) {
            int end = offset;
            int stop = (int) Math.min((long) limit, (long) offset + Math.max(0, maxBytes));
            while (end < stop && data[end] != 0) {
                end++;
            }
            return new String(data, offset, Math.max(0, end - offset), StandardCharsets.UTF_8);
        }
    }

    /** Text: a string literal or the output of a print helper ({@code __print_flags}, …). */
    record Text(String text) implements Val {
    }
}
