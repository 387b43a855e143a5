package org.tracewire.app.histogram;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import javafx.beans.Observable;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.tracewire.analysis.HistAggregator;
import org.tracewire.analysis.HistEntry;
import org.tracewire.analysis.HistField;
import org.tracewire.analysis.HistFile;
import org.tracewire.analysis.HistKey;
import org.tracewire.analysis.HistLabels;
import org.tracewire.analysis.HistSort;
import org.tracewire.analysis.HistSpec;
import org.tracewire.analysis.HistSpecException;
import org.tracewire.analysis.HistSupport;
import org.tracewire.analysis.HistTable;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.RowRecords;
import org.tracewire.app.capture.StoreQueries;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.util.SerialFeeder;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.filter.Filter;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.record.EventRecord;
import org.tracewire.tracefs.Tracefs;

/**
 * The histogram view's state: a keyed aggregate built visually in the vocabulary of the kernel's
 * hist triggers ({@code Documentation/trace/histogram.rst}: keys with modifiers such as
 * {@code .log2}, {@code .buckets=N}, {@code .execname}; summed values; sort; size; an {@code if}
 * filter) as core's {@link HistSpec}, whose trigger text is shown and can be typed or pasted back
 * ({@link #applyTriggerText}). The table is core's {@link HistAggregator} over the captured or
 * opened rows (as records, {@link RowRecords}), fed in the background in order, live; a changed
 * spec re-aggregates the newest {@value #HISTORY} rows kept. Where the kernel has hist triggers
 * ({@link HistSupport}) the view shows the trigger command it would run; a kernel's {@code hist}
 * output can be shown as it is ({@link #showKernelHist}, parsed by {@link HistFile}).
 *
 * <p>Of an opened pcapng whose capture store is ready ({@link #setQueries}), the table is SQL over
 * every event of the store instead ({@link StoreHistogram}: GROUP BY on the event's typed table,
 * every event counted, the entries beyond {@code size} said, not dropped), a key may be the
 * event's kernel stack ({@code stacktrace}), and the flame graph of the kernel stacks of the
 * event's rows that the filter passes is drawn beside it ({@link #flameProperty()}). While the
 * store is built the view waits for it.
 */
public final class HistogramViewModel implements CaptureViewModel.RowSink {
    /** Rows kept to re-aggregate after the spec changes. */
    public static final int HISTORY = 200_000;
    /** Bars plotted at most (the table's first entries in its sort order). */
    public static final int MAX_BARS = 40;
    /** Characters of a bar's label at most (the table shows the whole key). */
    static final int BAR_LABEL = 40;
    /** "No second key". */
    public static final String NONE = "";

    /**
     * One bar: a key's label and its height.
     *
     * @param label the key as text ({@code ~ 2^5}, {@code bash [1234]}, {@code 17})
     * @param value the plotted number (the hitcount, or the chosen value's sum)
     */
    public record Bar(String label, long value) {
    }

