package org.tracewire.app.capture;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.ObservableList;
import javafx.collections.transformation.FilteredList;
import javafx.collections.transformation.SortedList;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.filter.Filter;
import org.tracewire.filter.FilterSyntaxException;
import org.tracewire.filter.RecordFilter;
import org.tracewire.format.EventFormat;
import org.tracewire.format.TaskFields;
import org.tracewire.io.AtomicFile;
import org.tracewire.record.EventRecord;

/**
 * The event table's state over the capture's ring of rows: a filtered and sorted view
 * ({@link #getItems()}), the selected event (kept by identity, so it stays on its event while rows
 * are added, evicted or re-sorted), "follow newest" (a live capture's, over its store table), find, time column modes, copy/export as text or CSV, and the context menu's filters.
 *
 * <p>The filter box takes the kernel's filter syntax ({@code org.tracewire.filter}), compiled per
 * event with {@link RecordFilter} over the row's fields ({@link RowRecords}): a row passes when its
 * event has every field the filter names and the filter holds. {@code COMM} compares the row's
 * task name. On top of it: an event restriction and a "follow this thread" restriction (rows of the
 * task, and sched rows naming it as {@code pid}, {@code prev_pid} or {@code next_pid}).
 */
public final class EventTableViewModel extends TableFilters {
    /** How the time column shows time stamps. */
    public enum TimeMode {
        /**
         * The time stamp itself: the time of day with ns when the rows' times are wall clock, else
         * (a trace.dat, a raw-clock capture: the trace clock) seconds since boot with ns.
         */
        ABSOLUTE,
        /** Seconds since the first event of the capture. */
        RELATIVE
    }

    private final ObservableList<EventRow> rows;
    private final TaskExecutor executor;
    private final FilteredList<EventRow> filtered;
    private final SortedList<EventRow> sorted;
    private RowRecords records = RowRecords.none();
    private final BooleanProperty follow = new SimpleBooleanProperty(true);
    private final BooleanProperty wallClock = new SimpleBooleanProperty(true);
    private final ObjectProperty<TimeMode> timeMode = new SimpleObjectProperty<>(TimeMode.ABSOLUTE);
    private final ObjectProperty<EventRow> selected = new SimpleObjectProperty<>();
    private final StringProperty findText = new SimpleStringProperty("");
    private final StringProperty message = new SimpleStringProperty("");
    private long origin = Long.MIN_VALUE;
    /** The filter in force (the last valid one) and its compiled form per event. */
    private Map<String, RecordFilter> compiled = new HashMap<>();
    private Filter filter;
    private String validText = "";
    private String currentComm = "";

    /**
     * @param rows     the capture's rows, oldest first
     * @param executor background work (export)
     */
    public EventTableViewModel(ObservableList<EventRow> rows, TaskExecutor executor) {
        this.rows = rows;
        this.executor = executor;
        this.filtered = new FilteredList<>(rows);
        this.sorted = new SortedList<>(filtered);
        filterText.addListener((o, a, b) -> applyFilter());
        eventRestriction.addListener((o, a, b) -> applyFilter());
        thread.addListener((o, a, b) -> applyFilter());
    }

    /** Formats for the filter ({@link RowRecords}); set once a tracefs is known. */
    public void setRecords(RowRecords records) {
        this.records = records;
        applyFilter();
    }

    /** The rows shown: the ring filtered, then sorted by the table's comparator. */
    public SortedList<EventRow> getItems() {
        return sorted;
    }

    /** Called by the capture view model after rows were appended (and old ones evicted). */
    void appended(List<EventRow> batch) {
        if (origin == Long.MIN_VALUE && !batch.isEmpty()) {
            origin = batch.get(0).ts();
        }
        if (selected.get() != null && indexOfSelected() < 0) {
            message.set("the selected event left the window of the latest " + String.format("%,d", CaptureViewModel.WINDOW));
            selected.set(null);
        }
    }

    /** Called when a new capture clears the rows. */
    void cleared() {
        origin = Long.MIN_VALUE;
        selected.set(null);
    }

