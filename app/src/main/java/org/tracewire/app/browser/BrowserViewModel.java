package org.tracewire.app.browser;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.tracewire.app.util.PrintFmtPretty;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.filter.Glob;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.tracefs.Tracefs;

/**
 * The tracefs browser's state: all events grouped by system, narrowed by {@link #filterTextProperty()}
 * as the user types (by name, by glob, by field name: {@link #filter(List, String, Function)}), the
 * selected event's {@link EventDetails}, the multi-selection of events and systems to add to the
 * capture ({@link #getSelection()}, {@link #eventsToAdd()}), and tracefs-wide facts (tracers, clocks,
 * buffer size). Reads tracefs through the {@link TaskExecutor}, never on the UI thread.
 */
public final class BrowserViewModel {
    private final TaskExecutor executor;
    private final StringProperty sourceLabel = new SimpleStringProperty("loading…");
    private final StringProperty filterText = new SimpleStringProperty("");
    private final ObservableList<SystemEntry> systems = FXCollections.observableArrayList();
    private final IntegerProperty matchCount = new SimpleIntegerProperty();
    private final IntegerProperty totalCount = new SimpleIntegerProperty();
    private final StringProperty selectedEvent = new SimpleStringProperty();
    private final ObjectProperty<EventDetails> details = new SimpleObjectProperty<>();
    private final StringProperty tracers = new SimpleStringProperty("");
    private final StringProperty clocks = new SimpleStringProperty("");
    private final StringProperty bufferSize = new SimpleStringProperty("");
    private final StringProperty status = new SimpleStringProperty("");
    private final ReadOnlyBooleanWrapper live = new ReadOnlyBooleanWrapper();
    private volatile Tracefs tracefs;
    private List<String> allEvents = List.of();
    private Map<String, Set<String>> fieldsByEvent = Map.of();
    private final ObservableList<String> selection = FXCollections.observableArrayList();
    private final ReadOnlyBooleanWrapper fieldsIndexed = new ReadOnlyBooleanWrapper();
    private final Map<String, List<String>> matchedFields = new HashMap<>();
    private long detailsRequest;

    /** @param executor runs tracefs reads in the background */
    public BrowserViewModel(TaskExecutor executor) {
        this.executor = executor;
        filterText.addListener((o, a, b) -> applyFilter());
        selectedEvent.addListener((o, a, b) -> loadDetails(b));
    }

    /**
     * Loads the event list and tracefs facts in the background.
     *
     * @param source the tracefs tree to browse
     */
    public void load(Tracefs source) {
        status.set("reading " + source.label() + "…");
        executor.execute(() -> {
            List<String> events = source.allEvents();
            String tr = String.join(" ", safe(source::availableTracers));
            List<String> cl = safe(source::traceClocks);
            String cur = safeString(source::currentClock);
            String buf = bufferText(safeString(() -> source.read("buffer_size_kb")));
            return new Loaded(events, tr, String.join(" ", cl) + (cur.isEmpty() ? "" : " (current: " + cur + ")"), buf);
        }, loaded -> {
            tracefs = source;
            live.set(source.isLive());
            sourceLabel.set(source.label());
            allEvents = loaded.events();
            totalCount.set(allEvents.size());
            tracers.set(loaded.tracers());
            clocks.set(loaded.clocks());
            bufferSize.set(loaded.buffer());
            status.set(allEvents.size() + " events in " + source.label());
            fieldsByEvent = Map.of();
            fieldsIndexed.set(false);
            applyFilter();
            indexFields(source);
        }, e -> status.set("cannot read " + source.label() + ": " + e.getMessage()));
    }

    /** Reads every event's field names in the background (search by field name), then filters again. */
    private void indexFields(Tracefs source) {
        executor.execute(() -> fieldIndex(source), index -> {
            if (tracefs != source) {
                return;
            }
            fieldsByEvent = index;
            fieldsIndexed.set(true);
            applyFilter();
        }, e -> status.set("cannot index the fields of " + source.label() + ": " + e.getMessage()));
    }

    /**
     * Every event's field names (common fields included), lower case (blocking: call off the UI thread).
     * Events whose format does not parse have none.
     *
     * @param t the tracefs tree
     * @return "system:event" to its field names
     */
    public static Map<String, Set<String>> fieldIndex(Tracefs t) {
        Map<String, Set<String>> out = new HashMap<>();
        for (EventFormat f : t.formats().formats()) {
            Set<String> names = new HashSet<>();
            for (Field field : f.allFields()) {
                names.add(field.name().toLowerCase(Locale.ROOT));
            }
            out.put(f.fullName(), Set.copyOf(names));
        }
        return out;
    }