    private final TaskExecutor executor;
    private final RowRecords records;
    private final ArrayDeque<EventRow> history = new ArrayDeque<>();
    private final Map<Integer, String> comms = new ConcurrentHashMap<>();
    private final ObservableList<String> events = FXCollections.observableArrayList();
    private final Set<String> eventsSeen = new LinkedHashSet<>();
    private final ObservableList<String> fields = FXCollections.observableArrayList();
    private final ObservableList<String> numericFields = FXCollections.observableArrayList();
    private final StringProperty event = new SimpleStringProperty();
    private final StringProperty key1 = new SimpleStringProperty("common_pid");
    private final ObjectProperty<HistField.Modifier> key1Modifier = new SimpleObjectProperty<>(HistField.Modifier.EXECNAME);
    private final LongProperty key1Buckets = new SimpleLongProperty(0);
    private final StringProperty key2 = new SimpleStringProperty(NONE);
    private final ObjectProperty<HistField.Modifier> key2Modifier = new SimpleObjectProperty<>(HistField.Modifier.NONE);
    private final ObservableList<String> values = FXCollections.observableArrayList();
    private final StringProperty sortField = new SimpleStringProperty("hitcount");
    private final BooleanProperty descending = new SimpleBooleanProperty(true);
    private final IntegerProperty size = new SimpleIntegerProperty(HistSpec.DEFAULT_SIZE);
    private final StringProperty filter = new SimpleStringProperty("");
    private final StringProperty plotted = new SimpleStringProperty("hitcount");
    private final ObjectProperty<HistSpec> spec = new SimpleObjectProperty<>();
    private final StringProperty triggerText = new SimpleStringProperty("");
    private final StringProperty error = new SimpleStringProperty("");
    private final ObjectProperty<HistTable> table = new SimpleObjectProperty<>();
    private final ObservableList<HistEntry> entries = FXCollections.observableArrayList();
    private final ObservableList<Bar> bars = FXCollections.observableArrayList();
    private final StringProperty support = new SimpleStringProperty("Looking for the kernel's hist triggers…");
    private final BooleanProperty kernelHist = new SimpleBooleanProperty(false);
    private final StringProperty kernelCommand = new SimpleStringProperty("");
    private final StringProperty status = new SimpleStringProperty("Choose an event: the histogram fills from the captured or opened events");
    private final SerialFeeder<EventRow, HistTable> feeder;
    private volatile HistAggregator aggregator;
    private boolean updating;
    private final StoreQueries<StoreHistogram> db;
    /** The store's formats and stacks, handed to the UI thread once per store. */
    private Map<String, EventFormat> storeFormats = Map.of();
    /** True once the store's formats were read ({@link #storeFormats} is then what the store holds). */
    private boolean storeRead;
    private boolean storeStacks;
    private final ObjectProperty<FlameGraph.Node> flame = new SimpleObjectProperty<>();
    private final StringProperty flameStatus = new SimpleStringProperty("");

    /**
     * @param executor background work
     * @param records  rows as records (formats of the browsed tracefs or of an opened file)
     */
    public HistogramViewModel(TaskExecutor executor, RowRecords records) {
        this.executor = executor;
        this.records = records;
        this.db = new StoreQueries<>(executor, (c, t) -> {
            StoreHistogram h = StoreHistogram.open(c, t.file(), knownFormats.table() == t ? knownFormats.formats() : Map.of());
            knownFormats = new Known(t, holds(h).formats());
            return h;
        });
        db.onGrowth(this::storeGrew);
        // each run aggregates into the aggregator and for the event current when it starts: a run
        // of an older spec that starts late must not add its rows to the newer aggregate too
        this.feeder = new SerialFeeder<EventRow, HistTable>(executor, () -> {
            HistAggregator agg = aggregator;
            String ev = event.get();
            return rows -> aggregate(agg, ev, rows);
        }, this::publish, e -> status.set("histogram: " + e.getMessage()));
        event.addListener((o, a, b) -> eventChanged());
        for (Observable p : List.of(key1, key1Modifier, key1Buckets, key2, key2Modifier, sortField, descending, size,
                filter, values)) {
            p.addListener(o -> rebuild());
        }
        plotted.addListener(o -> publishBars());
    }

    /**
     * Feeds on the capture's rows (live or opened from a file); an opened file's store, once ready,
     * takes over ({@link #setQueries} given).
     */
    public void connect(CaptureViewModel capture) {
        capture.addRowSink(this);
        db.follow(capture, this::storeChanged);
    }

    /**
     * Lets the view go over an opened file's capture store: its queries run on {@code queries}
     * (one thread, which owns the view model's own connection). Without it the view stays on rows.
     *
     * @param queries runs the store queries, one at a time
     */
    public void setQueries(Executor queries) {
        db.setQueries(queries);
    }

    /** Whether the histogram is on screen: it queries a store when first shown ({@link StoreQueries}). */
    public BooleanProperty shownProperty() {
        return db.shownProperty();
    }

    /** What the store holds for the builder: its events' formats, whether it has stacks. */
    private record Holds(Map<String, EventFormat> formats, boolean stacks) {
    }

    /** The formats the reader of a store last read (worker thread): a growing store's are read once. */
    private record Known(StoreTable table, Map<String, EventFormat> formats) {
    }

    private volatile Known knownFormats = new Known(null, Map.of());

    private static Holds holds(StoreHistogram h) {
        Map<String, EventFormat> formats = new HashMap<>();
        for (String ev : h.eventCounts().keySet()) {
            if (h.format(ev) != null) {
                formats.put(ev, h.format(ev));
            }
        }
        return new Holds(Map.copyOf(formats), h.hasStacks());
    }