    /**
     * Applies the filter box, the event and the thread restriction. A filter that does not parse, or
     * that no event among the rows takes (a field none of them has, an operator or value none of
     * their fields take), is an error shown with its position, and the table keeps the last valid
     * filter instead of emptying; the event and thread restrictions apply either way.
     */
    private void applyFilter() {
        String text = filterText.get() == null ? "" : filterText.get().strip();
        filterError.set("");
        filterErrorPosition.set(-1);
        if (text.isEmpty()) {
            filter = null;
            compiled = new HashMap<>();
            validText = "";
        } else {
            try {
                Filter parsed = Filter.parse(text);
                Map<String, RecordFilter> byEvent = new HashMap<>();
                FilterSyntaxException none = compileForRows(parsed, byEvent);
                if (none != null) {
                    throw none;
                }
                filter = parsed;
                compiled = byEvent;
                validText = text;
            } catch (FilterSyntaxException e) {
                filterError.set(e.pointer(text) + "\n" + e.detail() + "\n"
                        + (validText.isEmpty() ? "(the table is not filtered meanwhile)" : "(the table keeps the last valid filter: " + validText + ")"));
                filterErrorPosition.set(e.position());
            }
        }
        String ev = eventRestriction.get();
        Integer tid = thread.get();
        Filter f = filter;
        Map<String, RecordFilter> byEvent = compiled;
        if (f == null && ev == null && tid == null) {
            filtered.setPredicate(null);
        } else {
            filtered.setPredicate(r -> (ev == null || ev.equals(r.event())) && (tid == null || involves(r, tid))
                    && (f == null || passes(f, byEvent, r)));
        }
    }

    /**
     * Compiles a filter for every event among the rows into {@code byEvent} (null for an event that
     * does not take it).
     *
     * @return null when at least one event takes the filter (or there are no rows yet); else the
     *         problem of the first event, with its position, worded for all of them
     */
    private FilterSyntaxException compileForRows(Filter f, Map<String, RecordFilter> byEvent) {
        FilterSyntaxException first = null;
        String firstEvent = null;
        boolean any = false;
        for (EventRow r : rows) {
            if (byEvent.containsKey(r.event())) {
                continue;
            }
            EventFormat format = records.format(r.event());
            RecordFilter rf = null;
            if (format != null) {
                try {
                    rf = RecordFilter.compile(f, format, pid -> currentComm);
                    any = true;
                } catch (FilterSyntaxException e) {
                    if (first == null) {
                        first = e;
                        firstEvent = r.event();
                    }
                }
            }
            byEvent.put(r.event(), rf);
        }
        if (any || byEvent.isEmpty()) {
            return null;
        }
        if (first == null) {
            return new FilterSyntaxException(0, "the formats of the events shown are unknown: nothing to filter on");
        }
        int n = byEvent.size();
        return new FilterSyntaxException(first.position(), first.detail() + (n > 1
                ? String.format(" (and no other of the %d events shown takes this filter)", n - 1) : "")
                + (first.detail().contains(firstEvent) ? "" : " [" + firstEvent + "]"));
    }

    /**
     * Whether the row is of the task or names it (the fields that name a task, {@link TaskFields}:
     * {@code prev_pid}, {@code next_pid}, a wakeup's {@code pid}, …), by its record's format, else by
     * the format of its event.
     */
    private boolean involves(EventRow r, int pid) {
        if (r.pid() == pid) {
            return true;
        }
        EventFormat format = r.record() != null ? r.record().format() : records.format(r.event());
        if (format == null) {
            return false;
        }
        for (TaskFields.TaskField t : TaskFields.of(format)) {
            Object v = r.fields().get(t.pid().name());
            if (!t.pid().common() && v != null && String.valueOf(pid).equals(v.toString().strip())) {
                return true;
            }
        }
        return false;
    }

    private boolean passes(Filter f, Map<String, RecordFilter> byEvent, EventRow r) {
        RecordFilter rf = byEvent.get(r.event());
        if (rf == null && !byEvent.containsKey(r.event())) {
            EventFormat format = records.format(r.event());
            try {
                rf = format == null ? null : RecordFilter.compile(f, format, pid -> currentComm);
            } catch (FilterSyntaxException e) {
                rf = null; // the event lacks a field the filter names: its rows do not pass
            }
            byEvent.put(r.event(), rf);
        }
        if (rf == null) {
            return false;
        }
        EventRecord rec = r.record();
        currentComm = r.comm() == null ? "" : r.comm();
        return rec != null && rf.test(rec);
    }

