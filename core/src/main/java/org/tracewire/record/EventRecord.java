package org.tracewire.record;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.tracewire.format.DataLoc;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.KernelLayout;

/**
 * One trace event record: its format and the bytes of its payload (the event's fields, starting
 * with {@code common_type}), with typed access to each field. Immutable: the payload is copied or
 * held read-only.
 *
 * <p>Values follow the kernel's layout ({@link KernelLayout}): integers of the field's size and
 * sign in the kernel's byte order; char arrays up to the first NUL; {@code __data_loc} fields
 * through their 32-bit location word (low 16 bits offset from the payload start, high 16 bits
 * length in bytes; {@code __rel_loc} offsets count from the end of the word), per
 * {@code include/trace/stages/stage*_defines.h}.
 *
 * @param format      the event's format
 * @param layout      byte order and long size of the kernel that wrote the record
 * @param cpu         the CPU whose ring buffer held the record, or -1 when unknown
 * @param timestampNs the record's time in the trace clock's unit (ns for {@code local}, {@code global}, …)
 * @param payload     the record payload, position 0 at {@code common_type}; read-only view
 */
public record EventRecord(EventFormat format, KernelLayout layout, int cpu, long timestampNs,
                          ByteBuffer payload) {

    public EventRecord {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(layout, "layout");
        if (!(payload.isReadOnly() && payload.position() == 0 && payload.order() == layout.byteOrder())) {
            payload = payload.slice().asReadOnlyBuffer().order(layout.byteOrder());
        }
    }

    /** Payload length in bytes. */
    public int length() {
        return payload.limit();
    }

    /**
     * The integer value of a scalar or pointer field (or of a 1/2/4/8-byte field of any kind),
     * sign-extended when the field is signed, zero-extended otherwise (so a u64 comes back as its
     * two's-complement bit pattern: use {@link Long#toUnsignedString(long)}).
     *
     * @throws RecordException when the field lies outside the payload or its size is not 1, 2, 4 or 8
     */
    public long integer(Field field) {
        return integerAt(field, field.offset(), field.size(), field.signed());
    }

    /**
     * Element {@code index} of a fixed or dynamic array, as an integer of the element size.
     *
     * @throws RecordException when the element is outside the array or the payload
     */
    public long arrayElement(Field field, int index) {
        int elem = field.elementSize();
        int base;
        int len;
        if (field.kind().isDynamic()) {
            base = dynamicOffset(field);
            len = dynamicLength(field);
        } else {
            base = field.offset();
            len = field.isFlexible() ? payload.limit() - base : field.size();
        }
        if (index < 0 || (long) (index + 1) * elem > len) {
            throw new RecordException(where(field) + "index " + index + " outside an array of " + len + " bytes");
        }
        return integerAt(field, base + index * elem, elem, field.signed());
    }

    /** Number of elements of a fixed, flexible or dynamic array field. */
    public int arrayLength(Field field) {
        int elem = Math.max(1, field.elementSize());
        if (field.kind().isDynamic()) {
            return dynamicLength(field) / elem;
        }
        if (field.isFlexible()) {
            return Math.max(0, payload.limit() - field.offset()) / elem;
        }
        return field.size() / elem;
    }

    private long integerAt(Field field, int offset, int size, boolean signed) {
        check(field, offset, size);
        switch (size) {
            case 1 -> {
                byte b = payload.get(offset);
                return signed ? b : b & 0xffL;
            }
            case 2 -> {
                short s = payload.getShort(offset);
                return signed ? s : s & 0xffffL;
            }
            case 4 -> {
                int i = payload.getInt(offset);
                return signed ? i : i & 0xffffffffL;
            }
            case 8 -> {
                return payload.getLong(offset);
            }
            default -> throw new RecordException(where(field) + "size " + size + " is not an integer size");
        }
    }

    /**
     * The text of a {@code char[N]}, {@code char[]} or {@code __data_loc char[]} field: bytes up
     * to the first NUL (or the field's end), decoded as UTF-8 with malformed bytes replaced.
     *
     * @throws RecordException when the field lies outside the payload
     */
    public String string(Field field) {
        long span = span(field);
        int off = (int) (span >>> 32);
        int len = (int) span;
        int end = off;
        while (end < off + len && payload.get(end) != 0) {
            end++;
        }
        byte[] bytes = new byte[end - off];
        payload.get(off, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * The raw bytes of any field: for dynamic fields the bytes the location word points at, for
     * flexible arrays up to the payload's end, otherwise {@code size} bytes at {@code offset}.
     *
     * @throws RecordException when the bytes lie outside the payload
     */
    public byte[] bytes(Field field) {
        long span = span(field);
        int off = (int) (span >>> 32);
        int len = (int) span;
        byte[] bytes = new byte[len];
        payload.get(off, bytes);
        return bytes;
    }

    /**
     * Where a field's bytes are: offset in the high 32 bits, length in the low 32 — through the
     * location word for dynamic fields, to the payload's end for flexible arrays. Checked.
     */
    private long span(Field field) {
        int off;
        int len;
        if (field.kind().isDynamic()) {
            off = dynamicOffset(field);
            len = dynamicLength(field);
        } else if (field.isFlexible()) {
            off = field.offset();
            len = Math.max(0, payload.limit() - off);
        } else {
            off = field.offset();
            len = field.size();
        }
        check(field, off, len);
        return ((long) off << 32) | (len & 0xffffffffL);
    }

    /** Offset in the payload of a dynamic field's data, from its location word. */
    public int dynamicOffset(Field field) {
        return DataLoc.offset(locationWord(field), field.offset(), field.relative());
    }

    /** Length in bytes of a dynamic field's data, from its location word. */
    public int dynamicLength(Field field) {
        return DataLoc.length(locationWord(field));
    }

    private int locationWord(Field field) {
        if (!field.kind().isDynamic()) {
            throw new RecordException(where(field) + "not a __data_loc/__rel_loc field");
        }
        check(field, field.offset(), 4);
        return payload.getInt(field.offset());
    }

    /** {@code common_pid}, or 0 when the format has no such field. */
    public int pid() {
        Field f = format.field("common_pid");
        return f == null ? 0 : (int) integer(f);
    }

    /** {@code common_flags} (irqs-off, need-resched, hardirq, softirq bits), 0 when absent. */
    public int flags() {
        Field f = format.field("common_flags");
        return f == null ? 0 : (int) integer(f);
    }

    /** {@code common_preempt_count} (preempt depth in the low nibble, migrate-disable in the high), 0 when absent. */
    public int preemptCount() {
        Field f = format.field("common_preempt_count");
        return f == null ? 0 : (int) integer(f);
    }

    private void check(Field field, int offset, int size) {
        if (offset < 0 || size < 0 || (long) offset + size > payload.limit()) {
            throw new RecordException(where(field) + "bytes " + offset + ".." + ((long) offset + size)
                    + " outside the record of " + payload.limit() + " bytes");
        }
    }

    private String where(Field field) {
        return format.fullName() + " field " + field.name() + ": ";
    }

    /** The byte order values are read in. */
    public ByteOrder byteOrder() {
        return layout.byteOrder();
    }
}
