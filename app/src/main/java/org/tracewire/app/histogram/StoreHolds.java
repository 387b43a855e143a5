package org.tracewire.app.histogram;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;

/**
 * What a capture store holds for the histogram builder: its events' formats and whether it has
 * stacks.
 *
 * @param formats the formats of the store's events, by {@code system:event}
 * @param stacks  true when the capture recorded stacks
 */
record StoreHolds(Map<String, EventFormat> formats, boolean stacks) {
    /** Reads it from a store's reader (its events without a format are left out). */
    static StoreHolds of(StoreHistogram h) {
        Map<String, EventFormat> formats = new HashMap<>();
        for (String ev : h.eventCounts().keySet()) {
            if (h.format(ev) != null) {
                formats.put(ev, h.format(ev));
            }
        }
        return new StoreHolds(Map.copyOf(formats), h.hasStacks());
    }

    /** The events a histogram can count, sorted: the stack records are not events of their own. */
    List<String> events() {
        List<String> names = new ArrayList<>(formats.keySet());
        names.remove("ftrace:kernel_stack");
        names.remove("ftrace:user_stack");
        names.sort(Comparator.naturalOrder());
        return names;
    }
}
