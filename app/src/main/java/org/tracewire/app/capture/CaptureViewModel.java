package org.tracewire.app.capture;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.tracewire.protocol.BackendClient;
import org.tracewire.record.EventRecord;
import org.tracewire.protocol.BackendListener;
import org.tracewire.protocol.Messages;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.app.util.TaskExecutor;

/**
 * The capture view's state: chosen events with filters, outputs, start/stop through the
 * {@link BackendClient}, live counters and a bounded window of the latest {@value #WINDOW} events.
 *
 * <p>Streamed events arrive on the backend's reader thread ({@link #accept(List)}) and wait in a
 * bounded queue; the view calls {@link #flush()} once per UI pulse, which moves them into
 * {@link #getRows()} in one change. At most {@value #WINDOW} are kept, so a flood costs at most
 * one window's worth of work per pulse.
 */
public final class CaptureViewModel {
    /** Rows kept in the table. */
    public static final int WINDOW = 50_000;

    private final TaskExecutor executor;
    private final Supplier<BackendClient> backend;
    private final ObservableList<EventSelection> events = FXCollections.observableArrayList();
    private final StringProperty iface = new SimpleStringProperty(org.tracewire.protocol.Protocol.DEFAULT_IFACE);
    private final StringProperty pcapng = new SimpleStringProperty("");
    private final IntegerProperty bufferKb = new SimpleIntegerProperty(0);
    private final BooleanProperty running = new SimpleBooleanProperty();
    private final BooleanProperty busy = new SimpleBooleanProperty();
    private final StringProperty status = new SimpleStringProperty("not capturing");
    private final LongProperty eventCount = new SimpleLongProperty();
    private final StringProperty rate = new SimpleStringProperty("0");
    private final LongProperty frames = new SimpleLongProperty();
    private final LongProperty bytes = new SimpleLongProperty();
    private final LongProperty streamDropped = new SimpleLongProperty();
    private final LongProperty lost = new SimpleLongProperty();
    private final LongProperty received = new SimpleLongProperty();
    private final RingObservableList<EventRow> rows = new RingObservableList<>(WINDOW);
    private final EventTableViewModel table;
    private final ObjectProperty<EventRow> selected;
    private final List<RowSink> sinks = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final StringProperty selectedFields = new SimpleStringProperty("");

    private final Object lock = new Object();
    private final ArrayDeque<EventRow> pending = new ArrayDeque<>();
    private long pendingReceived;
    private final AtomicReference<Messages.Stats> pendingStats = new AtomicReference<>();
    private final AtomicReference<String> pendingStatus = new AtomicReference<>();
    private BackendClient client;
    /** Rows an opened file may queue before its reader waits for the UI pulse. */
    static final int OPEN_QUEUE = 20_000;
    private final StringProperty sourceFile = new SimpleStringProperty("");
    /** An opened pcapng's table over its capture store, once the store is ready; else null. */
    private final ObjectProperty<StoreTable> storeTable = new javafx.beans.property.SimpleObjectProperty<>();
    /** Events stored so far while an opened file's store is built; -1 when none is being built. */
    private final LongProperty indexed = new SimpleLongProperty(-1);
    private final StringProperty storeStatus = new SimpleStringProperty("");
    private org.tracewire.store.StoreCache storeCache;
    private java.util.concurrent.Executor storeQueries;
    private final StringProperty outputPcapng = new SimpleStringProperty("");
    private final StringProperty backendState = new SimpleStringProperty("no backend");
    private final BooleanProperty opening = new SimpleBooleanProperty();
    private final java.util.concurrent.atomic.AtomicLong openGeneration = new java.util.concurrent.atomic.AtomicLong();
    private RowRecords records = RowRecords.none();
    /** Whether the rows queued carry wall-clock times, set off the UI thread; flush hands it to the table first. */
    private volatile Boolean pendingWallClock;
    /** Decodes the frames the backend streams; a new one per capture (its context starts afresh). */
    private volatile FrameRows frameRows = new FrameRows();