    /**
     * The store grew (UI thread; its reader was read again): new events fill the builder, else the
     * current spec is counted again over what the store now holds.
     */
    private void storeGrew() {
        db.query(HistogramViewModel::holds, holds -> {
            if (!holds.formats().keySet().equals(storeFormats.keySet()) || holds.stacks() != storeStacks) {
                useHolds(holds);
                return;
            }
            HistSpec s = spec.get();
            String ev = event.get();
            if (s != null && ev != null && formatOf(ev) != null) {
                queryStore(s, ev);
            }
        }, why -> status.set(db.notePrefix() + "histogram: " + why));
    }

    /** The store mode or the store changed (UI thread): the rows go, the store's events fill the builder. */
    private void storeChanged(StoreTable t) {
        storeFormats = Map.of();
        storeRead = false;
        storeStacks = false;
        if (!db.over()) {
            return;
        }
        history.clear();
        feeder.reset();
        aggregator = null;
        table.set(null);
        entries.clear();
        bars.clear();
        flame.set(null);
        flameStatus.set("");
        support.set("Aggregated by tracewire over every event of the opened file, as SQL on its capture store"
                + " (the kernel's hist triggers are not involved).");
        if (t == null) {
            events.clear(); // filled from the rows read meanwhile (their formats), then from the store
            status.set("indexing the file: the histogram counts every event once its store is ready");
            return;
        }
        status.set("reading the store…");
        db.query(HistogramViewModel::holds, this::useHolds, why -> status.set("histogram: " + why));
    }

    /** The store's events and formats fill the builder (UI thread). */
    private void useHolds(Holds holds) {
        storeFormats = holds.formats();
        storeRead = true;
        storeStacks = holds.stacks();
        List<String> names = new ArrayList<>(holds.formats().keySet());
        names.remove("ftrace:kernel_stack");
        names.remove("ftrace:user_stack");
        names.sort(Comparator.naturalOrder());
        String keep = event.get();
        events.setAll(names);
        if (keep != null && names.contains(keep)) {
            if (keep.equals(event.get())) {
                eventChanged();
            } else {
                event.set(keep); // a combo box over the events may have let go of it when they were set
            }
        } else {
            event.set(names.isEmpty() ? null : names.get(0));
        }
    }

    /** What a query over the store gives: the table and the selection's folded stacks (null without stacks). */
    private record Answer(StoreHistogram.Result result, StoreHistogram.Folded folded) {
    }

    /** Over a store: the spec's table and the selection's flame graph, as SQL, handed to the UI in one change. */
    private void queryStore(HistSpec s, String ev) {
        db.query(h -> new Answer(h.aggregate(ev, s), h.hasStacks() ? h.folded(ev, s.filter()) : null), a -> {
            if (!s.equals(spec.get()) || !ev.equals(event.get())) {
                return;
            }
            HistTable t = a.result().table();
            publish(t);
            status.set(db.notePrefix() + String.format("%,d hits of %,d %s events in the store%s; %,d entries%s", t.hits(),
                    a.result().events(), ev,
                    s.filter() == null ? "" : " (the filter passes " + t.hits() + ")", t.entryCount(),
                    t.entryCount() > t.entries().size() ? String.format(", the first %,d shown (size=%d)", t.entries().size(), s.size())
                            : ", all shown"));
            StoreHistogram.Folded fl = a.folded();
            flame.set(fl == null ? null : FlameGraph.of(fl.folded()));
            flameStatus.set(fl == null ? "this capture recorded no stacks (capture with -e EVENT --stack)"
                    : String.format("stacks of %,d %s events%s: %,d with a stack, %,d without; %,d distinct stacks",
                    fl.matched(), ev, s.filter() == null ? "" : " that the filter passes", fl.matched() - fl.noStack(), fl.noStack(),
                    fl.folded().size()));
        }, why -> {
            if (s.equals(spec.get())) {
                error.set(why);
            }
        });
    }

    /**
     * Tells where histograms run (background read of an event's {@code trigger} file).
     *
     * @param tracefs the tree browsed (live as root, else the snapshot), or null
     */
    public void loadSupport(Tracefs tracefs) {
        if (tracefs == null) {
            return;
        }
        executor.execute(() -> HistSupport.of(tracefs), this::setSupport, e -> {
            setSupport(null);
            if (!tracefs.isLive()) {
                support.set("Aggregated by tracewire from the captured events (the snapshot browsed does not record "
                        + "whether the kernel has hist triggers; the live tracefs, as root, does).");
            }
        });
    }