    /**
     * Describes the {@code buffer_size_kb} file: {@code 1410} or {@code 7 (expanded: 1408)} (the
     * kernel keeps a minimal buffer until tracing is first used).
     *
     * @param raw the file's text
     * @return e.g. "1410 KB per CPU" or "7 KB per CPU (1408 KB once tracing is used)"
     */
    public static String bufferText(String raw) {
        Matcher m = Pattern.compile("(\\d+)\\s*(?:\\(expanded:\\s*(\\d+)\\))?").matcher(raw.strip());
        if (!m.lookingAt()) {
            return raw.strip();
        }
        return m.group(1) + " KB per CPU" + (m.group(2) != null ? " (" + m.group(2) + " KB once tracing is used)" : "");
    }

    private record Loaded(List<String> events, String tracers, String clocks, String buffer) {
    }

    private interface Reader<T> {
        T read() throws Exception;
    }

    private static List<String> safe(Reader<List<String>> r) {
        try {
            return r.read();
        } catch (Exception e) {
            return List.of();
        }
    }

    private static String safeString(Reader<String> r) {
        try {
            String s = r.read();
            return s == null ? "" : s;
        } catch (Exception e) {
            return "";
        }
    }

    /**
     * The events matching a filter text by name only ({@link #filter(List, String, Function)} without fields).
     *
     * @param events all "system:event" names
     * @param text   the filter text
     * @return the systems with their matching events, sorted by name
     */
    public static List<SystemEntry> filter(List<String> events, String text) {
        return filter(events, text, e -> Set.of());
    }

    /**
     * The events matching a filter text. Words are separated by spaces, case does not matter, and
     * every word must match. A word with a glob character ({@code * ? [}, the kernel's glob:
     * {@link Glob}) matches an event when it matches the whole "system:event", the event name alone,
     * or one of the event's field names ({@code sched:*wake*}, {@code *_pid}); a plain word matches
     * when it is part of "system:event" or is exactly one of the event's field names
     * ({@code prev_pid} finds sched:sched_switch).
     *
     * @param events all "system:event" names
     * @param text   the filter text
     * @param fields an event's field names in lower case (empty when unknown)
     * @return the systems with their matching events, sorted by name
     */
    public static List<SystemEntry> filter(List<String> events, String text, Function<String, Set<String>> fields) {
        return filter(events, text, fields, null);
    }

    private static List<SystemEntry> filter(List<String> events, String text, Function<String, Set<String>> fields,
                                            Map<String, List<String>> byField) {
        List<String> words = new ArrayList<>();
        if (text != null) {
            for (String w : text.strip().toLowerCase(Locale.ROOT).split("\\s+")) {
                if (!w.isEmpty()) {
                    words.add(w);
                }
            }
        }
        Map<String, List<String>> bySystem = new TreeMap<>();
        outer:
        for (String e : events) {
            String lower = e.toLowerCase(Locale.ROOT);
            List<String> viaFields = null;
            for (String w : words) {
                String field = matchWord(lower, w, fields.apply(e));
                if (field == null) {
                    continue outer;
                }
                if (!field.isEmpty()) {
                    if (viaFields == null) {
                        viaFields = new ArrayList<>();
                    }
                    viaFields.add(field);
                }
            }
            EventSelector sel = EventSelector.parseEvent(e);
            bySystem.computeIfAbsent(sel.system(), k -> new ArrayList<>()).add(sel.event());
            if (byField != null && viaFields != null) {
                byField.put(e, viaFields);
            }
        }
        List<SystemEntry> out = new ArrayList<>(bySystem.size());
        bySystem.forEach((sys, evs) -> {
            evs.sort(null);
            out.add(new SystemEntry(sys, List.copyOf(evs)));
        });
        return out;
    }

    /** @return null when the word does not match, "" when it matched the name, else the field it matched */
    private static String matchWord(String fullName, String word, Set<String> fields) {
        if (isGlob(word)) {
            if (Glob.problem(word) != null) {
                return null;
            }
            if (Glob.matches(word, fullName) || Glob.matches(word, fullName.substring(fullName.indexOf(':') + 1))) {
                return "";
            }
            for (String f : fields) {
                if (Glob.matches(word, f)) {
                    return f;
                }
            }
            return null;
        }
        if (fullName.contains(word)) {
            return "";
        }
        return fields.contains(word) ? word : null;
    }

    private static boolean isGlob(String word) {
        return word.indexOf('*') >= 0 || word.indexOf('?') >= 0 || word.indexOf('[') >= 0;
    }

    private void applyFilter() {
        Map<String, List<String>> byField = new HashMap<>();
        Map<String, Set<String>> index = fieldsByEvent;
        List<SystemEntry> result = filter(allEvents, filterText.get(), e -> index.getOrDefault(e, Set.of()), byField);
        matchedFields.clear();
        matchedFields.putAll(byField);
        systems.setAll(result);
        matchCount.set(result.stream().mapToInt(s -> s.events().size()).sum());
    }

