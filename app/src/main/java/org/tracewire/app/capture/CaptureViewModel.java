package org.tracewire.app.capture;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import javafx.beans.InvalidationListener;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.StringBinding;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.ObservableList;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.protocol.BackendClient;
import org.tracewire.protocol.Messages;
import org.tracewire.store.StoreCache;
import org.tracewire.tracefs.EventSelection;

// Long file: the capture view's one view model: ~40 one-line accessors the view binds (parts: CaptureChoice, RowFeed…)
/**
 * The capture view's state: the chosen events with their filters and outputs, a live capture
 * ({@link LiveCapture}), and what the views show of the capture, opened or live, through one path
 * ({@link CaptureReading}): the capture's pcapng indexed into its capture store
 * ({@link StoreTable}: the table and the views over every event). A live capture is the backend
 * writing a pcapng (the user's file, else a new one in the user's cache) whose store the app
 * builds as the file grows: the table and the views go over it from its first commit, as over an
 * opened file's store. Until an opened file's store is ready, its first {@value #FIRST_SCREEN}
 * rows fill the window; a trace.dat's rows, which have no store, fill a window of at most
 * {@value #WINDOW} rows.
 *
 * <p>Rows come from a reader thread ({@link #accept(List)}, or the file reader's waiting offer)
 * and wait in a bounded queue; the view calls {@link #flush()} once per UI pulse, which moves them
 * into {@link #getRows()} in one change.
 */
public final class CaptureViewModel {
    /** Rows kept in the window. */
    public static final int WINDOW = 50_000;
    /**
     * Rows of an opened pcapng read for the window while its store is built (a multiple of
     * {@link FileRows#BATCH}): 250 screens to scroll, and less of the app's CPU taken from the
     * store's build, which starts with them (docs/decisions/0035).
     */
    public static final int FIRST_SCREEN = 10_000;
    /** Rows a file reader may queue before it waits for the UI pulse. */
    static final int OPEN_QUEUE = 20_000;

    private final TaskExecutor executor;
    private final CaptureChoice choice = new CaptureChoice();
    private final StringProperty status = new SimpleStringProperty("not capturing");
    /** Events of the capture: the rows of an opened file, the kernel's count of a live one. */
    private final LongProperty eventCount = new SimpleLongProperty();
    /** Rows read from an opened file; a live capture's events read from its file into the store. */
    private final LongProperty received = new SimpleLongProperty();
    /** Rows the window's reader handed over since the last {@link #clear}. */
    private long drained;
    /** A live capture's events committed to its store so far. */
    private final LongProperty inStore = new SimpleLongProperty();
    private final RowFeed feed = new RowFeed();
    private final EventTableViewModel table;
    private final ObjectProperty<EventRow> selected;
    private final SelectedEvent selection;
    private final StringProperty sourceFile = new SimpleStringProperty("");
    private final StringProperty backendState = new SimpleStringProperty("no backend");
    private final LiveCapture live;
    private final CaptureReading reading;


    /**
     * @param executor runs backend calls and file reads in the background
     * @param backend  starts (or returns) the backend; may throw a BackendException naming the problem
     */
    public CaptureViewModel(TaskExecutor executor, Supplier<BackendClient> backend) {
        this.executor = executor;
        this.live = new LiveCapture(executor, backend, status);
        this.reading = new CaptureReading(executor, status, new CaptureReading.Rows() {
            @Override
            public void offer(List<EventRow> batch, long generation) {
                feed.offer(batch, OPEN_QUEUE, generation, reading::generation,
                        () -> executor.runOnUi(CaptureViewModel.this::flush));
            }

            @Override
            public void wallClock(boolean wall) {
                feed.wallClock(wall);
            }

            @Override
            public void flush() {
                CaptureViewModel.this.flush();
            }
        });
        this.table = new EventTableViewModel(feed.rows(), executor);
        this.selected = table.selectedProperty();
        this.selection = new SelectedEvent(table, reading.storeTableProperty());
        InvalidationListener state = o -> backendState.set(CaptureStatusText.backendState(reading.openingProperty().get(),
                live.busyProperty().get(), live.runningProperty().get(), live.hasBackend()));
        reading.openingProperty().addListener(state);
        live.busyProperty().addListener(state);
        live.runningProperty().addListener(state);
        eventsStatus = Bindings.createStringBinding(this::eventsText, reading.openingProperty(),
                reading.followingProperty(), received, eventCount, reading.storeTableProperty(),
                reading.indexedProperty(), live.lostProperty(), inStore);
        followStoreTable();
        live.eventCountProperty().addListener((o, a, n) -> {
            if (live.runningProperty().get() || live.busyProperty().get()) {
                eventCount.set(n.longValue());
            }
        });
    }