    /**
     * @param s the kernel's trigger support, or null when unknown
     */
    public void setSupport(HistSupport s) {
        kernelHist.set(s != null && s.hist());
        if (s == null) {
            support.set("Aggregated by tracewire from the captured events (the kernel's triggers could not be read).");
        } else if (s.hist()) {
            support.set("This kernel has hist triggers: the command below runs this histogram in the kernel. "
                    + "Shown here: tracewire's aggregate of the captured events (the same table).");
        } else {
            support.set("This kernel has no hist triggers (its trigger files list only " + String.join(" ", s.available())
                    + "): the histogram is aggregated by tracewire from the captured events.");
        }
        updateCommand();
    }

    @Override
    public void appended(List<EventRow> batch) {
        if (db.over()) {
            if (!storeRead) {
                eventsOf(batch); // the builder fills with the file's events and formats meanwhile
            }
            return; // every event of the store, not a window of rows
        }
        for (EventRow r : batch) {
            if (eventsSeen.add(r.event())) {
                List<String> sorted = new ArrayList<>(eventsSeen);
                sorted.sort(Comparator.naturalOrder());
                events.setAll(sorted);
                if (event.get() == null) {
                    event.set(r.event());
                }
            }
            history.addLast(r);
        }
        while (history.size() > HISTORY) {
            history.pollFirst();
        }
        if (aggregator != null) {
            feeder.feed(batch);
        }
    }

    @Override
    public void cleared() {
        if (db.over()) {
            return;
        }
        history.clear();
        eventsSeen.clear();
        events.clear();
        comms.clear();
        feeder.reset();
        table.set(null);
        entries.clear();
        bars.clear();
        if (aggregator != null) {
            rebuild(); // an empty table of the same spec, fed from now on
        }
    }

    private void eventChanged() {
        EventFormat f = formatOf(event.get());
        updating = true;
        try {
            List<String> all = new ArrayList<>(List.of("common_pid", "common_cpu"));
            List<String> nums = new ArrayList<>();
            if (f != null) {
                for (Field fd : f.fields()) {
                    all.add(fd.name());
                    if (!fd.kind().isString() && (fd.size() == 1 || fd.size() == 2 || fd.size() == 4 || fd.size() == 8)) {
                        nums.add(fd.name());
                    }
                }
            }
            if (db.over() && storeStacks) {
                all.add("stacktrace");
            }
            fields.setAll(all);
            numericFields.setAll(nums);
            values.retainAll(nums);
            if (!all.contains(key1.get())) {
                key1.set("common_pid");
                key1Modifier.set(HistField.Modifier.EXECNAME);
            }
            if (!NONE.equals(key2.get()) && !all.contains(key2.get())) {
                key2.set(NONE);
            }
        } finally {
            updating = false;
        }
        rebuild();
    }

    private EventFormat formatOf(String ev) {
        return ev == null ? null : db.over() && storeRead ? storeFormats.get(ev) : records.format(ev);
    }

    /**
     * Over a store still being built: the events of the rows read meanwhile go to the Event box,
     * whose Key and value boxes then fill with their formats (the file's), before the store is read.
     */
    private void eventsOf(List<EventRow> batch) {
        List<String> fresh = new ArrayList<>();
        for (EventRow r : batch) {
            if (!events.contains(r.event()) && !fresh.contains(r.event()) && records.format(r.event()) != null) {
                fresh.add(r.event());
            }
        }
        if (fresh.isEmpty()) {
            return;
        }
        List<String> sorted = new ArrayList<>(events);
        sorted.addAll(fresh);
        sorted.sort(Comparator.naturalOrder());
        events.setAll(sorted);
        if (event.get() == null || !sorted.contains(event.get())) {
            event.set(sorted.get(0));
        } else if (fields.size() <= 2) {
            eventChanged(); // its format is known now
        }
    }

