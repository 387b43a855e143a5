package org.tracewire.app.timeline;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.StringBinding;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.StoreQueries;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.tracefs.EventSelection;

/**
 * The timeline's state: the visible range (zoom, pan, fit; following the newest while not zoomed),
 * the lanes (one per CPU, plus task lanes added on demand), hover details, a cursor and markers
 * A/B with their delta, and two sources of data:
 * <ul>
 * <li>an opened pcapng whose capture store is ready: every slice of the file from the store's
 * {@code sched_slice} ({@link SliceTimeline}, loaded once on a thread and connection of its own);
 * a click on a slice scrolls the event table to that slice's frame ({@link #setGoToFrame});</li>
 * <li>otherwise (a live capture, a trace.dat, a file still being indexed): the {@link TimelineModel}
 * fed with the capture's rows, at most {@value #CAPACITY} events; the selected event is kept in step
 * with the event table.</li>
 * </ul>
 * Times are shown as the trace clock (ns since boot) in seconds.microseconds.
 */
public final class TimelineViewModel implements CaptureViewModel.RowSink {
    /** Events the timeline keeps (more than the table's window: the oldest half goes past it). */
    public static final int CAPACITY = 1_000_000;

    private final TimelineModel model = new TimelineModel(CAPACITY);
    private final VisibleRange range = new VisibleRange();
    private final ObservableList<Integer> taskLanes = FXCollections.observableArrayList();
    private final StringProperty hover = new SimpleStringProperty("");
    private final ObjectProperty<Integer> selected = new SimpleObjectProperty<>();
    private final LongProperty version = new SimpleLongProperty();
    private Consumer<EventRow> selectInTable = r -> { };
    private Supplier<List<EventRow>> tableRows = List::of;
    private final ObjectProperty<SliceTimeline> slices = new SimpleObjectProperty<>();
    private final StringProperty warning = new SimpleStringProperty("");
    private final StringProperty loading = new SimpleStringProperty("");
    private final ObjectProperty<Long> cursor = new SimpleObjectProperty<>();
    private final ObjectProperty<Long> markerA = new SimpleObjectProperty<>();
    private final ObjectProperty<Long> markerB = new SimpleObjectProperty<>();
    private final StringBinding markers = Bindings.createStringBinding(
            () -> TimelineText.markerText(markerA.get(), markerB.get()), markerA, markerB);
    private final AtomicLong loadGeneration = new AtomicLong();
    private LongConsumer goToFrame = f -> { };
    private Consumer<Runnable> onUi = Platform::runLater;
    private final StoreQueries<Connection> db = new StoreQueries<>(r -> onUi.accept(r), (c, t) -> c);
    private boolean sawSwitch;
    private String filteredSwitch = "";

    /** An empty timeline. */
    public TimelineViewModel() {
    }

    /**
     * Keeps the timeline and the capture's table selection in step and feeds the timeline.
     *
     * @param capture the capture view model
     */
    public void connect(CaptureViewModel capture) {
        capture.addRowSink(this);
        db.follow(capture, t -> {
            if (t == null) {
                unloadStore();
            } else {
                loadStore(t);
            }
        });
        db.onGrowth(() -> {
            StoreTable t = db.table();
            if (t != null) {
                reloadStore(t);
            }
        });
        capture.getEvents().addListener((ListChangeListener<EventSelection>) c -> {
            filteredSwitch = "";
            for (EventSelection e : capture.getEvents()) {
                if (e.fullName().equals("sched:sched_switch") && e.filter() != null && !e.filter().isBlank()) {
                    filteredSwitch = e.filter().strip();
                }
            }
            rowWarning();
        });
        selectInTable = r -> capture.table().selectedProperty().set(r);
        tableRows = () -> capture.getRows();
        capture.table().selectedProperty().addListener((o, a, r) -> {
            if (r != null) {
                selectRow(r);
            }
        });
    }

    /**
     * Where the click on a slice sends its frame: the event table of the store (the main view wires
     * it to {@code StoreTableView}).
     */
    public void setGoToFrame(LongConsumer goToFrame) {
        this.goToFrame = goToFrame;
    }