    private final BackendListener listener = new BackendListener() {
        @Override
        public void onEvents(List<Messages.EventItem> items) {
            List<EventRow> converted = new ArrayList<>(items.size());
            for (Messages.EventItem e : items) {
                converted.add(EventRow.of(e));
            }
            accept(converted);
        }

        @Override
        public void onFrames(List<java.nio.ByteBuffer> frames) {
            FrameRows f = frameRows;
            List<EventRow> rows = f.rows(frames);
            if (!f.wallClock()) {
                pendingWallClock = false;
            }
            accept(rows);
        }

        @Override
        public void onStats(Messages.Stats stats) {
            pendingStats.set(stats);
        }

        @Override
        public void onError(String message) {
            pendingStatus.set("backend: " + message);
        }

        @Override
        public void onClosed(String reason) {
            pendingStatus.set("backend stopped: " + reason);
        }
    };

    /**
     * @param executor runs backend calls in the background
     * @param backend  starts (or returns) the backend; may throw a BackendException naming the problem
     */
    /**
     * The backend this capture view talks to: the open one, or a new one started through the
     * supplier (which may ask for privilege). Call off the JavaFX thread.
     */
    public synchronized BackendClient backendClient() {
        BackendClient c = client != null && client.isOpen() ? client : backend.get();
        c.removeListener(listener);
        c.addListener(listener);
        client = c;
        return c;
    }

    /** True when a backend is already running for this view. */
    public synchronized boolean hasBackend() {
        return client != null && client.isOpen();
    }

    public CaptureViewModel(TaskExecutor executor, Supplier<BackendClient> backend) {
        this.executor = executor;
        this.backend = backend;
        this.table = new EventTableViewModel(rows, executor);
        this.selected = table.selectedProperty();
        selected.addListener((o, a, b) -> {
            selectedFields.set(b == null ? "" : b.fieldsText());
            selectedDetails.set(b == null ? List.of() : details(b));
            StoreTable t = storeTable.get();
            if (b != null && t != null && b.frame() > 0) {
                t.stacksOf(b.frame(), frames -> {
                    if (selected.get() == b) {
                        selectedDetails.set(EventDetailTree.withStacks(selectedDetails.get(), frames));
                    }
                });
            }
        });
        javafx.beans.InvalidationListener state = o -> backendState.set(
                backendState(opening.get(), busy.get(), running.get(), hasBackend()));
        opening.addListener(state);
        busy.addListener(state);
        running.addListener(state);
    }

    /**
     * The status bar's backend state.
     *
     * @param opening a file is being read
     * @param busy    a start or stop is under way
     * @param running capturing
     * @param backend a backend process is running
     * @return "reading a file", "starting the backend…", "starting the capture…", "stopping…",
     *         "capturing", "backend idle" or "no backend"
     */
    public static String backendState(boolean opening, boolean busy, boolean running, boolean backend) {
        if (opening) {
            return "reading a file";
        }
        if (busy) {
            return running ? "stopping…" : backend ? "starting the capture…" : "starting the backend…";
        }
        if (running) {
            return "capturing";
        }
        return backend ? "backend idle" : "no backend";
    }

    /**
     * The status bar's event count: {@code "reading… N events so far"} while a file is read (the
     * rows that reached the views), else the capture's or the file's total, {@code "N events"}.
     */
    public javafx.beans.binding.StringBinding eventsStatus() {
        return eventsStatus;
    }

    private final javafx.beans.binding.StringBinding eventsStatus = javafx.beans.binding.Bindings.createStringBinding(
            () -> storeTable.get() != null ? String.format("%,d events", storeTable.get().total())
                    : indexed.get() >= 0 ? String.format("indexing… %,d events", indexed.get())
                    + (opening.get() ? String.format("; reading… %,d so far", received.get()) : "")
                    : opening.get() ? String.format("reading… %,d events so far", received.get())
                    : String.format("%,d events", eventCount.get()), opening, received, eventCount, storeTable, indexed);

    /**
     * Lets opened pcapng files' event tables go over their capture store ({@link StoreTable}):
     * without this call (tests of the streamed path) an opened file's table is the window of rows.
     *
     * @param cache   where stores are kept
     * @param queries runs the store's build and queries, one at a time (one thread)
     */
    public void setStore(org.tracewire.store.StoreCache cache, java.util.concurrent.Executor queries) {
        this.storeCache = cache;
        this.storeQueries = queries;
    }

    /** The opened file's table over its store once it is ready, else null (a live capture, a trace.dat, still indexing). */
    public ObjectProperty<StoreTable> storeTableProperty() {
        return storeTable;
    }

    /** Events stored so far while the opened file's store is built, -1 when none is being built. */
    public LongProperty indexedProperty() {
        return indexed;
    }