    /**
     * Keeps the counts and the pause of the capture's store table: a live capture's events in its
     * store as they are committed, an opened file's whole count once its store holds every event.
     */
    private void followStoreTable() {
        // the events read from the file: those its store has read (indexed, then committed)
        reading.indexedProperty().addListener((o, a, n) -> readFromFile(n.longValue()));
        InvalidationListener commit = o -> {
            StoreTable t = reading.storeTableProperty().get();
            if (t != null) {
                inStore.set(t.committedProperty().get());
                readFromFile(t.committedProperty().get());
            }
        };
        reading.storeTableProperty().addListener((o, a, t) -> {
            if (a != null) {
                a.committedProperty().removeListener(commit);
                a.pausedProperty().unbind();
            }
            if (t != null) {
                t.pausedProperty().bind(table.followProperty().not()); // a paused live table holds still
            }
            if (t != null && !t.growingProperty().get() && !reading.followingProperty().get()) {
                // an opened file's store holds every event: its count is theirs, not the first screen's
                eventCount.set(t.total());
                readFromFile(t.total());
            }
            if (t != null && t.growingProperty().get()) {
                t.committedProperty().addListener(commit);
                commit.invalidated(t.committedProperty());
            }
        });
    }

    /** The live capture: start, stop, the kernel's counters. */
    public LiveCapture live() {
        return live;
    }

    /**
     * The backend this capture view talks to ({@link LiveCapture#backendClient()}). Call off the
     * JavaFX thread.
     */
    public BackendClient backendClient() {
        return live.backendClient();
    }

    /** True when a backend is already running for this view. */
    public boolean hasBackend() {
        return live.hasBackend();
    }

    /**
     * Events read from the file into the store so far, a live capture's or an opened file's (UI
     * thread): never less than before, and not added to the first screen's rows, which the store's
     * build reads again.
     */
    private void readFromFile(long n) {
        if (n > received.get()) {
            received.set(n);
        }
    }

    /**
     * The status bar's event count: while a live capture's file is indexed, {@code "live: N events
     * in the store, R read from the file; kernel: K read, L lost"}; the store's total once it is
     * ready ({@code "N events"}); while an opened file's store is built, {@code "indexing… I
     * events"}; while a file is read, {@code "reading… R events so far"}.
     */
    public StringBinding eventsStatus() {
        return eventsStatus;
    }

    private final StringBinding eventsStatus;

    private String eventsText() {
        StoreTable t = reading.storeTableProperty().get();
        return CaptureStatusText.events(reading.followingProperty().get(), reading.openingProperty().get(),
                t == null ? -1 : t.total(), reading.indexedProperty().get(), inStore.get(), received.get(),
                eventCount.get(), live.lostProperty().get());
    }

    /**
     * Lets pcapng files' event tables go over their capture store ({@link StoreTable}): without
     * this call (tests of the window) an opened file's table is the window of rows.
     *
     * @param cache   where stores are kept (a live capture without a file of the user's writes
     *                into its {@code live} folder)
     * @param queries runs the store's build and queries, one at a time (one thread)
     */
    public void setStore(StoreCache cache, Executor queries) {
        reading.setStore(cache, queries, null);
    }

