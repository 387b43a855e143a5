package org.tracewire.format;

import java.util.List;

/**
 * The parsed {@code events/header_page}: the layout of a ring-buffer sub-buffer header
 * (kernel: {@code kernel/trace/ring_buffer.c}, {@code ring_buffer_print_page_header()}).
 * Typically {@code u64 timestamp} at 0, {@code local_t commit} at 8 and {@code char data} at 16
 * with size = sub-buffer size - 16.
 *
 * @param source where it was read from, for messages
 * @param fields the declared fields in file order
 */
public record HeaderPage(String source, List<Field> fields) {
    public HeaderPage {
        fields = List.copyOf(fields);
    }

    /** The {@code timestamp} field (u64 ns, the sub-buffer's base time stamp). */
    public Field timestamp() {
        return require("timestamp");
    }

    /** The {@code commit} field: bytes of data in the page, plus missed-events flags in its top bits. */
    public Field commit() {
        return require("commit");
    }

    /** The {@code data} field: where records start, and the data capacity of a sub-buffer. */
    public Field data() {
        return require("data");
    }

    /** Sub-buffer size in bytes: end of {@code data}. */
    public int subBufferSize() {
        Field data = data();
        return data.offset() + data.size();
    }

    private Field require(String name) {
        for (Field f : fields) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        throw new FormatException(source, 1, 1, "header_page has no field '" + name + "'");
    }
}
