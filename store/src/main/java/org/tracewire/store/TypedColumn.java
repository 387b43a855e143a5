package org.tracewire.store;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Set;
import org.tracewire.filter.SqlFilterCompiler;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.record.EventRecord;
import org.tracewire.record.RecordException;
import org.tracewire.tracetext.StackText;

/**
 * One format field as a column of its event's typed table: the SQL type of its C type and how a
 * record's value is handed to DuckDB ({@link TableBatch}).
 * <ul>
 * <li>integers of 1, 2, 4, 8 bytes: {@code TINYINT SMALLINT INTEGER BIGINT}, unsigned ones
 *     {@code UTINYINT USMALLINT UINTEGER UBIGINT} (from the format's {@code signed:});</li>
 * <li>pointers: {@code UBIGINT} (or {@code UINTEGER} on a 32-bit kernel);</li>
 * <li>{@code char[N]}, {@code char[]}, {@code __data_loc char[]}: {@code VARCHAR} (up to the first NUL);</li>
 * <li>fixed, flexible and {@code __data_loc} arrays of integers: a list of the element's type
 *     ({@code UBIGINT[]} for {@code unsigned long args[6]});</li>
 * <li>{@code __data_loc cpumask_t}, structs by value and anything else: {@code BLOB} (the bytes).</li>
 * </ul>
 * A value that lies outside its record (a truncated frame, a corrupt location word) is NULL.
 *
 * @param field  the format field
 * @param name   the column name: the field's name, with {@code _} appended when it equals a key
 *               column of every typed table ({@link #KEY_COLUMNS})
 * @param sqlType the column's SQL type
 * @param shape  how the value is read and handed to DuckDB
 * @param texts  the texts read so far of a fixed {@code char[N]} field (null for other fields)
 */
record TypedColumn(Field field, String name, String sqlType, Shape shape, TextCache texts) {
    /** The columns every typed table starts with (and {@code host} in the query views). */
    static final Set<String> KEY_COLUMNS = SqlFilterCompiler.KEY_COLUMNS;

    /** How a value is read from the record. */
    enum Shape { INT8, INT16, INT32, INT64, STRING, LIST8, LIST16, LIST32, LIST64, BYTES, STACK }

    /**
     * The longest fixed array ({@code unsigned long args[6]}) handed over as one batch column per
     * element and made a list by the {@code INSERT} ({@code list_value}); longer ones, and arrays
     * of varying length, go as their text (DuckDB's cast of a list's text took ~1 µs per row, the
     * elements' own columns ~0.25: docs/decisions/0030).
     */
    static final int MAX_SPREAD = 16;

    /**
     * The batch columns this column takes: the elements of a fixed integer array of up to
     * {@value #MAX_SPREAD} elements, one each; 1 otherwise.
     */
    int spread() {
        boolean list = shape == Shape.LIST8 || shape == Shape.LIST16 || shape == Shape.LIST32 || shape == Shape.LIST64;
        int n = field.size() / Math.max(1, field.elementSize()); // as EventRecord.arrayLength counts
        return list && field.kind() == FieldKind.ARRAY && !field.isFlexible() && n > 1 && n <= MAX_SPREAD ? n : 1;
    }

    /**
     * The column of a field of {@code format}: as {@link #of(Field, int)}, but the {@code caller}
     * array of a stack record ({@code ftrace:kernel_stack}, {@code user_stack}) holds the frames the
     * kernel's text prints ({@link StackText#addresses}: a kernel stack's run past the format's 8).
     */
    static TypedColumn of(EventFormat format, Field f, int longSize) {
        if (f.name().equals("caller") && StackText.kind(format) != null) {
            return new TypedColumn(f, f.name(), "UBIGINT[]", Shape.STACK, null);
        }
        return of(f, longSize);
    }

    /** The column of a field, for a kernel whose {@code long} has {@code longSize} bytes. */
    static TypedColumn of(Field f, int longSize) {
        String name = KEY_COLUMNS.contains(f.name()) ? f.name() + "_" : f.name();
        boolean s = f.signed();
        return switch (f.kind()) {
            case INTEGER -> scalar(f, name, f.size(), s);
            case POINTER -> scalar(f, name, longSize, false);
            case CHAR_ARRAY, DYNAMIC_STRING -> new TypedColumn(f, name, "VARCHAR", Shape.STRING,
                    f.kind() == FieldKind.CHAR_ARRAY && !f.isFlexible() ? new TextCache() : null);
            case ARRAY, DYNAMIC_ARRAY -> switch (f.elementSize()) {
                case 1 -> new TypedColumn(f, name, (s ? "TINYINT" : "UTINYINT") + "[]", Shape.LIST8, null);
                case 2 -> new TypedColumn(f, name, (s ? "SMALLINT" : "USMALLINT") + "[]", Shape.LIST16, null);
                case 4 -> new TypedColumn(f, name, (s ? "INTEGER" : "UINTEGER") + "[]", Shape.LIST32, null);
                case 8 -> new TypedColumn(f, name, (s ? "BIGINT" : "UBIGINT") + "[]", Shape.LIST64, null);
                default -> new TypedColumn(f, name, "BLOB", Shape.BYTES, null);
            };
            default -> new TypedColumn(f, name, "BLOB", Shape.BYTES, null);
        };
    }