    /**
     * Like {@link #setStore(StoreCache, java.util.concurrent.Executor)}, go to frame's lookups on
     * a thread of their own ({@link StoreTable#setLookups}).
     *
     * @param lookups runs go to frame's lookups, one at a time (one thread, not {@code queries})
     */
    public void setStore(StoreCache cache, Executor queries, Executor lookups) {
        reading.setStore(cache, queries, lookups);
    }

    /**
     * Builds an opened pcapng's store, when the cache has none, in a child JVM with {@code sql}'s
     * options ({@link org.tracewire.store.StoreBuildProcess}; docs/decisions/0027); a new read,
     * a cancel and {@link #shutdown} stop the child.
     */
    public void buildStoresInChild() {
        reading.buildInChild();
    }

    /**
     * Starts the child that builds {@code file}'s store before the file is opened, at the app's
     * start with {@code --open} (after {@link #buildStoresInChild}): its JVM starts while the
     * window is made, and it builds once {@link #openFile} has read the first rows
     * (docs/decisions/0035). Nothing when the file is no pcapng or its store is cached.
     */
    public void prepareStore(Path file) {
        reading.prepare(file);
    }

    /**
     * The capture's table over its store, else null (a trace.dat, an opened file still indexing, a
     * live capture before its store's first commit): a live capture's store as it grows, from its
     * first commit ({@link StoreTable#growingProperty()} true until the capture has stopped and
     * its file is read to its end), else an opened file's store once it holds every event.
     */
    public ObjectProperty<StoreTable> storeTableProperty() {
        return reading.storeTableProperty();
    }

    /**
     * The store the views (timeline, latency, histogram, I/O graph, query) go over: the same as
     * {@link #storeTableProperty()}.
     */
    public ObjectProperty<StoreTable> viewStoreProperty() {
        return reading.storeTableProperty();
    }

    /** Events stored so far while the capture's store is built, -1 when none is being built. */
    public LongProperty indexedProperty() {
        return reading.indexedProperty();
    }

    /** What the capture's store is doing ("indexing… N events", ready, or why it failed). */
    public StringProperty storeStatusProperty() {
        return reading.storeStatusProperty();
    }

    /** The backend's state for the status bar ({@link CaptureStatusText#backendState}). */
    public StringProperty backendStateProperty() {
        return backendState;
    }

    /** {@link CaptureChoice#addEvent(String, String)}. */
    public void addEvent(String event, String filter) {
        choice.addEvent(event, filter);
    }

    /** {@link CaptureChoice#setStack(String, EventSelection.Stack)}. */
    public void setStack(String event, EventSelection.Stack stack) {
        choice.setStack(event, stack);
    }

    /** The chosen events and outputs. */
    public CaptureChoice choice() {
        return choice;
    }

    /**
     * The rows' records (filters, latency, histograms); an opened file's formats are set on it.
     *
     * @param records the app's one bridge from rows to records
     */
    public void setRecords(RowRecords records) {
        reading.setRecords(records);
        table.setRecords(records);
    }

    /**
     * Opens a recorded file (a pcapng of tracewire frames or a trace.dat) in the background
     * ({@link CaptureReading}). Needs neither root nor the backend.
     *
     * @param file   the file
     * @param opened called on the UI thread when reading ended: with the rows read, or -1 when
     *               only the first screen was read (the store holds the rest)
     */
    public void openFile(Path file, LongConsumer opened) {
        if (live.runningProperty().get() || live.busyProperty().get()) {
            status.set("stop the capture before opening a file");
            return;
        }
        clear();
        // a file is read from its first event on: the table stays there instead of following
        table.followProperty().set(false);
        sourceFile.set(file.toAbsolutePath().toString());
        status.set("opening " + file.getFileName() + "…");
        reading.read(file, null, new CaptureReading.Done() {
            @Override
            public void done(long n, long read, String line) {
                if (n >= 0 || reading.storeTableProperty().get() == null) {
                    eventCount.set(read);
                    status.set(line);
                } // else the store, ready first, has said how many events the file holds
                opened.accept(n);
            }

            @Override
            public void failed(String why) {
                sourceFile.set("");
                status.set(why);
            }
        });
    }

