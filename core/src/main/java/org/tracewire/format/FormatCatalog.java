package org.tracewire.format;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The parsed formats of a set of events, looked up by event id (the {@code common_type} of a
 * record) or by {@code system:event}, plus the format files that failed to parse and why.
 *
 * @param formats  parsed formats in {@code system:event} order
 * @param failures {@code system:event} → the parse error, for files that failed
 */
public record FormatCatalog(List<EventFormat> formats, Map<String, FormatException> failures) {
    public FormatCatalog {
        formats = List.copyOf(formats);
        failures = Collections.unmodifiableMap(new TreeMap<>(failures));
    }

    /** Index by id; built on each call, so keep the result. */
    public Map<Integer, EventFormat> byId() {
        Map<Integer, EventFormat> map = new HashMap<>();
        for (EventFormat f : formats) {
            map.put(f.id(), f);
        }
        return map;
    }

    /** The format of {@code system:event}, or null. */
    public EventFormat byName(String fullName) {
        for (EventFormat f : formats) {
            if (f.fullName().equals(fullName)) {
                return f;
            }
        }
        return null;
    }
}