    /** How results of the background load reach the UI thread (tests: a direct or queued executor). */
    public void setOnUi(Consumer<Runnable> onUi) {
        this.onUi = onUi;
    }

    /**
     * Lets the timeline go over an opened file's capture store: every slice is loaded on
     * {@code queries} (one thread, the owner of the timeline's own connection). Without it the
     * timeline stays on the rows read.
     *
     * @param queries runs the store queries
     */
    public void setQueries(Executor queries) {
        db.setQueries(queries);
    }

    /** Whether the timeline is on screen: it loads a store's slices when first shown ({@link StoreQueries}). */
    public BooleanProperty shownProperty() {
        return db.shownProperty();
    }

    /** Loads every slice of the store on the timeline's query thread; they replace the rows' timeline when in. */
    private void loadStore(StoreTable t) {
        long gen = loadGeneration.incrementAndGet();
        loading.set("loading every scheduling slice from the capture store…");
        db.query(own -> SliceTimeline.load(own, () -> loadGeneration.get() != gen || !db.current(t)), s -> {
            if (loadGeneration.get() == gen) {
                useSlices(s);
            }
        }, why -> {
            if (loadGeneration.get() == gen) {
                loading.set("the timeline stays on the rows read (" + why + ")");
            }
        });
    }

    /**
     * A growing store's slices again (UI thread, at most one load at a time: {@link StoreQueries}):
     * the timeline keeps its zoom and selection unless it shows everything, which then grows with it.
     */
    private void reloadStore(StoreTable t) {
        if (slices.get() == null) {
            loadStore(t); // its first load found no slices yet
            return;
        }
        long gen = loadGeneration.get();
        db.query(own -> SliceTimeline.load(own, () -> loadGeneration.get() != gen || !db.current(t)), s -> {
            if (loadGeneration.get() != gen) {
                return;
            }
            slices.set(s);
            loading.set(db.growingNoteProperty().get());
            warning.set(s.warning() == null ? "" : s.warning());
            if (range.fitted()) {
                fit();
            }
            version.set(version.get() + 1);
        }, why -> loading.set(db.notePrefix() + "the timeline shows the last slices loaded (" + why + ")"));
    }

    /** Shows these slices (UI thread): the rows' timeline is dropped and no longer fed. */
    public void useSlices(SliceTimeline s) {
        loadGeneration.incrementAndGet();
        model.clear();
        selected.set(null);
        slices.set(s);
        loading.set(db.growingNoteProperty().get());
        warning.set(s.warning() == null ? "" : s.warning());
        fit();
        version.set(version.get() + 1);
    }

    private void unloadStore() {
        loadGeneration.incrementAndGet();
        loading.set("");
        if (slices.get() != null) {
            slices.set(null);
                fit();
            version.set(version.get() + 1);
        }
        rowWarning();
    }

    /** The rows' warning: events but no sched_switch, or a capture filter on sched_switch. */
    private void rowWarning() {
        if (slices.get() != null) {
            return;
        }
        if (!filteredSwitch.isEmpty()) {
            warning.set("sched:sched_switch is filtered (" + filteredSwitch + "): a slice runs to the next recorded switch,"
                    + " which may not be when its task stopped");
        } else if (model.size() > 0 && !sawSwitch) {
            warning.set("no sched:sched_switch in these events: the CPU lanes show events only, not which task ran");
        } else {
            warning.set("");
        }
    }

    @Override
    public void appended(List<EventRow> batch) {
        if (slices.get() != null) {
            return; // every slice is shown from the store
        }
        for (EventRow r : batch) {
            int next = -1;
            String nextComm = null;
            if (r.event().equals("sched:sched_switch")) {
                sawSwitch = true;
                Object np = r.fields().get("next_pid");
                try {
                    next = np == null ? -1 : Integer.parseInt(np.toString().strip());
                } catch (NumberFormatException e) {
                    next = -1;
                }
                Object nc = r.fields().get("next_comm");
                nextComm = nc == null ? null : nc.toString();
            }
            model.add(clock(r), r.cpu(), r.pid(), r.comm(), r.event(), next, nextComm);
        }
        if (range.fitted()) {
            fit();
        }
        rowWarning();
        version.set(model.version());
    }

