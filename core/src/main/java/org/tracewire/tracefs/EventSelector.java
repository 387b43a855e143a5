package org.tracewire.tracefs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;

/**
 * The one way tracewire names events: {@code SYSTEM:EVENT} (one event) or {@code SYSTEM:*} (every
 * event of a system), as trace-cmd's {@code -e} and tracefs' {@code set_event} spell them. Both
 * parts are plain tracefs directory names: not empty, not {@code .} or {@code ..}, no {@code /},
 * no {@code :}, no NUL, no white space. Used by every command, the backend and the app.
 *
 * @param system the event's system, e.g. {@code sched}
 * @param event  the event name, e.g. {@code sched_switch}, or {@value #WHOLE_SYSTEM}
 */
public record EventSelector(String system, String event) {
    /** The event part that selects every event of the system. */
    public static final String WHOLE_SYSTEM = "*";

    /**
     * @throws IllegalArgumentException when a part is not a plain name (see the class comment)
     */
    public EventSelector {
        Objects.requireNonNull(system, "system");
        Objects.requireNonNull(event, "event");
        if (!plainName(system) || !(event.equals(WHOLE_SYSTEM) || plainName(event))) {
            throw new IllegalArgumentException("'" + system + ":" + event + "' is not SYSTEM:EVENT or SYSTEM:*");
        }
    }

    /**
     * Parses {@code SYSTEM:EVENT} or {@code SYSTEM:*}.
     *
     * @param text the selector
     * @return the selector
     * @throws IllegalArgumentException when it is not exactly one colon between two plain names
     */
    public static EventSelector parse(String text) {
        int colon = text == null ? -1 : text.indexOf(':');
        if (colon <= 0 || colon == text.length() - 1 || text.indexOf(':', colon + 1) >= 0) {
            throw new IllegalArgumentException("'" + text + "' is not SYSTEM:EVENT or SYSTEM:*");
        }
        return new EventSelector(text.substring(0, colon), text.substring(colon + 1));
    }

    /**
     * Parses {@code SYSTEM:EVENT}, one event (no {@code *}).
     *
     * @param text the event's full name
     * @return the selector
     * @throws IllegalArgumentException when it is not {@code SYSTEM:EVENT}
     */
    public static EventSelector parseEvent(String text) {
        EventSelector s = parse(text);
        if (s.isWholeSystem()) {
            throw new IllegalArgumentException("'" + text + "' is not SYSTEM:EVENT (one event, no *)");
        }
        return s;
    }

    /** True for {@code SYSTEM:*}. */
    public boolean isWholeSystem() {
        return event.equals(WHOLE_SYSTEM);
    }

    /** True when the format is the event named, or one of the system's. */
    public boolean matches(EventFormat format) {
        return format.system().equals(system) && (isWholeSystem() || format.name().equals(event));
    }

    /**
     * The events this selector names in a tracefs tree.
     *
     * @param tracefs the tree (live or a snapshot)
     * @return full names {@code system:event}, sorted
     * @throws IllegalArgumentException for an unknown system or event, naming the tree
     */
    public List<String> resolve(Tracefs tracefs) {
        if (isWholeSystem()) {
            List<String> events = tracefs.events(system);
            if (events.isEmpty()) {
                throw new IllegalArgumentException("unknown system '" + system + "' in " + tracefs.label());
            }
            return events.stream().map(e -> system + ":" + e).toList();
        }
        if (!tracefs.exists("events/" + system + "/" + event + "/format")) {
            throw new IllegalArgumentException("unknown event '" + this + "' in " + tracefs.label()
                    + " (no events/" + system + "/" + event + "/format)");
        }
        return List.of(toString());
    }

    /**
     * Resolves a list of selectors in a tracefs tree.
     *
     * @param tracefs   the tree
     * @param selectors selectors as text; empty selects every event
     * @return the selected events as selectors of one event each, in selector order, without duplicates
     * @throws IllegalArgumentException for a malformed selector or one naming nothing
     */
    public static List<EventSelector> resolveAll(Tracefs tracefs, List<String> selectors) {
        Set<String> seen = new LinkedHashSet<>();
        if (selectors == null || selectors.isEmpty()) {
            seen.addAll(tracefs.allEvents());
        } else {
            for (String s : selectors) {
                seen.addAll(parse(s).resolve(tracefs));
            }
        }
        return seen.stream().map(EventSelector::parseEvent).toList();
    }

    /**
     * Selects formats of a catalog.
     *
     * @param catalog   the parsed formats
     * @param selectors selectors as text; empty selects every format
     * @return the selected formats in selector order without duplicates
     * @throws IllegalArgumentException for a malformed selector or one that matches nothing
     */
    public static List<EventFormat> select(FormatCatalog catalog, List<String> selectors) {
        if (selectors == null || selectors.isEmpty()) {
            return catalog.formats();
        }
        Map<String, EventFormat> out = new LinkedHashMap<>();
        for (String text : selectors) {
            EventSelector sel = parse(text);
            List<EventFormat> matched = catalog.formats().stream().filter(sel::matches).toList();
            if (matched.isEmpty()) {
                throw new IllegalArgumentException(sel.isWholeSystem() ? "unknown system '" + sel.system() + "'"
                        : "unknown event '" + sel + "'");
            }
            matched.forEach(f -> out.putIfAbsent(f.fullName(), f));
        }
        return new ArrayList<>(out.values());
    }

    /** {@code system:event}. */
    @Override
    public String toString() {
        return system + ":" + event;
    }

    private static boolean plainName(String s) {
        if (s.isEmpty() || s.equals(".") || s.equals("..")) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '/' || c == ':' || c == '\0' || Character.isWhitespace(c) || c == '*') {
                return false;
            }
        }
        return true;
    }
}
