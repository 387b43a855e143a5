package org.tracewire.app.browser;

import java.util.List;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;

/**
 * What the browser shows for the selected event.
 *
 * @param fullName       "system:event"
 * @param id             the event id
 * @param fields         common and event fields
 * @param printFmtRaw    the print fmt as in the format file
 * @param printFmtPretty the print fmt pretty-printed
 * @param enabled        "yes"/"no", or a note when not live
 * @param filter         the current filter ("none"), or a note when not live
 * @param format         the parsed format
 */
public record EventDetails(String fullName, int id, List<FieldRow> fields, String printFmtRaw, String printFmtPretty,
                           String enabled, String filter, EventFormat format) {

    /**
     * One row of the fields table.
     *
     * @param name   field name (with [N] for arrays)
     * @param type   C type
     * @param offset byte offset
     * @param size   size in bytes
     * @param signed signed
     * @param kind   field kind, lower case
     * @param common a common_* field
     */
    public record FieldRow(String name, String type, int offset, int size, boolean signed, String kind, boolean common) {
        /** @param f a parsed field @return its row */
        public static FieldRow of(Field f) {
            String name = f.kind().isDynamic() || f.arrayLength() < 0 ? f.name()
                    : f.arrayLength() == 0 ? f.name() + "[]" : f.name() + "[" + f.arrayLength() + "]";
            return new FieldRow(name, f.type(), f.offset(), f.size(), f.signed(),
                    f.kind().name().toLowerCase() + (f.relative() ? " (rel_loc)" : ""), f.common());
        }
    }
}