    /** The spec from the builder's parts; re-aggregates the kept rows when it is valid. */
    private void rebuild() {
        if (updating) {
            return;
        }
        HistSpec s;
        try {
            s = specFromParts();
        } catch (RuntimeException e) {
            error.set(e.getMessage());
            spec.set(null);
            triggerText.set("");
            updateCommand();
            return;
        }
        EventFormat f = formatOf(event.get());
        if (f == null) {
            // over a store still being built, the formats come with it (the status says so)
            error.set(event.get() == null || db.over() && !storeRead ? ""
                    : "the format of " + event.get() + " is unknown");
            aggregator = null;
            spec.set(s);
            triggerText.set(s.toTriggerText());
            updateCommand();
            return;
        }
        if (db.over()) {
            error.set("");
            spec.set(s);
            triggerText.set(s.toTriggerText());
            updateCommand();
            if (storeRead) {
                queryStore(s, event.get()); // else counted once the store is read
            }
            return;
        }
        HistAggregator agg;
        try {
            agg = new HistAggregator(s, f, labels());
        } catch (HistSpecException e) {
            error.set(e.getMessage());
            spec.set(null);
            triggerText.set("");
            updateCommand();
            return;
        }
        error.set("");
        spec.set(s);
        triggerText.set(s.toTriggerText());
        updateCommand();
        feeder.reset();
        aggregator = agg;
        table.set(agg.table());
        publish(agg.table());
        feeder.feed(new ArrayList<>(history));
    }

    private HistSpec specFromParts() {
        List<HistField> keys = new ArrayList<>();
        keys.add(field(key1.get(), key1Modifier.get(), key1Buckets.get()));
        if (key2.get() != null && !key2.get().isBlank()) {
            keys.add(field(key2.get(), key2Modifier.get(), 0));
        }
        List<HistField> vals = values.stream().map(HistField::of).toList();
        List<HistSort> sort = List.of(new HistSort(sortField.get() == null || sortField.get().isBlank() ? "hitcount" : sortField.get(),
                descending.get()));
        Filter flt = filter.get() == null || filter.get().isBlank() ? null : Filter.parse(filter.get());
        return HistSpec.of(keys, vals).withSort(sort).withSize(size.get()).withFilter(flt);
    }

    private static HistField field(String name, HistField.Modifier m, long buckets) {
        if (name == null || name.isBlank()) {
            throw new HistSpecException(-1, "choose a key field");
        }
        HistField.Modifier mod = m == null ? HistField.Modifier.NONE : m;
        if (mod == HistField.Modifier.BUCKETS) {
            return HistField.buckets(name, buckets <= 0 ? 1 : buckets);
        }
        return HistField.of(name, mod);
    }

    /**
     * Reads a hist trigger's text (typed or pasted: {@code hist:keys=...:vals=...:sort=...:size=N if FILTER})
     * into the builder's parts; the aggregate follows.
     *
     * @param text the trigger text
     * @return true when it parsed; else {@link #errorProperty()} names the problem and its position
     */
    public boolean applyTriggerText(String text) {
        HistSpec s;
        try {
            s = HistSpec.parse(text);
        } catch (HistSpecException e) {
            error.set(e.getMessage());
            return false;
        }
        if (s.keys().size() > 2) {
            error.set("the builder shows at most 2 keys");
            return false;
        }
        updating = true;
        try {
            HistField k1 = s.keys().get(0);
            key1.set(k1.name());
            key1Modifier.set(k1.modifier());
            key1Buckets.set(k1.buckets());
            if (s.keys().size() > 1) {
                key2.set(s.keys().get(1).name());
                key2Modifier.set(s.keys().get(1).modifier());
            } else {
                key2.set(NONE);
                key2Modifier.set(HistField.Modifier.NONE);
            }
            values.setAll(s.values().stream().map(HistField::name).toList());
            HistSort first = s.sort().get(0);
            sortField.set(first.field());
            descending.set(first.descending());
            size.set(s.size());
            filter.set(s.filter() == null ? "" : s.filter().toText());
        } finally {
            updating = false;
        }
        rebuild();
        return error.get().isEmpty();
    }

    /**
     * Shows a table the kernel computed (the text of an event's {@code hist} file) instead of the
     * aggregate: its first trigger's table, with the trigger text it names.
     *
     * @param histText the {@code hist} file's text
     * @return the table shown
     * @throws HistSpecException when the text is not the kernel's hist format (with its line)
     */
    public HistTable showKernelHist(String histText) {
        List<HistTable> tables = HistFile.parse(histText);
        if (tables.isEmpty()) {
            throw new HistSpecException(-1, "no histogram in the text");
        }
        HistTable t = tables.get(0);
        feeder.reset();
        aggregator = null;
        triggerText.set(t.triggerInfo() == null ? "" : t.triggerInfo());
        publish(t);
        status.set(String.format("the kernel's histogram: %,d hits, %,d entries, %,d dropped", t.hits(), t.entryCount(), t.dropped()));
        return t;
    }

