package org.tracewire.app.browser;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
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
import org.tracewire.format.EventFormat;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.tracefs.Tracefs;

/**
 * The tracefs browser's state: all events grouped by system, narrowed by {@link #filterTextProperty()}
 * as the user types, the selected event's {@link EventDetails}, and tracefs-wide facts (tracers,
 * clocks, buffer size). Reads tracefs through the {@link TaskExecutor}, never on the UI thread.
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
            applyFilter();
        }, e -> status.set("cannot read " + source.label() + ": " + e.getMessage()));
    }

    /**
     * Describes the {@code buffer_size_kb} file: {@code 1410} or {@code 7 (expanded: 1408)} (the
     * kernel keeps a minimal buffer until tracing is first used).
     *
     * @param raw the file's text
     * @return e.g. "1410 KB per CPU" or "7 KB per CPU (1408 KB once tracing is used)"
     */
    public static String bufferText(String raw) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)\\s*(?:\\(expanded:\\s*(\\d+)\\))?").matcher(raw.strip());
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
     * The events matching a filter text: case-insensitive substring of "system:event"; several words
     * separated by spaces must all match.
     *
     * @param events all "system:event" names
     * @param text   the filter text
     * @return the systems with their matching events, sorted by name
     */
    public static List<SystemEntry> filter(List<String> events, String text) {
        String[] words = text == null ? new String[0] : text.strip().toLowerCase(Locale.ROOT).split("\\s+");
        Map<String, List<String>> bySystem = new TreeMap<>();
        outer:
        for (String e : events) {
            String lower = e.toLowerCase(Locale.ROOT);
            for (String w : words) {
                if (!w.isEmpty() && !lower.contains(w)) {
                    continue outer;
                }
            }
            EventSelector sel = EventSelector.parseEvent(e);
            bySystem.computeIfAbsent(sel.system(), k -> new ArrayList<>()).add(sel.event());
        }
        List<SystemEntry> out = new ArrayList<>(bySystem.size());
        bySystem.forEach((sys, evs) -> {
            evs.sort(null);
            out.add(new SystemEntry(sys, List.copyOf(evs)));
        });
        return out;
    }

    private void applyFilter() {
        List<SystemEntry> result = filter(allEvents, filterText.get());
        systems.setAll(result);
        matchCount.set(result.stream().mapToInt(s -> s.events().size()).sum());
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
        if (selector == null || t == null || selector.isWholeSystem()) {
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
