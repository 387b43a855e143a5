package org.tracewire.record;

import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.tracewire.format.Field;

/**
 * A record's own field values as text, in format order, as the desktop app shows them (streamed
 * by the backend, or read from a file): strings up to their NUL, integers of 1, 2, 4 or 8 bytes in
 * decimal (signed fields and those narrower than 8 bytes as the record's sign-extended long;
 * unsigned 8-byte fields unsigned), everything else (arrays, odd sizes) as lower-case hex bytes. A
 * field that cannot be read (outside a truncated record) is {@code <reason>}.
 */
public final class RecordValues {
    private RecordValues() {
    }

    /**
     * @param r a record
     * @return field name → value text, in the format's field order (a new, mutable map)
     */
    public static Map<String, Object> strings(EventRecord r) {
        Map<String, Object> fields = new LinkedHashMap<>();
        for (Field f : r.format().fields()) {
            try {
                if (f.kind().isString()) {
                    fields.put(f.name(), r.string(f));
                } else if (f.size() == 1 || f.size() == 2 || f.size() == 4 || f.size() == 8) {
                    long v = r.integer(f);
                    fields.put(f.name(), f.signed() || f.size() < 8 || v >= 0 ? Long.toString(v) : Long.toUnsignedString(v));
                } else {
                    fields.put(f.name(), HexFormat.of().formatHex(r.bytes(f)));
                }
            } catch (RuntimeException ex) {
                fields.put(f.name(), "<" + ex.getMessage() + ">");
            }
        }
        return fields;
    }
}
