package org.tracewire.tracefs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.regex.Pattern;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.text.EditDistance;

/**
 * The one way tracewire names events, trace-cmd's {@code -e} syntax (trace-cmd-record(1)):
 * {@code SYSTEM:EVENT} (one event), {@code SYSTEM:*} (every event of a system), globs in either
 * part ({@code sched:*wake*}, {@code sched*:sched_switch}; {@code *}, {@code ?} and
 * {@code [...]}), and a bare {@code WORD} (a glob too), which selects every event of the systems
 * it matches and every event it matches by name in any system ({@code -e sched},
 * {@code -e sched_switch}, {@code -e 'sys_enter_open*'}). Each part is otherwise a plain tracefs
 * directory name: not empty, not {@code .} or {@code ..}, no {@code /}, no {@code :}, no NUL, no
 * white space. Used by every command, the backend and the app.
 *
 * @param system the event's system or a glob of systems, e.g. {@code sched}; null for a bare
 *               word, which is then {@code event}
 * @param event  the event name or a glob, e.g. {@code sched_switch} or {@value #WHOLE_SYSTEM}
 */
public record EventSelector(String system, String event) {
    /** The event part that selects every event of the system. */
    public static final String WHOLE_SYSTEM = "*";
    /** The system of the kernel's own record types, which globs and bare words leave out. */
    public static final String RECORD_TYPES = "ftrace";

    /**
     * @throws IllegalArgumentException when a part is not a plain name or glob (see the class
     *         comment)
     */
    public EventSelector {
        Objects.requireNonNull(event, "event");
        if (!(system == null || plainName(system)) || !plainName(event)) {
            throw new IllegalArgumentException("'" + (system == null ? event : system + ":" + event)
                    + "' is not SYSTEM:EVENT, SYSTEM or EVENT (globs allowed)");
        }
    }

