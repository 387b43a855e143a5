package org.tracewire.app.histogram;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import javafx.beans.Observable;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.tracewire.analysis.HistAggregator;
import org.tracewire.analysis.HistEntry;
import org.tracewire.analysis.HistFile;
import org.tracewire.analysis.HistSpec;
import org.tracewire.analysis.HistSpecException;
import org.tracewire.analysis.HistSupport;
import org.tracewire.analysis.HistTable;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.RowRecords;
import org.tracewire.app.capture.StoreQueries;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.format.EventFormat;
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
    public static final int HISTORY = RowHistogram.HISTORY;

    private final TaskExecutor executor;
    private final RowRecords records;
    private final ObservableList<String> events = FXCollections.observableArrayList();
    private final Set<String> eventsSeen = new LinkedHashSet<>();
    private final StringProperty event = new SimpleStringProperty();
    private final HistBuilder builder = new HistBuilder();
    private final StringProperty plotted = new SimpleStringProperty("hitcount");
    private final ObjectProperty<HistSpec> spec = new SimpleObjectProperty<>();
    private final StringProperty triggerText = new SimpleStringProperty("");
    private final StringProperty error = new SimpleStringProperty("");
    private final ObjectProperty<HistTable> table = new SimpleObjectProperty<>();
    private final ObservableList<HistEntry> entries = FXCollections.observableArrayList();
    private final ObservableList<HistBars.Bar> bars = FXCollections.observableArrayList();
    private final KernelHist kernel = new KernelHist();
    private final StringProperty status = new SimpleStringProperty("Choose an event: the histogram fills from the captured or opened events");
    private final RowHistogram rows;
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
        this.db = new StoreQueries<>(executor, StoreHolds.opener());
        db.onGrowth(this::storeGrew);
        this.rows = new RowHistogram(executor, event::get, this::publish,
                e -> status.set("histogram: " + e.getMessage()));
        event.addListener((o, a, b) -> eventChanged());
        for (Observable p : builder.parts()) {
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

    /**
     * The store grew (UI thread; its reader was read again): new events fill the builder, else the
     * current spec is counted again over what the store now holds.
     */
    private void storeGrew() {
        db.query(StoreHolds::of, holds -> {
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
        rows.drop();
        table.set(null);
        entries.clear();
        bars.clear();
        flame.set(null);
        flameStatus.set("");
        kernel.supportProperty().set("Aggregated by tracewire over every event in the capture store, as SQL"
                + " (the kernel's hist triggers are not involved).");
        if (t == null) {
            events.clear(); // filled from the rows read meanwhile (their formats), then from the store
            status.set("indexing the file: the histogram counts every event once its store is ready");
            return;
        }
        status.set("reading the store…");
        db.query(StoreHolds::of, this::useHolds, why -> status.set("histogram: " + why));
    }

    /** The store's events and formats fill the builder (UI thread). */
    private void useHolds(StoreHolds holds) {
        storeFormats = holds.formats();
        storeRead = true;
        storeStacks = holds.stacks();
        List<String> names = holds.events();
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

    /** Over a store: the spec's table and the selection's flame graph, as SQL, handed to the UI in one change. */
    private void queryStore(HistSpec s, String ev) {
        db.query(h -> StoreAnswer.of(h, ev, s), a -> {
            if (!s.equals(spec.get()) || !ev.equals(event.get())) {
                return;
            }
            publish(a.result().table());
            status.set(db.notePrefix() + a.status(ev, s));
            flame.set(a.flame());
            flameStatus.set(a.flameStatus(ev, s));
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
        kernel.load(executor, tracefs, this::updateCommand);
    }

    /**
     * @param s the kernel's trigger support, or null when unknown
     */
    public void setSupport(HistSupport s) {
        kernel.set(s);
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
            rows.keep(r);
        }
        rows.appended(batch);
    }

    @Override
    public void cleared() {
        if (db.over()) {
            return;
        }
        rows.cleared();
        eventsSeen.clear();
        events.clear();
        table.set(null);
        entries.clear();
        bars.clear();
        if (rows.aggregating()) {
            rebuild(); // an empty table of the same spec, fed from now on
        }
    }

    private void eventChanged() {
        EventFormat f = formatOf(event.get());
        updating = true;
        try {
            builder.offer(f, db.over() && storeStacks);
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
        } else if (builder.getFields().size() <= 2) {
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
            s = builder.spec();
        } catch (RuntimeException e) {
            showSpec(null, e.getMessage());
            return;
        }
        EventFormat f = formatOf(event.get());
        if (f == null) {
            // over a store still being built, the formats come with it (the status says so)
            String problem = event.get() == null || db.over() && !storeRead ? ""
                    : "the format of " + event.get() + " is unknown";
            rows.forget();
            showSpec(s, problem);
            return;
        }
        if (db.over()) {
            showSpec(s, "");
            if (storeRead) {
                queryStore(s, event.get()); // else counted once the store is read
            }
            return;
        }
        HistAggregator agg;
        try {
            agg = rows.aggregator(s, f);
        } catch (HistSpecException e) {
            showSpec(null, e.getMessage());
            return;
        }
        showSpec(s, "");
        rows.use(agg);
        table.set(agg.table());
        publish(agg.table());
        rows.feedKept();
    }

    /** Shows a spec (null while the parts are invalid) with its problem (empty for none). */
    private void showSpec(HistSpec s, String problem) {
        error.set(problem);
        spec.set(s);
        triggerText.set(s == null ? "" : s.toTriggerText());
        updateCommand();
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
            builder.show(s);
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
        rows.stop();
        triggerText.set(t.triggerInfo() == null ? "" : t.triggerInfo());
        publish(t);
        status.set(String.format("the kernel's histogram: %,d hits, %,d entries, %,d dropped", t.hits(), t.entryCount(), t.dropped()));
        return t;
    }

    private void publish(HistTable t) {
        if (t == null) {
            return;
        }
        table.set(t);
        entries.setAll(t.entries());
        publishBars();
        if (rows.aggregating()) {
            status.set(String.format("%,d hits, %,d entries, %,d dropped (aggregated from %s)", t.hits(), t.entryCount(), t.dropped(),
                    event.get()));
        }
    }

    private void publishBars() {
        bars.setAll(HistBars.of(table.get(), plotted.get()));
    }

    private void updateCommand() {
        kernel.command(spec.get(), event.get());
    }

    /** Events seen in the rows, sorted: the histogram's event is one of them. */
    public ObservableList<String> getEvents() {
        return events;
    }

    /** The histogram's event ("system:event"). */
    public StringProperty eventProperty() {
        return event;
    }

    /** The builder's parts (keys, values, sort, size, filter) and the event's fields they choose from. */
    public HistBuilder builder() {
        return builder;
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
    public ObservableList<HistBars.Bar> getBars() {
        return bars;
    }

    /** Where the histogram runs: the kernel's hist triggers, the command that would run it there. */
    public KernelHist kernel() {
        return kernel;
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
