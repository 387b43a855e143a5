package org.tracewire.record;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import org.tracewire.format.DataLoc;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.format.KernelLayout;

/**
 * Builds an {@link EventRecord} from field values by name: the inverse of reading a record's fields
 * into a map (as the backend streams them to the app: numbers as decimal text or {@link Number}s,
 * strings as text, other arrays as hex). With it, field maps reach the one evaluator of filters
 * ({@link org.tracewire.filter.RecordFilter}), the histogram aggregator and the latency tracker
 * ({@code org.tracewire.analysis}) unchanged, with the kernel's types and semantics.
 *
 * <p>Layout: {@code common_type} is the format's id, {@code common_pid} the given pid; each named
 * field is written at its offset in the kernel's byte order, truncated to its size; char arrays up to
 * their size − 1 bytes; {@code __data_loc} strings and arrays after the fixed part, with their
 * location word ({@code __rel_loc}: offset from the end of the word). Fields not in the map, and
 * values that do not parse ({@code "<error>"}), stay 0. Numbers take decimal (signed, or unsigned up
 * to 2<sup>64</sup> − 1) or {@code 0x} hex text. Immutable, thread-safe.
 */
public final class RecordEncoder {
    private RecordEncoder() {
    }

    /**
     * @param format the event's format
     * @param layout byte order and long size to write in
     * @param cpu    the record's CPU
     * @param ts     its time stamp
     * @param pid    its {@code common_pid} (used when {@code values} has no {@code common_pid})
     * @param values field name → value (Number, or text as described above)
     * @return the record
     */
    public static EventRecord encode(EventFormat format, KernelLayout layout, int cpu, long ts, int pid,
                                     Map<String, ?> values) {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(layout, "layout");
        int fixed = format.fixedSize();
        byte[][] dynamic = new byte[format.fields().size() + format.commonFields().size()][];
        int dynamicBytes = 0;
        int i = 0;
        for (Field f : format.allFields()) {
            if (f.kind().isDynamic()) {
                Object v = values.get(f.name());
                byte[] b = v == null ? new byte[0] : dynamicBytes(f, v);
                dynamic[i] = b;
                dynamicBytes += b.length;
            }
            i++;
        }
        ByteBuffer buf = ByteBuffer.allocate(fixed + dynamicBytes).order(layout.byteOrder());
        int next = fixed;
        i = 0;
        for (Field f : format.allFields()) {
            Object v = values.get(f.name());
            if (f.name().equals("common_type")) {
                putInt(buf, f, format.id());
            } else if (f.name().equals("common_pid") && v == null) {
                putInt(buf, f, pid);
            } else if (f.kind().isDynamic()) {
                byte[] b = dynamic[i];
                buf.put(next, b);
                buf.putInt(f.offset(), DataLoc.word(next, b.length, f.offset(), f.relative()));
                next += b.length;
            } else if (v != null) {
                putFixed(buf, f, v);
            }
            i++;
        }
        return new EventRecord(format, layout, cpu, ts, buf);
    }

    private static byte[] dynamicBytes(Field f, Object v) {
        if (f.kind() == FieldKind.DYNAMIC_STRING) {
            byte[] s = v.toString().getBytes(StandardCharsets.UTF_8);
            byte[] z = new byte[s.length + 1];
            System.arraycopy(s, 0, z, 0, s.length);
            return z;
        }
        return hex(v.toString());
    }

    private static void putFixed(ByteBuffer buf, Field f, Object v) {
        if (f.kind() == FieldKind.CHAR_ARRAY) {
            byte[] s = v.toString().getBytes(StandardCharsets.UTF_8);
            buf.put(f.offset(), s, 0, Math.min(s.length, Math.max(0, f.size() - 1)));
            return;
        }
        if (f.kind() == FieldKind.ARRAY || f.kind() == FieldKind.OPAQUE
                || !(f.size() == 1 || f.size() == 2 || f.size() == 4 || f.size() == 8)) {
            byte[] b = hex(v.toString());
            buf.put(f.offset(), b, 0, Math.min(b.length, f.size()));
            return;
        }
        Long n = number(v);
        if (n != null) {
            putInt(buf, f, n);
        }
    }

    private static void putInt(ByteBuffer buf, Field f, long v) {
        switch (f.size()) {
            case 1 -> buf.put(f.offset(), (byte) v);
            case 2 -> buf.putShort(f.offset(), (short) v);
            case 4 -> buf.putInt(f.offset(), (int) v);
            case 8 -> buf.putLong(f.offset(), v);
            default -> { }
        }
    }

    /**
     * A value as a 64-bit pattern: a {@link Number}, decimal text (signed, or unsigned up to
     * 2<sup>64</sup> − 1) or {@code 0x} hex text.
     *
     * @return the number, or null when the text is none of these
     */
    public static Long number(Object v) {
        if (v instanceof Number n) {
            return n.longValue();
        }
        String s = v.toString().strip();
        try {
            if (s.startsWith("0x") || s.startsWith("0X")) {
                return Long.parseUnsignedLong(s.substring(2), 16);
            }
            if (s.startsWith("-")) {
                return Long.parseLong(s);
            }
            return Long.parseUnsignedLong(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static byte[] hex(String s) {
        try {
            return HexFormat.of().parseHex(s.length() % 2 == 0 ? s : "0" + s);
        } catch (IllegalArgumentException e) {
            return new byte[0];
        }
    }
}