    /**
     * Cancels what is under way: reading an opened file (the rows read so far stay), or a start
     * waiting for the backend (the capture is stopped as soon as it has started).
     */
    public void cancel() {
        if (reading.openingProperty().get()) {
            cancelOpen();
        } else {
            live.cancelStart();
        }
    }

    /** Stops reading an opened file (the rows read so far stay). */
    public void cancelOpen() {
        reading.cancel();
        feed.wake();
    }

    /**
     * The capture's file (absolute path): the opened file, or the pcapng a live capture writes;
     * empty before either.
     */
    public StringProperty sourceFileProperty() {
        return sourceFile;
    }

    /**
     * The pcapng "Show in Wireshark" opens for a row: the capture's file, for a row that carries
     * its frame number (every row of a pcapng, opened or live).
     *
     * @param row a row of the table
     * @return the file, or null when there is none (a trace.dat's rows)
     */
    public String wiresharkFile(EventRow row) {
        String file = sourceFile.get();
        return row.frame() > 0 && file != null && !file.isEmpty() ? file : null;
    }

    /**
     * Opens a row's frame in Wireshark: the capture's pcapng at the row's frame number.
     *
     * @param row  the row
     * @param show opens a file at a 1-based frame number
     */
    public void showInWireshark(EventRow row, BiConsumer<String, Long> show) {
        String file = wiresharkFile(row);
        if (file == null) {
            status.set("this event has no frame in a pcapng (a trace.dat's events have none)");
            return;
        }
        show.accept(file, row.frame());
    }

    /** True while an opened file is being read. */
    public BooleanProperty openingProperty() {
        return reading.openingProperty();
    }

    /** True while a live capture's file is read as the backend writes it. */
    public BooleanProperty followingProperty() {
        return reading.followingProperty();
    }

    /**
     * Starts a capture of the chosen events in the background: the backend writes the pcapng set
     * in Outputs, else a new file in the user's cache ({@link LiveCapture#newCacheFile}), and the
     * app reads it as it grows ({@link CaptureReading}) until the capture has stopped.
     */
    public void start() {
        if (live.runningProperty().get() || live.busyProperty().get()) {
            return;
        }
        clear();
        sourceFile.set("");
        table.followProperty().set(true);
        table.wallClockProperty().set(true);
        if (choice.getEvents().isEmpty()) {
            status.set("choose at least one event (Browser → Add to capture)");
            return;
        }
        Path out;
        try {
            out = choice.output(reading.storeCache() != null ? reading.storeCache() : StoreCache.ofUser(System.getenv()));
        } catch (IOException e) {
            status.set("cannot start: " + e.getMessage());
            return;
        }
        live.start(choice.request(out), file -> watch(file, live::writing), this::stopped);
    }

    /**
     * Indexes the pcapng of a live capture into its store as it grows (the table's and the views'
     * from its first commit), until {@code writing} says false and the file is read to its end.
     *
     * @param file    the pcapng the backend writes
     * @param writing true while the backend may still write it
     */
    void watch(Path file, BooleanSupplier writing) {
        sourceFile.set(file.toString());
        reading.read(file, writing, new CaptureReading.Done() {
            @Override
            public void done(long n, long read, String line) {
                captured(read, line);
            }

            @Override
            public void failed(String why) {
                status.set(why);
            }
        });
    }

    /** A live capture's file is read to its end: the status compares its events with the kernel's. */
    private void captured(long read, String line) {
        received.set(read);
        long kernel = eventCount.get();
        long lost = live.lostProperty().get();
        status.set(line + String.format("; the kernel read %,d, lost %,d%s", kernel, lost,
                read == kernel ? "" : String.format(" (the file holds %,d: not the kernel's count)", read)));
    }

    /** Stops the capture in the background; the final counters replace the live ones. */
    public void stop() {
        live.stop(this::stopped);
    }

