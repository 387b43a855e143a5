package org.tracewire.format;

import java.util.Objects;

/**
 * One field of a trace event, as declared by a line of a tracefs {@code format} file:
 * {@code field:TYPE NAME;	offset:N;	size:N;	signed:N;}
 * (kernel: {@code kernel/trace/trace_events.c}, {@code f_show()}).
 *
 * @param type        the C type text as the kernel wrote it, without the name and without a
 *                    trailing array suffix: {@code "unsigned long"}, {@code "char"},
 *                    {@code "__data_loc char[]"}, {@code "const char *"}
 * @param name        the field name ({@code prev_comm}); for {@code __data_loc} fields the name
 *                    the print fmt uses
 * @param offset      byte offset of the field in the record payload (for dynamic fields: of the
 *                    32-bit location word)
 * @param size        size in bytes of the fixed part (4 for a location word; 0 for a flexible
 *                    {@code name[]} array)
 * @param signed      the {@code signed:} flag (false when the line omits it)
 * @param arrayLength the N of {@code name[N]}; 0 for {@code name[]} and dynamic arrays; -1 when
 *                    the field is not an array
 * @param kind        the classification derived from the declaration
 * @param relative    true for {@code __rel_loc}: the location word's offset counts from the end
 *                    of the word, not from the start of the record
 * @param common      true for the {@code common_*} fields every event shares
 */
public record Field(String type, String name, int offset, int size, boolean signed,
                    int arrayLength, FieldKind kind, boolean relative, boolean common) {

    public Field {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
    }

    /** Element size in bytes for arrays (fixed or dynamic), else {@link #size()}. */
    public int elementSize() {
        if (kind == FieldKind.DYNAMIC_STRING || kind == FieldKind.CHAR_ARRAY) {
            return 1;
        }
        if (kind == FieldKind.DYNAMIC_ARRAY || kind == FieldKind.DYNAMIC_CPUMASK) {
            return dynamicElementSize();
        }
        if (kind == FieldKind.ARRAY && arrayLength > 0) {
            return size / arrayLength;
        }
        if (kind == FieldKind.ARRAY) {
            return CTypes.sizeOf(type, 8);
        }
        return size;
    }

    private int dynamicElementSize() {
        String element = type.replaceFirst("^__(data|rel)_loc\\s+", "").replace("[]", "").trim();
        if (kind == FieldKind.DYNAMIC_CPUMASK) {
            return 8;
        }
        int s = CTypes.sizeOf(element, 8);
        return s > 0 ? s : 1;
    }

    /** True for a {@code name[]} array of size 0 that extends to the end of the record. */
    public boolean isFlexible() {
        return arrayLength == 0 && !kind.isDynamic();
    }

    /** The declaration as the format file wrote it, for messages: {@code char prev_comm[16]}. */
    public String declaration() {
        String suffix = arrayLength > 0 && !kind.isDynamic() ? "[" + arrayLength + "]"
                : arrayLength == 0 && !kind.isDynamic() ? "[]" : "";
        return type + " " + name + suffix;
    }
}
