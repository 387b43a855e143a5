package org.tracewire.app.histogram;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.tracewire.app.capture.StoreQueries;
import org.tracewire.app.capture.StoreTable;
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

    /**
     * Opens a store's reader (worker thread); a growing store, opened again at each commit, has
     * the formats read before reused (its file is opened only for a new event).
     */
    static StoreQueries.Opener<StoreHistogram> opener() {
        AtomicReference<Known> known = new AtomicReference<>(new Known(null, Map.of()));
        return (c, t) -> {
            Known k = known.get();
            StoreHistogram h = StoreHistogram.open(c, t.file(), k.table() == t ? k.formats() : Map.of());
            known.set(new Known(t, of(h).formats()));
            return h;
        };
    }

    /** The formats the reader of a store last read. */
    private record Known(StoreTable table, Map<String, EventFormat> formats) {
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
