package org.tracewire.dissector;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;

/** Resolves {@code SYSTEM:EVENT} and {@code SYSTEM:*} selectors against a catalog. */
public final class EventSelection {
    private EventSelection() {
    }

    /**
     * The selected formats in selector order without duplicates; all formats when the list is empty.
     *
     * @throws IllegalArgumentException for a malformed selector or one that matches nothing
     */
    public static List<EventFormat> select(FormatCatalog catalog, List<String> selectors) {
        if (selectors == null || selectors.isEmpty()) {
            return catalog.formats();
        }
        Map<String, EventFormat> out = new LinkedHashMap<>();
        for (String sel : selectors) {
            int colon = sel.indexOf(':');
            if (colon <= 0 || colon == sel.length() - 1) {
                throw new IllegalArgumentException("'" + sel + "' is not SYSTEM:EVENT or SYSTEM:*");
            }
            String system = sel.substring(0, colon);
            String event = sel.substring(colon + 1);
            List<EventFormat> matched = new ArrayList<>();
            for (EventFormat f : catalog.formats()) {
                if (f.system().equals(system) && (event.equals("*") || f.name().equals(event))) {
                    matched.add(f);
                }
            }
            if (matched.isEmpty()) {
                throw new IllegalArgumentException(event.equals("*") ? "unknown system '" + system + "'"
                        : "unknown event '" + sel + "'");
            }
            matched.forEach(f -> out.putIfAbsent(f.fullName(), f));
        }
        return new ArrayList<>(out.values());
    }
}