    /** What the store of the opened file is doing ("indexing… N events", ready, or why it failed). */
    public StringProperty storeStatusProperty() {
        return storeStatus;
    }

    /** Closes the opened file's store table, if any. */
    private void closeStore() {
        StoreTable t = storeTable.get();
        storeTable.set(null);
        indexed.set(-1);
        storeStatus.set("");
        if (t != null) {
            t.close();
        }
    }

    /**
     * Builds or reuses the store of an opened pcapng in the background ({@link #setStore}); the
     * table moves to it when it is ready. A trace.dat stays on the rows read (its store keeps no
     * file offsets to re-read an event from).
     */
    private void openStore(java.nio.file.Path file, long gen) {
        if (storeCache == null || !isPcapng(file)) {
            return;
        }
        indexed.set(0);
        storeStatus.set("indexing " + file.getFileName() + "… the table shows the rows read so far (the latest "
                + String.format("%,d", WINDOW) + ") until every event is indexed");
        org.tracewire.store.StoreCache cache = storeCache;
        storeQueries.execute(() -> {
            StoreTable t;
            try {
                t = StoreTable.open(file, cache, n -> executor.runOnUi(() -> {
                    if (openGeneration.get() == gen && indexed.get() >= 0) {
                        indexed.set(n);
                    }
                }), storeQueries, executor);
            } catch (Exception | LinkageError e) {
                String why = rootMessage(e);
                executor.runOnUi(() -> {
                    if (openGeneration.get() == gen) {
                        indexed.set(-1);
                        storeStatus.set("no store for " + file.getFileName() + " (" + why + "): the table keeps the latest "
                                + String.format("%,d", WINDOW) + " rows");
                    }
                });
                return;
            }
            executor.runOnUi(() -> {
                if (openGeneration.get() != gen) {
                    t.close();
                    return;
                }
                indexed.set(-1);
                storeTable.set(t);
                storeStatus.set(String.format("all %,d events of %s, from its store%s", t.total(), file.getFileName(),
                        t.stoppedAt() == null ? "" : " (the file is read up to: " + t.stoppedAt() + ")"));
            });
        });
    }