    private void stopped(Messages.Stats stats) {
        eventCount.set(stats.events());
        if (reading.followingProperty().get()) {
            status.set(String.format("stopped: %,d events, %,d lost; reading the rest of the file…", stats.events(),
                    LiveCapture.lostOf(stats)));
        }
    }

    /** Clears the rows and the store of the previous capture or file. */
    private void clear() {
        reading.reset();
        feed.clear();
        table.cleared();
        eventCount.set(0);
        received.set(0);
        drained = 0;
        inStore.set(0);
    }

    /**
     * Queues rows (any thread), such as a reader of events hands them on. Beyond {@value #WINDOW}
     * queued, the oldest are dropped: the window would discard them anyway.
     *
     * @param batch events, oldest first
     */
    public void accept(List<EventRow> batch) {
        feed.accept(batch);
    }

    /** Moves queued rows and counters into the observable state: call once per UI pulse. */
    public void flush() {
        // the window's reader and the store's build read the same file from its start: the larger count
        feed.drain(table, read -> readFromFile(drained += read));
        live.flush();
    }

    /** {@link CaptureChoice#getEvents()}. */
    public ObservableList<EventSelection> getEvents() {
        return choice.getEvents();
    }

    /** {@link CaptureChoice#ifaceProperty()}. */
    public StringProperty ifaceProperty() {
        return choice.ifaceProperty();
    }

    /** {@link CaptureChoice#pcapngProperty()}. */
    public StringProperty pcapngProperty() {
        return choice.pcapngProperty();
    }

    /** {@link CaptureChoice#bufferKbProperty()}. */
    public IntegerProperty bufferKbProperty() {
        return choice.bufferKbProperty();
    }

    /** True while capturing. */
    public BooleanProperty runningProperty() {
        return live.runningProperty();
    }

    /** True while a start or stop is under way. */
    public BooleanProperty busyProperty() {
        return live.busyProperty();
    }

    /** A one-line status. */
    public StringProperty statusProperty() {
        return status;
    }

    /** Events of the capture: an opened file's rows, or the kernel's count of a live capture. */
    public LongProperty eventCountProperty() {
        return eventCount;
    }

    /** Events the kernel reported lost in the live capture. */
    public LongProperty lostProperty() {
        return live.lostProperty();
    }

    /**
     * Events read from the capture's file: an opened file's rows read into the window; a live
     * capture's events read into its store (indexed or committed).
     */
    public LongProperty receivedProperty() {
        return received;
    }

    /** The newest rows read from an opened file (or a trace.dat), at most {@value #WINDOW}, oldest first. */
    public ObservableList<EventRow> getRows() {
        return feed.rows();
    }

    /** The event table's state (filter, find, follow, selection, export). */
    public EventTableViewModel table() {
        return table;
    }

    /**
     * Receives every batch of rows as it is read (on the UI thread, once per pulse): the timeline,
     * latency and histogram views feed on it.
     */
    public interface RowSink {
        /** @param batch the new rows, oldest first (unmodifiable; do not keep a reference to change) */
        void appended(List<EventRow> batch);

        /** A new capture cleared the rows. */
        default void cleared() {
        }
    }

    /** @param sink receives every batch of rows from now on */
    public void addRowSink(RowSink sink) {
        feed.addSink(sink);
    }

    /** The selected row (the event table's selection). */
    public ObjectProperty<EventRow> selectedProperty() {
        return selected;
    }

    /** The selected row's details as a tree ({@link EventDetailTree}), empty when none is selected. */
    public ObjectProperty<List<EventDetailTree.Node>> selectedDetailsProperty() {
        return selection.detailsProperty();
    }

    /** The selected row's fields, one per line. */
    public StringProperty selectedFieldsProperty() {
        return selection.fieldsProperty();
    }

    /** Stops a running capture and closes the backend (app exit). */
    public void shutdown() {
        reading.stopChild();
        reading.dropPrepared();
        live.shutdown();
    }
}