    /**
     * The fields through which an event matched the search ({@code prev_pid} for sched:sched_switch
     * when searching {@code prev_pid}), empty when it matched by name.
     *
     * @param fullName "system:event"
     * @return field names, lower case
     */
    public List<String> matchedFields(String fullName) {
        return matchedFields.getOrDefault(fullName, List.of());
    }

    /**
     * The events that "Add to capture" adds: each selected event, and every event a selected
     * system shows in the tree (all its events when the search is empty, the matching ones when it
     * narrows them), in selection order without duplicates. With nothing in {@link #getSelection()},
     * the {@link #selectedEventProperty() selected event}, if any.
     *
     * @return "system:event" names
     */
    public List<String> eventsToAdd() {
        LinkedHashSet<String> out = new LinkedHashSet<>();
        for (String item : selection) {
            if (item.indexOf(':') >= 0) {
                out.add(item);
                continue;
            }
            for (SystemEntry s : systems) {
                if (s.name().equals(item)) {
                    for (String e : s.events()) {
                        out.add(s.name() + ":" + e);
                    }
                }
            }
        }
        if (out.isEmpty() && selection.isEmpty() && selectedEvent.get() != null && selectedEvent.get().indexOf(':') > 0) {
            out.add(selectedEvent.get());
        }
        return List.copyOf(out);
    }

    /**
     * The browser's multi-selection: "system:event" for an event, "system" for a system node (which
     * stands for all its shown events, {@link #eventsToAdd()}).
     */
    public ObservableList<String> getSelection() {
        return selection;
    }

    /** True once every event's field names were read (search by field name works from then on). */
    public ReadOnlyBooleanProperty fieldsIndexedProperty() {
        return fieldsIndexed.getReadOnlyProperty();
    }

    private static EventSelector parseOrNull(String fullName) {
        try {
            return EventSelector.parse(fullName);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private void loadDetails(String fullName) {
        Tracefs t = tracefs;
        long req = ++detailsRequest;
        EventSelector selector = fullName == null ? null : parseOrNull(fullName);
        if (selector == null || t == null || !selector.isOneEvent()) {
            details.set(null);
            return;
        }
        executor.execute(() -> details(t, selector.system(), selector.event()), d -> {
            if (req == detailsRequest) {
                details.set(d);
            }
        }, e -> {
            if (req == detailsRequest) {
                details.set(null);
                status.set("cannot read " + fullName + ": " + e.getMessage());
            }
        });
    }

    /**
     * Reads one event's details (blocking: call off the UI thread).
     *
     * @param t      the tracefs tree
     * @param system the system
     * @param event  the event
     * @return the details
     */
    public static EventDetails details(Tracefs t, String system, String event) {
        EventFormat f = t.format(system, event);
        List<EventDetails.FieldRow> rows = f.allFields().stream().map(EventDetails.FieldRow::of).toList();
        String enabled;
        String filter;
        if (t.isLive()) {
            enabled = safeString(() -> t.isEnabled(system, event) ? "yes" : "no");
            filter = safeString(() -> t.filter(system, event));
            if (filter.isBlank()) {
                filter = "none";
            }
        } else {
            enabled = "n/a (snapshot)";
            filter = "n/a (snapshot)";
        }
        return new EventDetails(f.fullName(), f.id(), rows, f.printFmt(), PrintFmtPretty.pretty(f.printFmt()),
                enabled, filter, f);
    }

    /** The tracefs tree being browsed, or null before {@link #load} finished. */
    public Tracefs tracefs() {
        return tracefs;
    }

    /** "snapshot of Linux 6.18, read only" or "live tracefs …". */
    public StringProperty sourceLabelProperty() {
        return sourceLabel;
    }

    /** What the user typed into the search field. */
    public StringProperty filterTextProperty() {
        return filterText;
    }

    /** Systems with their matching events, rebuilt on every keystroke. */
    public ObservableList<SystemEntry> getSystems() {
        return systems;
    }

    /** Number of events matching the filter. */
    public IntegerProperty matchCountProperty() {
        return matchCount;
    }

    /** Number of events in tracefs. */
    public IntegerProperty totalCountProperty() {
        return totalCount;
    }

    /** The selected "system:event", or null. */
    public StringProperty selectedEventProperty() {
        return selectedEvent;
    }

    /** The selected event's details, or null. */
    public ObjectProperty<EventDetails> detailsProperty() {
        return details;
    }

    /** Available tracers, space separated. */
    public StringProperty tracersProperty() {
        return tracers;
    }

    /** Trace clocks and the current one. */
    public StringProperty clocksProperty() {
        return clocks;
    }

    /** The ring buffer size. */
    public StringProperty bufferSizeProperty() {
        return bufferSize;
    }

    /** A one-line status. */
    public StringProperty statusProperty() {
        return status;
    }

    /** True when browsing the live tracefs. */
    public ReadOnlyBooleanProperty liveProperty() {
        return live.getReadOnlyProperty();
    }
}