    private static boolean isPcapng(java.nio.file.Path file) {
        try (var in = java.nio.file.Files.newInputStream(file)) {
            return org.tracewire.input.PcapngInput.hasMagic(in.readNBytes(4));
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** The backend's state for the status bar ({@link #backendState(boolean, boolean, boolean, boolean)}). */
    public StringProperty backendStateProperty() {
        return backendState;
    }

    /**
     * Adds an event (or replaces its filter when it is already chosen).
     *
     * @param event  "system:event"
     * @param filter kernel filter, empty for none
     */
    public void addEvent(String event, String filter) {
        String f = filter == null ? "" : filter;
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).fullName().equals(event)) {
                events.set(i, events.get(i).withFilter(f));
                return;
            }
        }
        events.add(EventSelection.parse(event, f));
    }

    /**
     * Sets the stack traces recorded with a chosen event ({@code capture --stack}, docs/stacks.md).
     *
     * @param event "system:event", one of {@link #getEvents()}; nothing happens for another
     * @param stack the stacks; a user stack is recorded for every event of the capture (the
     *              kernel's option is instance-wide)
     */
    public void setStack(String event, EventSelection.Stack stack) {
        for (int i = 0; i < events.size(); i++) {
            EventSelection e = events.get(i);
            if (e.fullName().equals(event)) {
                events.set(i, new EventSelection(e.system(), e.event(), e.filter(), stack));
            }
        }
    }

    /**
     * The rows' records (filters, latency, histograms); an opened file's formats are set on it.
     *
     * @param records the app's one bridge from rows to records
     */
    public void setRecords(RowRecords records) {
        this.records = records;
        table.setRecords(records);
    }

    /**
     * Opens a recorded file (a pcapng of tracewire frames or a trace.dat) in the background: the
     * rows go through the same queue and pulse as a live capture's, so the table, timeline, latency
     * and histogram views fill in batches; the reader waits while {@value #OPEN_QUEUE} rows are
     * queued, so every view sees every event while the table keeps the newest {@value #WINDOW}.
     * Needs neither root nor the backend.
     *
     * @param file   the file
     * @param opened called on the UI thread when the whole file was read (with the rows read)
     */
    public void openFile(java.nio.file.Path file, java.util.function.LongConsumer opened) {
        if (running.get() || busy.get()) {
            status.set("stop the capture before opening a file");
            return;
        }
        long gen = openGeneration.incrementAndGet();
        busy.set(true);
        opening.set(true);
        resetCounters();
        openStore(file, gen);
        outputPcapng.set("");
        // a file is read from its first event on: the table stays there instead of following
        table.liveProperty().set(false);
        table.followProperty().set(false);
        sourceFile.set(file.toAbsolutePath().toString());
        status.set("opening " + file.getFileName() + "…");
        RowRecords rr = records;
        executor.execute(() -> {
            try (FileRows in = FileRows.open(file)) {
                rr.useFile(in.catalog(), null);
                pendingWallClock = in.wallClock();
                long n = in.readAll(this::offer, () -> openGeneration.get() != gen);
                StringBuilder sb = new StringBuilder();
                sb.append(String.format("opened %s: %,d events (formats of %s)", file.getFileName(), n, in.formatsLabel()));
                if (n > WINDOW) {
                    sb.append(String.format("; the table keeps the last %,d", WINDOW));
                }
                for (String note : in.summary()) {
                    sb.append("; ").append(note);
                }
                if (openGeneration.get() != gen) {
                    sb.setLength(0);
                    sb.append(String.format("cancelled after %,d events", n));
                }
                return new Object[] {n, sb.toString()};
            }
        }, r -> {
            busy.set(false);
            opening.set(false);
            flush();
            long n = (Long) r[0];
            eventCount.set(n);
            status.set((String) r[1]);
            opened.accept(n);
        }, e -> {
            busy.set(false);
            opening.set(false);
            sourceFile.set("");
            status.set("cannot open " + file.getFileName() + ": " + rootMessage(e));
        });
    }

    private volatile boolean startCancelled;

    /**
     * Cancels what is under way: reading an opened file (the rows read so far stay), or a start
     * waiting for the backend (the capture is stopped as soon as it has started).
     */
    public void cancel() {
        if (opening.get()) {
            cancelOpen();
        } else if (busy.get() && !running.get()) {
            startCancelled = true;
            status.set("cancelling: the capture stops as soon as the backend answers…");
        }
    }

    /** Stops reading an opened file (the rows read so far stay). */
    public void cancelOpen() {
        openGeneration.incrementAndGet();
        if (indexed.get() >= 0) {
            indexed.set(-1);
            storeStatus.set("indexing cancelled: the table keeps the rows read");
        }
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    /**
     * Queues rows of an opened file (reader thread), waiting while {@value #OPEN_QUEUE} rows are
     * queued; asks the UI thread to flush meanwhile, so it also works without a running pulse.
     *
     * @param batch rows, oldest first
     */
    void offer(List<EventRow> batch) {
        long gen = openGeneration.get();
        while (true) {
            synchronized (lock) {
                if (pending.size() < OPEN_QUEUE || openGeneration.get() != gen) {
                    pendingReceived += batch.size();
                    pending.addAll(batch);
                    return;
                }
            }
            executor.runOnUi(this::flush);
            synchronized (lock) {
                if (pending.size() >= OPEN_QUEUE && openGeneration.get() == gen) {
                    try {
                        lock.wait(50);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }
    }

    /** The opened file (absolute path), empty for a live capture or nothing yet. */
    public StringProperty sourceFileProperty() {
        return sourceFile;
    }

    /**
     * The pcapng the current or last live capture writes (empty when it writes none, or a file was
     * opened since): "Show in Wireshark" opens it while the capture runs and after it stopped.
     */
    public StringProperty outputPcapngProperty() {
        return outputPcapng;
    }

    /**
     * The pcapng "Show in Wireshark" opens for a row: the opened file for its rows (they carry frame
     * numbers), else the live capture's pcapng output when the app can read it.
     *
     * @param row a row of the table
     * @return the file, or null when there is none
     */
    public String wiresharkFile(EventRow row) {
        String opened = sourceFile.get();
        if (row.frame() > 0 && opened != null && !opened.isEmpty()) {
            return opened;
        }
        String out = outputPcapng.get();
        if (row.frame() == 0 && out != null && !out.isEmpty() && java.nio.file.Files.isReadable(java.nio.file.Path.of(out))) {
            return out;
        }
        return null;
    }

    /**
     * Opens a row's frame in Wireshark: at once for a row of an opened pcapng; for a streamed row
     * the live capture's pcapng is searched in the background ({@link PcapngFrames}), then
     * {@code show} runs on the UI thread. The status says when the row is not in the file yet
     * (the backend writes in batches; after Stop every captured event is there).
     *
     * @param row  the row
     * @param show opens a file at a 1-based frame number
     */
    public void showInWireshark(EventRow row, java.util.function.BiConsumer<String, Long> show) {
        String file = wiresharkFile(row);
        if (file == null) {
            status.set("no pcapng to show this event in: set a pcapng file in Outputs before starting");
            return;
        }
        if (row.frame() > 0) {
            show.accept(file, row.frame());
            return;
        }
        executor.execute(() -> PcapngFrames.find(java.nio.file.Path.of(file), row), n -> {
            if (n > 0) {
                show.accept(file, n);
            } else {
                status.set("this event is not in " + file + " yet" + (running.get() ? " (written in batches; try again in a moment or after Stop)" : ""));
            }
        }, e -> status.set("cannot read " + file + ": " + rootMessage(e)));
    }

    /** True while a file is being read. */
    public BooleanProperty openingProperty() {
        return opening;
    }

    /** Starts a capture of the chosen events in the background. */
    public void start() {
        if (running.get() || busy.get()) {
            return;
        }
        records.useFile(null, null);
        sourceFile.set("");
        table.liveProperty().set(true);
        table.followProperty().set(true);
        table.wallClockProperty().set(true);
        frameRows = new FrameRows();
        if (events.isEmpty()) {
            status.set("choose at least one event (Browser → Add to capture)");
            return;
        }
        List<Messages.CaptureEvent> evs = events.stream().map(Messages.CaptureEvent::of).toList();
        Messages.CaptureRequest req = new Messages.CaptureRequest(evs, iface.get(), pcapng.get(), bufferKb.get(), null, true);
        busy.set(true);
        startCancelled = false;
        outputPcapng.set("");
        status.set("starting the backend…");
        resetCounters();
        executor.execute(() -> {
            BackendClient c = backendClient();
            return c.startCapture(req).get(60, TimeUnit.SECONDS);
        }, started -> {
            busy.set(false);
            running.set(true);
            String written = started.pcapng() != null && !started.pcapng().isBlank() ? started.pcapng() : req.pcapng();
            outputPcapng.set(written == null ? "" : written);
            if (startCancelled) {
                startCancelled = false;
                status.set("cancelled: stopping the capture");
                stop();
                return;
            }
            status.set("capturing" + (started.iface() != null ? " on " + started.iface() : "")
                    + (started.pcapng() != null ? " into " + started.pcapng() : "")
                    + (started.instance() != null ? " (instance " + started.instance() + ")" : ""));
        }, e -> {
            busy.set(false);
            status.set("cannot start: " + rootMessage(e));
        });
    }

    /** Stops the capture in the background; the final counters replace the live ones. */
    public void stop() {
        BackendClient c = client;
        if (!running.get() || c == null) {
            return;
        }
        busy.set(true);
        executor.execute(() -> c.stopCapture().get(60, TimeUnit.SECONDS), stats -> {
            pendingStats.set(stats);
            flush();
            status.set("stopped: " + stats.events() + " events");
            busy.set(false);
            running.set(false);
        }, e -> {
            busy.set(false);
            running.set(false);
            status.set("stop failed: " + rootMessage(e));
        });
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    private void resetCounters() {
        synchronized (lock) {
            pending.clear();
            pendingReceived = 0;
        }
        closeStore();
        rows.clear();
        table.cleared();
        sinks.forEach(RowSink::cleared);
        eventCount.set(0);
        rate.set("0");
        frames.set(0);
        bytes.set(0);
        streamDropped.set(0);
        lost.set(0);
        received.set(0);
    }

    /**
     * Queues streamed events (any thread). Beyond {@value #WINDOW} queued, the oldest are dropped:
     * the table would discard them anyway.
     *
     * @param batch events, oldest first
     */
    public void accept(List<EventRow> batch) {
        synchronized (lock) {
            pendingReceived += batch.size();
            for (EventRow r : batch) {
                if (pending.size() == WINDOW) {
                    pending.pollFirst();
                }
                pending.addLast(r);
            }
        }
    }

    /** Moves queued events and counters into the observable state: call once per UI pulse. */
    public void flush() {
        Boolean wall = pendingWallClock;
        if (wall != null) {
            pendingWallClock = null;
            table.wallClockProperty().set(wall);
        }
        List<EventRow> batch;
        long rec;
        synchronized (lock) {
            batch = pending.isEmpty() ? List.of() : new ArrayList<>(pending);
            pending.clear();
            rec = pendingReceived;
            pendingReceived = 0;
            lock.notifyAll();
        }
        if (!batch.isEmpty()) {
            rows.append(batch);
            received.set(received.get() + rec);
            List<EventRow> shared = java.util.Collections.unmodifiableList(batch);
            table.appended(shared);
            for (RowSink sink : sinks) {
                sink.appended(shared);
            }
        }
        Messages.Stats s = pendingStats.getAndSet(null);
        if (s != null) {
            eventCount.set(s.events());
            rate.set(String.format("%,.0f", s.eventsPerSecond()));
            frames.set(s.frames());
            bytes.set(s.bytes());
            streamDropped.set(s.streamDropped());
            lost.set(s.cpus() == null ? 0 : s.cpus().stream().mapToLong(Messages.CpuStat::lostKnown).sum());
        }
        String st = pendingStatus.getAndSet(null);
        if (st != null) {
            status.set(st);
            if (st.startsWith("backend stopped")) {
                running.set(false);
            }
        }
    }

    /** The chosen events with their filters. */
    public ObservableList<EventSelection> getEvents() {
        return events;
    }

    /** TAP interface name, empty for none. */
    public StringProperty ifaceProperty() {
        return iface;
    }

    /** pcapng output path, empty for none. */
    public StringProperty pcapngProperty() {
        return pcapng;
    }

    /** Per-CPU buffer size in KB, 0 for the kernel's default. */
    public IntegerProperty bufferKbProperty() {
        return bufferKb;
    }

    /** True while capturing. */
    public BooleanProperty runningProperty() {
        return running;
    }

    /** True while a start or stop is under way. */
    public BooleanProperty busyProperty() {
        return busy;
    }

    /** A one-line status. */
    public StringProperty statusProperty() {
        return status;
    }

    /** Events captured (backend counter). */
    public LongProperty eventCountProperty() {
        return eventCount;
    }

    /** Events per second, formatted. */
    public StringProperty rateProperty() {
        return rate;
    }

    /** Frames written. */
    public LongProperty framesProperty() {
        return frames;
    }

    /** Bytes written. */
    public LongProperty bytesProperty() {
        return bytes;
    }

    /** Events the backend did not stream to the app. */
    public LongProperty streamDroppedProperty() {
        return streamDropped;
    }

    /** Events the kernel reported lost. */
    public LongProperty lostProperty() {
        return lost;
    }

    /** Events received by the app in this capture. */
    public LongProperty receivedProperty() {
        return received;
    }

    /** The latest events, at most {@value #WINDOW}, oldest first. */
    public ObservableList<EventRow> getRows() {
        return rows;
    }

    /** The event table's state (filter, find, follow, selection, export). */
    public EventTableViewModel table() {
        return table;
    }

    /**
     * Receives every batch of rows as it enters the table (on the UI thread, once per pulse): the
     * timeline, latency and histogram views feed on it.
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
        sinks.add(sink);
    }

    /** The selected row (the event table's selection). */
    public ObjectProperty<EventRow> selectedProperty() {
        return selected;
    }

    private final ObjectProperty<List<EventDetailTree.Node>> selectedDetails =
            new javafx.beans.property.SimpleObjectProperty<>(List.of());
    private final EventDetailTree detailTree = new EventDetailTree();

    private List<EventDetailTree.Node> details(EventRow row) {
        EventRecord rec;
        try {
            rec = records.record(row);
        } catch (RuntimeException e) { // fields that do not fit the format: the tree shows them raw
            rec = null;
        }
        return detailTree.of(row, rec, table.timeText(row));
    }

    /** The selected row's details as a tree ({@link EventDetailTree}), empty when none is selected. */
    public ObjectProperty<List<EventDetailTree.Node>> selectedDetailsProperty() {
        return selectedDetails;
    }

    /** The selected row's fields, one per line. */
    public StringProperty selectedFieldsProperty() {
        return selectedFields;
    }

    /** Stops a running capture and closes the backend (app exit). */
    public void shutdown() {
        BackendClient c = client;
        if (c != null) {
            c.close();
        }
    }
}
