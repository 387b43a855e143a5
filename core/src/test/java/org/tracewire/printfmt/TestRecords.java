package org.tracewire.printfmt;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.tracewire.format.DataLoc;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;

/** Builds records field by field (annotated byte arrays) for tests, in any byte order and long size. */
final class TestRecords {
    private final EventFormat format;
    private final KernelLayout layout;
    private byte[] data;
    private int dynEnd;

    TestRecords(EventFormat format, KernelLayout layout) {
        this.format = format;
        this.layout = layout;
        this.data = new byte[format.fixedSize()];
        this.dynEnd = data.length;
    }

    /** A format from inline text: {@code name/ID/format/fields/print fmt}, as tracefs writes it. */
    static EventFormat format(String system, String text) {
        return FormatParser.parse(system, text, "inline");
    }

    TestRecords integer(String field, long value) {
        Field f = field(field);
        put(f.offset(), f.size(), value);
        return this;
    }

    TestRecords string(String field, String text) {
        Field f = field(field);
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(b, 0, data, f.offset(), Math.min(b.length, f.size()));
        return this;
    }

    TestRecords bytes(String field, byte[] b) {
        Field f = field(field);
        System.arraycopy(b, 0, data, f.offset(), b.length);
        return this;
    }

    /** Appends dynamic data and points the field's __data_loc word at it. */
    TestRecords dynamic(String field, byte[] b) {
        Field f = field(field);
        int off = dynEnd;
        data = Arrays.copyOf(data, off + b.length);
        System.arraycopy(b, 0, data, off, b.length);
        dynEnd += b.length;
        put(f.offset(), 4, DataLoc.word(off, b.length, f.offset(), f.relative()) & 0xffffffffL);
        return this;
    }

    TestRecords dynamicString(String field, String s) {
        byte[] b = (s + "\0").getBytes(StandardCharsets.UTF_8);
        return dynamic(field, b);
    }

    /** Encodes an integer in the layout's byte order. */
    void put(int offset, int size, long v) {
        ByteBuffer bb = ByteBuffer.wrap(data).order(layout.byteOrder());
        switch (size) {
            case 1 -> bb.put(offset, (byte) v);
            case 2 -> bb.putShort(offset, (short) v);
            case 4 -> bb.putInt(offset, (int) v);
            case 8 -> bb.putLong(offset, v);
            default -> throw new IllegalArgumentException("size " + size);
        }
    }

    EventRecord record() {
        return new EventRecord(format, layout, 0, 0, ByteBuffer.wrap(data.clone()));
    }

    private Field field(String name) {
        Field f = format.field(name);
        if (f == null) {
            throw new IllegalArgumentException("no field " + name);
        }
        return f;
    }

    /**
     * Re-encodes a little-endian payload in big-endian order: every integer, pointer, array element,
     * location word and dynamic array element is byte-swapped; chars and u8 arrays stay as they are.
     */
    static byte[] toBigEndian(EventFormat format, byte[] le) {
        byte[] be = le.clone();
        ByteBuffer in = ByteBuffer.wrap(le).order(ByteOrder.LITTLE_ENDIAN);
        for (Field f : format.allFields()) {
            switch (f.kind()) {
                case INTEGER, POINTER -> swap(be, f.offset(), f.size());
                case ARRAY -> {
                    int es = f.elementSize();
                    for (int o = f.offset(); es > 1 && o + es <= f.offset() + f.size(); o += es) {
                        swap(be, o, es);
                    }
                }
                case DYNAMIC_ARRAY, DYNAMIC_CPUMASK, DYNAMIC_STRING -> {
                    int word = in.getInt(f.offset());
                    int off = DataLoc.offset(word, f.offset(), f.relative());
                    int len = DataLoc.length(word);
                    int es = f.kind() == FieldKind.DYNAMIC_STRING ? 1 : f.elementSize();
                    for (int o = off; es > 1 && o + es <= off + len; o += es) {
                        swap(be, o, es);
                    }
                    swap(be, f.offset(), 4);
                }
                default -> {
                }
            }
        }
        return be;
    }

    private static void swap(byte[] b, int off, int size) {
        if (size != 2 && size != 4 && size != 8) {
            return;
        }
        for (int i = 0; i < size / 2; i++) {
            byte t = b[off + i];
            b[off + i] = b[off + size - 1 - i];
            b[off + size - 1 - i] = t;
        }
    }
}