    private static TypedColumn scalar(Field f, String name, int size, boolean signed) {
        return switch (size) {
            case 1 -> new TypedColumn(f, name, signed ? "TINYINT" : "UTINYINT", Shape.INT8, null);
            case 2 -> new TypedColumn(f, name, signed ? "SMALLINT" : "USMALLINT", Shape.INT16, null);
            case 4 -> new TypedColumn(f, name, signed ? "INTEGER" : "UINTEGER", Shape.INT32, null);
            case 8 -> new TypedColumn(f, name, signed ? "BIGINT" : "UBIGINT", Shape.INT64, null);
            default -> new TypedColumn(f, name, "BLOB", Shape.BYTES, null);
        };
    }

    /**
     * Puts this column's value of a record into column {@code col} of the batch's current row
     * (NULL when the record does not hold it), and the {@link #spread()} − 1 columns after it for
     * a fixed array's elements. Other lists go as their text ({@code [1, 2]}, cast to the column's
     * type by the batch's {@code INSERT}), {@code BLOB}s as hex.
     */
    void put(TableBatch b, int col, EventRecord r) {
        try {
            switch (shape) {
                case INT8, INT16, INT32, INT64 -> b.put(col, r.integer(field));
                case STRING -> {
                    if (texts != null) {
                        b.put(col, texts.utf8(r, field));
                    } else {
                        b.put(col, r.string(field));
                    }
                }
                case BYTES -> b.put(col, HEX.formatHex(r.bytes(field)));
                case LIST8, LIST16, LIST32, LIST64 -> {
                    int spread = spread();
                    if (spread > 1) {
                        putSpread(b, col, r, spread);
                        return;
                    }
                    int n = r.arrayLength(field);
                    long[] v = new long[n];
                    for (int i = 0; i < n; i++) {
                        v[i] = r.arrayElement(field, i);
                    }
                    b.put(col, listUtf8(v, n, shape == Shape.LIST64 && !field.signed()));
                }
                case STACK -> { // past the format's 8, as the kernel prints
                    long[] a = StackText.addresses(r);
                    b.put(col, listUtf8(a, a.length, true));
                }
                default -> throw new IllegalStateException(shape.toString());
            }
        } catch (RecordException | IndexOutOfBoundsException e) {
            b.putNull(col);
        }
    }

    private static final HexFormat HEX = HexFormat.of();

    /**
     * A fixed array's elements into columns {@code col} to {@code col + spread − 1}; all NULL (the
     * list NULL) when any lies outside the record, as the list's text would be.
     */
    private void putSpread(TableBatch b, int col, EventRecord r, int spread) {
        try {
            r.arrayElement(field, spread - 1); // the last inside the record: every element is
        } catch (RecordException | IndexOutOfBoundsException e) {
            for (int i = 0; i < spread; i++) {
                b.putNull(col + i);
            }
            return;
        }
        for (int i = 0; i < spread; i++) {
            b.put(col + i, r.arrayElement(field, i));
        }
    }

    /**
     * A list's text as DuckDB casts it to a list ({@code [1, 2, 3]}, elements in decimal, 64-bit
     * unsigned values as such), as its UTF-8 (ASCII) bytes, written digit by digit: the text of the
     * raw_syscalls {@code args} lists made through {@code Long.toUnsignedString} and a
     * {@code StringBuilder} took ~18% of a syscall mix's build thread.
     *
     * @param values the elements, the first {@code n} of them
     */
    static byte[] listUtf8(long[] values, int n, boolean unsigned64) {
        byte[] out = new byte[2 + n * 23]; // a sign, 20 digits and ", " at most per element
        int at = 0;
        out[at++] = '[';
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                out[at++] = ',';
                out[at++] = ' ';
            }
            long v = values[i];
            if (unsigned64 && v < 0) { // above Long.MAX_VALUE: all but the last digit, then it
                long q = Long.divideUnsigned(v, 10);
                at = decimal(out, at, q);
                out[at++] = (byte) ('0' + (v - q * 10));
            } else if (v == Long.MIN_VALUE) {
                at = decimal(out, at, -(v / 10), '-');
                out[at++] = (byte) ('0' + -(v % 10));
            } else if (v < 0) {
                at = decimal(out, at, -v, '-');
            } else {
                at = decimal(out, at, v);
            }
        }
        out[at++] = ']';
        return Arrays.copyOf(out, at);
    }

    /** Writes {@code sign} and then {@code v} (≥ 0) in decimal at {@code at}; returns the end. */
    private static int decimal(byte[] out, int at, long v, char sign) {
        out[at] = (byte) sign;
        return decimal(out, at + 1, v);
    }

    /** Writes {@code v} (≥ 0) in decimal at {@code at}; returns the end. */
    private static int decimal(byte[] out, int at, long v) {
        int len = 1;
        for (long t = v; t >= 10; t /= 10) {
            len++;
        }
        for (int i = at + len - 1; i >= at; i--) {
            out[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        return at + len;
    }
}