    /**
     * Parses {@code SYSTEM:EVENT}, {@code SYSTEM:*}, a glob of either, or a bare {@code WORD}.
     *
     * @param text the selector
     * @return the selector
     * @throws IllegalArgumentException when it has more than one colon, an empty part, or a part
     *         that is not a plain name or glob
     */
    public static EventSelector parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("no event given: SYSTEM:EVENT, SYSTEM or EVENT");
        }
        int colon = text.indexOf(':');
        if (colon < 0) {
            return new EventSelector(null, text);
        }
        if (colon == 0 || colon == text.length() - 1 || text.indexOf(':', colon + 1) >= 0) {
            throw new IllegalArgumentException("'" + text + "' is not SYSTEM:EVENT, SYSTEM or EVENT (globs allowed)");
        }
        return new EventSelector(text.substring(0, colon), text.substring(colon + 1));
    }

    /**
     * Parses {@code SYSTEM:EVENT}, one event (no glob, no bare word).
     *
     * @param text the event's full name
     * @return the selector
     * @throws IllegalArgumentException when it is not {@code SYSTEM:EVENT}
     */
    public static EventSelector parseEvent(String text) {
        EventSelector s = parse(text);
        if (!s.isOneEvent()) {
            throw new IllegalArgumentException("'" + text + "' is not SYSTEM:EVENT (one event, no glob)");
        }
        return s;
    }

    /** True for {@code SYSTEM:*} with a plain system. */
    public boolean isWholeSystem() {
        return system != null && !isGlob(system) && event.equals(WHOLE_SYSTEM);
    }

    /** True for {@code SYSTEM:EVENT} without a glob: exactly one event. */
    public boolean isOneEvent() {
        return system != null && !isGlob(system) && !isGlob(event);
    }

    /**
     * True when the named event is selected. A glob or bare word does not reach into the
     * {@value #RECORD_TYPES} system unless it names it: those are the tracers' record types
     * (function, kernel_stack, ...), which have no {@code enable} file (trace-cmd skips them too).
     */
    public boolean matches(String eventSystem, String eventName) {
        return predicate().test(eventSystem, eventName);
    }

    /** True when the format's event is selected. */
    public boolean matches(EventFormat format) {
        return matches(format.system(), format.name());
    }

    /** {@link #matches(String, String)} with the globs compiled once, for testing many events. */
    private BiPredicate<String, String> predicate() {
        boolean recordTypes = RECORD_TYPES.equals(system) || RECORD_TYPES.equals(event);
        Pattern e = glob(event);
        Pattern sys = system == null ? null : glob(system);
        return (eventSystem, eventName) -> {
            if (!recordTypes && eventSystem.equals(RECORD_TYPES)) {
                return false;
            }
            return sys == null ? e.matcher(eventSystem).matches() || e.matcher(eventName).matches()
                    : sys.matcher(eventSystem).matches() && e.matcher(eventName).matches();
        };
    }

    /**
     * The events this selector names in a tracefs tree.
     *
     * @param tracefs the tree (live or a snapshot)
     * @return full names {@code system:event}, sorted
     * @throws IllegalArgumentException when it names nothing there, naming the tree and the
     *         closest event names ("did you mean")
     */
    public List<String> resolve(Tracefs tracefs) {
        if (isOneEvent()) {
            if (tracefs.exists("events/" + system + "/" + event + "/format")) {
                return List.of(toString());
            }
        } else if (isWholeSystem()) {
            List<String> events = tracefs.events(system);
            if (!events.isEmpty()) {
                return events.stream().map(e -> system + ":" + e).toList();
            }
        } else {
            List<String> all = tracefs.allEvents();
            List<String> out = select(all);
            if (!out.isEmpty()) {
                return out;
            }
            throw unknown(all, tracefs.label());
        }
        throw unknown(tracefs.allEvents(), tracefs.label());
    }

    /** The full names ({@code system:event}) of {@code all} this selector matches, in their order. */
    public List<String> select(List<String> all) {
        BiPredicate<String, String> selected = predicate();
        List<String> out = new ArrayList<>();
        for (String full : all) {
            int colon = full.indexOf(':');
            if (selected.test(full.substring(0, colon), full.substring(colon + 1))) {
                out.add(full);
            }
        }
        return out;
    }

    /** The error for a selector that matched none of {@code all}, with up to three close names. */
    private IllegalArgumentException unknown(List<String> all, String label) {
        String what = isWholeSystem() ? "system '" + system + "'" : "event '" + this + "'";
        StringBuilder msg = new StringBuilder("unknown " + what + " in " + label);
        List<String> close = closest(all);
        if (!close.isEmpty()) {
            msg.append("; did you mean ").append(String.join(", ", close)).append('?');
        }
        return new IllegalArgumentException(msg.toString());
    }

    /** Up to three names of {@code all} (full names, systems, bare event names) nearest in edit distance. */
    private List<String> closest(List<String> all) {
        String typed = toString();
        Set<String> candidates = new LinkedHashSet<>();
        for (String full : all) {
            int colon = full.indexOf(':');
            if (system == null) {
                candidates.add(full.substring(0, colon));
                candidates.add(full.substring(colon + 1));
            } else if (isWholeSystem()) {
                candidates.add(full.substring(0, colon) + ":*");
            } else {
                candidates.add(full);
            }
        }
        int limit = Math.max(2, typed.length() / 4);
        Map<String, Integer> distance = new LinkedHashMap<>();
        for (String c : candidates) {
            int d = EditDistance.between(typed, c);
            if (d <= limit) {
                distance.put(c, d);
            }
        }
        return distance.entrySet().stream().sorted(Map.Entry.comparingByValue()).limit(3)
                .map(Map.Entry::getKey).toList();
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
            BiPredicate<String, String> selected = sel.predicate();
            List<EventFormat> matched = catalog.formats().stream().filter(f -> selected.test(f.system(), f.name()))
                    .toList();
            if (matched.isEmpty()) {
                throw sel.unknown(catalog.formats().stream().map(EventFormat::fullName).toList(), "the formats read");
            }
            matched.forEach(f -> out.putIfAbsent(f.fullName(), f));
        }
        return new ArrayList<>(out.values());
    }

    /** {@code system:event}, or the bare word. */
    @Override
    public String toString() {
        return system == null ? event : system + ":" + event;
    }

    private static boolean isGlob(String s) {
        return s.indexOf('*') >= 0 || s.indexOf('?') >= 0 || s.indexOf('[') >= 0;
    }

    /** A glob ({@code *}, {@code ?}, {@code [...]}, {@code [!...]}) as a regular expression; other characters literal. */
    private static Pattern glob(String g) {
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < g.length(); i++) {
            char c = g.charAt(i);
            int close = c == '[' ? g.indexOf(']', i + 2) : -1;
            if (c == '*') {
                re.append(".*");
            } else if (c == '?') {
                re.append('.');
            } else if (close > 0) {
                String set = g.substring(i + 1, close);
                boolean negate = set.startsWith("!");
                re.append('[').append(negate ? "^" : "")
                        .append(set.substring(negate ? 1 : 0).replace("\\", "\\\\").replace("[", "\\[")).append(']');
                i = close;
            } else {
                re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(re.toString());
    }

    private static boolean plainName(String s) {
        if (s.isEmpty() || s.equals(".") || s.equals("..")) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '/' || c == ':' || c == '\0' || Character.isWhitespace(c)) {
                return false;
            }
        }
        return true;
    }
}