    private HistLabels labels() {
        return new HistLabels() {
            @Override
            public String execname(int pid) {
                return comms.get(pid);
            }
        };
    }

    /** Background: rows of event {@code ev} into {@code agg} (the aggregator of the run's spec). */
    private HistTable aggregate(HistAggregator agg, String ev, List<EventRow> rows) {
        if (agg == null) {
            return null;
        }
        for (EventRow r : rows) {
            if (r.pid() != 0 && r.comm() != null && !r.comm().startsWith("<")) {
                comms.put(r.pid(), r.comm());
            }
            if (!r.event().equals(ev)) {
                continue;
            }
            EventRecord rec = records.record(r);
            if (rec != null) {
                try {
                    agg.add(rec);
                } catch (RuntimeException ignored) {
                    // a field outside a truncated record: not counted
                }
            }
        }
        return agg.table();
    }

    private void publish(HistTable t) {
        if (t == null) {
            return;
        }
        table.set(t);
        entries.setAll(t.entries());
        publishBars();
        if (aggregator != null) {
            status.set(String.format("%,d hits, %,d entries, %,d dropped (aggregated from %s)", t.hits(), t.entryCount(), t.dropped(),
                    event.get()));
        }
    }

    private void publishBars() {
        HistTable t = table.get();
        if (t == null) {
            bars.clear();
            return;
        }
        int vi = t.valueNames().indexOf(plotted.get());
        List<HistEntry> list = t.entries();
        boolean log2 = t.keyNames().size() == 1 && t.spec() != null
                && t.spec().keys().get(0).modifier() == HistField.Modifier.LOG2;
        List<Bar> out = new ArrayList<>();
        if (log2 && !list.isEmpty()) {
            // a log2 histogram: every power of two between the smallest and largest, in order
            long lo = Long.MAX_VALUE;
            long hi = Long.MIN_VALUE;
            Map<Long, Long> byExp = new HashMap<>();
            for (HistEntry e : list) {
                long k = e.keys().get(0).number();
                lo = Math.min(lo, k);
                hi = Math.max(hi, k);
                byExp.put(k, value(e, vi));
            }
            for (long k = lo; k <= hi && out.size() < 64; k++) {
                out.add(new Bar("2^" + k, byExp.getOrDefault(k, 0L)));
            }
        } else {
            Set<String> taken = new HashSet<>();
            for (HistEntry e : list) {
                if (out.size() == MAX_BARS) {
                    break;
                }
                // a long key (a stack) cut for the axis, kept apart from the others cut alike
                String l = label(e, t);
                if (l.length() > BAR_LABEL) {
                    l = l.substring(0, BAR_LABEL - 1) + "…";
                    for (int n = 2; !taken.add(l); n++) {
                        l = l.replaceFirst("( #[0-9]+)?$", " #" + n);
                    }
                }
                taken.add(l);
                out.add(new Bar(l, value(e, vi)));
            }
        }
        bars.setAll(out);
    }

    private static long value(HistEntry e, int vi) {
        return vi < 0 ? e.hitcount() : e.values().get(vi);
    }