    @Override
    public void cleared() {
        sawSwitch = false;
        markerA.set(null);
        markerB.set(null);
        cursor.set(null);
        model.clear();
        selected.set(null);
        fit();
        rowWarning();
        version.set(model.version());
    }

    /**
     * A row's time on the timeline: the trace clock (its record's time stamp, ns since boot for the
     * {@code local} clock) when the row has its record, else the row's time.
     */
    static long clock(EventRow r) {
        return r.record() != null ? r.record().timestampNs() : r.ts();
    }

    /** The store's slices, or null (the rows' {@link #model()} is shown). */
    public ObjectProperty<SliceTimeline> slicesProperty() {
        return slices;
    }

    /** What the user must know before trusting the lanes (no or filtered sched_switch), or "". */
    public StringProperty warningProperty() {
        return warning;
    }

    /** What is being loaded ("" when nothing). */
    public StringProperty loadingProperty() {
        return loading;
    }

    /** The cursor's time (ns, the lanes' clock), or null. */
    public ObjectProperty<Long> cursorProperty() {
        return cursor;
    }

    /** Marker A's time (ns), or null. */
    public ObjectProperty<Long> markerAProperty() {
        return markerA;
    }

    /** Marker B's time (ns), or null. */
    public ObjectProperty<Long> markerBProperty() {
        return markerB;
    }

    /** "A: s.µs  B: s.µs  Δ(B−A): …" as KernelShark shows it; "" with no marker. */
    public StringBinding markersText() {
        return markers;
    }

    /** The time at pixel column {@code x} of {@code width} in the visible range (ns). */
    public long timeAt(double x, int width) {
        return range.timeAt(x, width);
    }

    /** Sets marker A at pixel column x. */
    public void setMarkerA(double x, int width) {
        markerA.set(timeAt(x, width));
    }

    /** Sets marker B at pixel column x. */
    public void setMarkerB(double x, int width) {
        markerB.set(timeAt(x, width));
    }

    /** The model (the view draws its frames). */
    public TimelineModel model() {
        return model;
    }

    /** The lanes in drawing order: CPUs, then tasks. */
    public List<TimelineModel.LaneKey> lanes() {
        List<TimelineModel.LaneKey> out = new ArrayList<>();
        SliceTimeline st = slices.get();
        for (int c = 0; c < (st != null ? st.cpuCount() : model.cpuCount()); c++) {
            out.add(TimelineModel.LaneKey.cpu(c));
        }
        for (int p : taskLanes) {
            out.add(TimelineModel.LaneKey.task(p));
        }
        return out;
    }

    /** A lane's label. */
    public String label(TimelineModel.LaneKey k) {
        return k.task() ? comm(k.id()) + " (" + k.id() + ")" : "CPU " + k.id();
    }

    /** A task's name from the slices or the rows. */
    public String comm(int pid) {
        SliceTimeline st = slices.get();
        return st != null ? st.comm(pid) : model.comm(pid);
    }

    /** Shows everything held, and follows the newest. */
    public void fit() {
        SliceTimeline st = slices.get();
        long s = st != null ? st.start() : model.start();
        range.fit(s, st != null ? st.end() : model.end());
    }

    /** Zooms by {@code factor} (&lt; 1 in, &gt; 1 out) around the point at {@code anchor} (0..1 of the width). */
    public void zoom(double factor, double anchor) {
        range.zoom(factor, anchor);
    }

    /** Pans by a fraction of the visible width (negative: earlier). */
    public void pan(double fraction) {
        range.pan(fraction);
    }

    /** Zooms to the range between two points (0..1 of the width). */
    public void zoomTo(double from, double to) {
        range.zoomTo(from, to);
    }