    /** Index of the selected event in {@link #getItems()} (by identity), or -1. */
    public int indexOfSelected() {
        EventRow s = selected.get();
        if (s == null) {
            return -1;
        }
        for (int i = sorted.size() - 1; i >= 0; i--) {
            if (sorted.get(i) == s) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Finds the next (or previous) row after {@code from} whose time, CPU, pid, comm, event or line
     * contains {@link #findTextProperty()} (case-insensitive), wrapping around.
     *
     * @param from    index in {@link #getItems()} to start after (before), -1 for the start
     * @param forward direction
     * @return the index, or -1 when no row matches
     */
    public int find(int from, boolean forward) {
        String q = findText.get() == null ? "" : findText.get().strip().toLowerCase(Locale.ROOT);
        int n = sorted.size();
        if (q.isEmpty() || n == 0) {
            return -1;
        }
        for (int k = 1; k <= n; k++) {
            int i = Math.floorMod(forward ? from + k : (from < 0 ? n : from) - k, n);
            if (matches(sorted.get(i), q)) {
                return i;
            }
        }
        return -1;
    }

    private boolean matches(EventRow r, String q) {
        return (r.text() != null && r.text().toLowerCase(Locale.ROOT).contains(q))
                || (r.comm() != null && r.comm().toLowerCase(Locale.ROOT).contains(q))
                || r.event().toLowerCase(Locale.ROOT).contains(q)
                || Integer.toString(r.pid()).equals(q)
                || timeText(r).contains(q);
    }

    /** The time column's text for a row in the current mode. */
    public String timeText(EventRow r) {
        if (timeMode.get() == TimeMode.RELATIVE) {
            long d = r.ts() - (origin == Long.MIN_VALUE ? r.ts() : origin);
            return String.format("%s%d.%09d", d < 0 ? "-" : "", Math.abs(d) / 1_000_000_000L, Math.abs(d) % 1_000_000_000L);
        }
        return wallClock.get() ? r.time() : r.bootTime();
    }

    /** The time column's choice as the user reads it: what {@link TimeMode#ABSOLUTE} means for these rows. */
    public String timeModeLabel(TimeMode m) {
        if (m == TimeMode.RELATIVE) {
            return "Time: relative (s)";
        }
        return wallClock.get() ? "Time: absolute" : "Time: since boot (s)";
    }

    /**
     * True when the rows' times are ns since the Unix epoch (core's {@code RecordInput.wallClock()}:
     * a pcapng without the raw-clock flag, a live capture); false for the trace clock (a trace.dat),
     * whose times are shown as seconds since boot, as {@code report} prints them.
     */
    public BooleanProperty wallClockProperty() {
        return wallClock;
    }

    /** Rows as text: one line per row, columns separated by tabs, as the table shows them. */
    public String asText(List<EventRow> selection) {
        StringBuilder b = new StringBuilder();
        for (EventRow r : selection) {
            b.append(timeText(r)).append('\t').append(r.cpu()).append('\t').append(r.pid()).append('\t')
                    .append(nz(r.comm())).append('\t').append(r.event()).append('\t').append(nz(r.text())).append('\n');
        }
        return b.toString();
    }

    /** Rows as CSV (RFC 4180: quoted where needed) with a header line. */
    public String asCsv(List<EventRow> selection) {
        StringBuilder b = new StringBuilder("time,ts_ns,cpu,pid,comm,event,line\r\n");
        for (EventRow r : selection) {
            b.append(csv(timeText(r))).append(',').append(r.ts()).append(',').append(r.cpu()).append(',').append(r.pid())
                    .append(',').append(csv(nz(r.comm()))).append(',').append(csv(r.event())).append(',')
                    .append(csv(nz(r.text()))).append("\r\n");
        }
        return b.toString();
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }

    static String csv(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    /**
     * Writes rows to a file in the background (CSV when the name ends in {@code .csv}, else text).
     *
     * @param file      where to
     * @param selection the rows
     */
    public void export(Path file, List<EventRow> selection) {
        String body = file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".csv") ? asCsv(selection) : asText(selection);
        int n = selection.size();
        executor.execute(() -> {
            AtomicFile.write(file, body.getBytes(StandardCharsets.UTF_8));
            return n;
        }, k -> message.set(String.format("exported %,d rows to %s", k, file)),
                e -> message.set("cannot export to " + file + ": " + e.getMessage()));
    }

    /** Rows of the selection in table order. */
    public static List<EventRow> inOrder(List<EventRow> selection, List<EventRow> items) {
        Map<EventRow, Integer> pos = new IdentityHashMap<>();
        for (int i = 0; i < items.size(); i++) {
            pos.put(items.get(i), i);
        }
        List<EventRow> out = new ArrayList<>(selection);
        out.sort(Comparator.comparingInt(r -> pos.getOrDefault(r, Integer.MAX_VALUE)));
        return out;
    }

    /**
     * A live capture's table follows the newest row (its store table, as the store grows); false
     * while the user scrolled up, selected a row or went to a frame, and for an opened file.
     */
    public BooleanProperty followProperty() {
        return follow;
    }

    /** The time column's mode. */
    public ObjectProperty<TimeMode> timeModeProperty() {
        return timeMode;
    }

    /** The selected event (identity), or null. */
    public ObjectProperty<EventRow> selectedProperty() {
        return selected;
    }

    /** What find looks for. */
    public StringProperty findTextProperty() {
        return findText;
    }

    /** The last export/selection message. */
    public StringProperty messageProperty() {
        return message;
    }

    /** The ring the view is built on. */
    public ObservableList<EventRow> rows() {
        return rows;
    }
}