    /** An entry's key as the kernel would print it, compactly: parts joined by ", ". */
    public static String label(HistEntry e, HistTable t) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < e.keys().size(); i++) {
            HistKey k = e.keys().get(i);
            HistField.Modifier m = t.spec() != null && i < t.spec().keys().size() ? t.spec().keys().get(i).modifier() : HistField.Modifier.NONE;
            long bucket = t.spec() != null && i < t.spec().keys().size() ? t.spec().keys().get(i).buckets() : 0;
            String s;
            if (k.isString()) {
                s = k.string();
            } else if (m == HistField.Modifier.LOG2) {
                s = "~ 2^" + Long.toUnsignedString(k.number());
            } else if (m == HistField.Modifier.BUCKETS && bucket > 0) {
                s = "~ " + Long.toUnsignedString(k.number()) + "-" + Long.toUnsignedString(k.number() + bucket - 1);
            } else if (m == HistField.Modifier.HEX) {
                s = Long.toHexString(k.number());
            } else {
                s = k.label() != null ? k.label() + " [" + Long.toUnsignedString(k.number()) + "]" : Long.toUnsignedString(k.number());
            }
            parts.add(s);
        }
        return String.join(", ", parts);
    }

    private void updateCommand() {
        HistSpec s = spec.get();
        String ev = event.get();
        if (s == null || ev == null || !ev.contains(":")) {
            kernelCommand.set("");
            return;
        }
        String path = "events/" + ev.replace(':', '/') + "/trigger";
        kernelCommand.set((kernelHist.get() ? "" : "(not on this kernel) ") + "echo '" + s.toTriggerText() + "' >> " + path);
    }

    /** Events seen in the rows, sorted: the histogram's event is one of them. */
    public ObservableList<String> getEvents() {
        return events;
    }

    /** The chosen event's fields usable as keys (with common_pid and common_cpu). */
    public ObservableList<String> getFields() {
        return fields;
    }

    /** The chosen event's numeric fields (values to sum). */
    public ObservableList<String> getNumericFields() {
        return numericFields;
    }

    /** The histogram's event ("system:event"). */
    public StringProperty eventProperty() {
        return event;
    }

    /** The first key field. */
    public StringProperty key1Property() {
        return key1;
    }

    /** The first key's modifier. */
    public ObjectProperty<HistField.Modifier> key1ModifierProperty() {
        return key1Modifier;
    }

    /** The first key's bucket size (with {@code .buckets}). */
    public LongProperty key1BucketsProperty() {
        return key1Buckets;
    }

    /** The second key field, {@link #NONE} for none. */
    public StringProperty key2Property() {
        return key2;
    }

    /** The second key's modifier. */
    public ObjectProperty<HistField.Modifier> key2ModifierProperty() {
        return key2Modifier;
    }

    /** The summed value fields. */
    public ObservableList<String> getValues() {
        return values;
    }

    /** The sort field: hitcount, a value or a key. */
    public StringProperty sortFieldProperty() {
        return sortField;
    }

    /** Sort descending. */
    public BooleanProperty descendingProperty() {
        return descending;
    }

    /** The table's entry limit (rounded up to a power of two in 128..131072 as the kernel does). */
    public IntegerProperty sizeProperty() {
        return size;
    }

    /** The {@code if} filter in the kernel's filter syntax, empty for none. */
    public StringProperty filterProperty() {
        return filter;
    }

    /** What the bars plot: "hitcount" or a value field. */
    public StringProperty plottedProperty() {
        return plotted;
    }

    /** The valid spec, or null while the parts are invalid. */
    public ObjectProperty<HistSpec> specProperty() {
        return spec;
    }

    /** The spec as the kernel's trigger text, empty while invalid. */
    public StringProperty triggerTextProperty() {
        return triggerText;
    }

    /** The problem with the parts or a pasted trigger, empty when none. */
    public StringProperty errorProperty() {
        return error;
    }

    /** The current table. */
    public ObjectProperty<HistTable> tableProperty() {
        return table;
    }

    /** The table's entries, in its sort order. */
    public ObservableList<HistEntry> getEntries() {
        return entries;
    }

    /** The bars plotted. */
    public ObservableList<Bar> getBars() {
        return bars;
    }

    /** Where the histogram is computed, in a sentence. */
    public StringProperty supportProperty() {
        return support;
    }

    /** True when the kernel has hist triggers. */
    public BooleanProperty kernelHistProperty() {
        return kernelHist;
    }

    /** The shell command that would run the trigger in the kernel. */
    public StringProperty kernelCommandProperty() {
        return kernelCommand;
    }

    /** True while the view goes over an opened file's store (being built or ready) instead of rows. */
    public BooleanProperty overStoreProperty() {
        return db.overStoreProperty();
    }

    /** Over a store with stacks: the flame graph of the event's stacks (user, then kernel frames) that the filter passes; else null. */
    public ObjectProperty<FlameGraph.Node> flameProperty() {
        return flame;
    }

    /** What the flame graph counts, in a sentence. */
    public StringProperty flameStatusProperty() {
        return flameStatus;
    }

    /** A one-line status. */
    public StringProperty statusProperty() {
        return status;
    }
}