    /** Adds a lane for a task (no-op when it has one). */
    public void addTaskLane(int pid) {
        if (!taskLanes.contains(pid)) {
            taskLanes.add(pid);
        }
    }

    /**
     * Describes what is under the pointer.
     *
     * @param lane  lane index in {@link #lanes()}
     * @param x     pixel column
     * @param width pixels
     */
    public void hover(int lane, double x, int width) {
        List<TimelineModel.LaneKey> lanes = lanes();
        if (lane < 0 || lane >= lanes.size() || width <= 0) {
            hover.set("");
            return;
        }
        TimelineModel.LaneKey k = lanes.get(lane);
        long s = range.start().get();
        long e = range.end().get();
        long t = s + (long) ((e - s) * (x / width));
        cursor.set(t);
        SliceTimeline st = slices.get();
        hover.set(st != null ? HoverText.ofSlice(label(k), t, st.sliceAt(k, t))
                : HoverText.ofRows(model, k, label(k), s, e, width, x));
    }

    /**
     * Selects the event under the pointer, and its row in the event table; over the store's slices,
     * the slice under the pointer, and the table scrolls to its frame.
     *
     * @return the event index (the slice's frame over the store), or -1 when nothing is near
     */
    public int click(int lane, double x, int width) {
        List<TimelineModel.LaneKey> lanes = lanes();
        if (lane < 0 || lane >= lanes.size()) {
            return -1;
        }
        SliceTimeline st = slices.get();
        if (st != null) {
            SliceTimeline.Slice sl = st.sliceAt(lanes.get(lane), timeAt(x, width));
            if (sl == null) {
                return -1;
            }
            hover.set(String.format("frame %,d: %s (%d) on CPU %d from %s s", sl.frame(), sl.pid() == 0 ? "idle" : sl.comm(),
                    sl.pid(), sl.cpu(), TimelineText.traceTime(sl.start())));
            goToFrame.accept(sl.frame());
            return (int) sl.frame();
        }
        int i = model.hit(lanes.get(lane), range.start().get(), range.end().get(), width, x, 3);
        if (i < 0) {
            return -1;
        }
        selected.set(i);
        EventRow row = findRow(i);
        if (row != null) {
            selectInTable.accept(row);
        } else {
            hover.set("that event has left the table's window");
        }
        return i;
    }

    /** The table row of event i (same time, CPU and event), or null when it left the table. */
    EventRow findRow(int i) {
        long t = model.ts(i);
        int c = model.cpu(i);
        String ev = model.event(i);
        List<EventRow> rows = tableRows.get();
        for (int k = rows.size() - 1; k >= 0; k--) {
            EventRow r = rows.get(k);
            if (clock(r) == t && r.cpu() == c && r.event().equals(ev)) {
                return r;
            }
        }
        return null;
    }

    /** Selects a table row's event here, and brings it into view when it is outside. */
    public void selectRow(EventRow r) {
        long rt = clock(r);
        int i = model.firstAtOrAfter(rt);
        for (; i < model.size() && model.ts(i) == rt; i++) {
            if (model.cpu(i) == r.cpu() && model.event(i).equals(r.event())) {
                selected.set(i);
                long s = range.start().get();
                long e = range.end().get();
                if (rt < s || rt > e) {
                    long half = (e - s) / 2;
                    range.set(rt - half, rt + half);
                }
                return;
            }
        }
    }

    /** Start of the visible range (ns). */
    public LongProperty visibleStartProperty() {
        return range.start();
    }

    /** End of the visible range (ns). */
    public LongProperty visibleEndProperty() {
        return range.end();
    }

    /** Pids with a task lane. */
    public ObservableList<Integer> getTaskLanes() {
        return taskLanes;
    }

    /** What is under the pointer. */
    public StringProperty hoverProperty() {
        return hover;
    }

    /** The selected event's index in the model, or null. */
    public ObjectProperty<Integer> selectedProperty() {
        return selected;
    }

    /** Changes when events were added (redraw). */
    public LongProperty versionProperty() {
        return version;
    }
}
