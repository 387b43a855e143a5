package org.tracewire.format;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One trace event's parsed {@code events/<system>/<event>/format} file: its identity, the common
 * fields every record starts with, its own fields and its {@code print fmt}. Immutable.
 *
 * @param system       the event's system (the directory under {@code events/}), e.g. {@code sched}
 * @param name         the event name, e.g. {@code sched_switch}
 * @param id           the event id ({@code ID:}), the value of {@code common_type} in its records
 * @param commonFields the fields before the blank line ({@code common_type}, {@code common_flags},
 *                     {@code common_preempt_count}, {@code common_pid})
 * @param fields       the event's own fields in file order
 * @param printFmt     the text after {@code print fmt: }, unparsed (empty when the file has none)
 */
public record EventFormat(String system, String name, int id, List<Field> commonFields,
                          List<Field> fields, String printFmt) {

    public EventFormat {
        Objects.requireNonNull(system, "system");
        Objects.requireNonNull(name, "name");
        commonFields = List.copyOf(commonFields);
        fields = List.copyOf(fields);
        Objects.requireNonNull(printFmt, "printFmt");
    }

    /** {@code system:name}, as trace-cmd and {@code set_event} spell it. */
    public String fullName() {
        return system + ":" + name;
    }

    /** Common fields followed by the event's own fields. */
    public List<Field> allFields() {
        List<Field> all = new ArrayList<>(commonFields.size() + fields.size());
        all.addAll(commonFields);
        all.addAll(fields);
        return Collections.unmodifiableList(all);
    }

    /**
     * Looks a field up by name among the event's own fields, then the common fields.
     *
     * @return the field, or null when there is none of that name
     */
    public Field field(String fieldName) {
        for (Field f : fields) {
            if (f.name().equals(fieldName)) {
                return f;
            }
        }
        for (Field f : commonFields) {
            if (f.name().equals(fieldName)) {
                return f;
            }
        }
        return null;
    }

    /** Index of fields by name (own fields win over common ones), for hot-path lookups. */
    public Map<String, Field> fieldsByName() {
        Map<String, Field> map = new HashMap<>();
        for (Field f : commonFields) {
            map.put(f.name(), f);
        }
        for (Field f : fields) {
            map.put(f.name(), f);
        }
        return map;
    }

    /** End of the fixed part of a record in bytes: max(offset + size) over all fields. */
    public int fixedSize() {
        int end = 0;
        for (Field f : allFields()) {
            end = Math.max(end, f.offset() + f.size());
        }
        return end;
    }
}
