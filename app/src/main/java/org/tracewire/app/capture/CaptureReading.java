package org.tracewire.app.capture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.input.PcapngInput;
import org.tracewire.store.StoreCache;

/**
 * Reads one capture file into the capture view: its capture store for the table and the views
 * ({@link StoreTable}), and its rows for the window of rows the views see while the store is built
 * ({@link FileRows}). One path for every capture: an opened file, and the pcapng a live capture
 * writes, read as it grows while {@code writing} says the backend may still write it.
 * <ul>
 * <li>an opened pcapng (with a store, {@link #setStore}): its first {@value CaptureViewModel#WINDOW}
 *     rows at once, while its store indexes every event; should the store fail, the file is then
 *     read whole;</li>
 * <li>a live capture's pcapng: every row as the backend writes it, the views getting the newest
 *     of them each pulse (a reader that waited for the views would fall behind the capture), while
 *     its store indexes every event of the same growing file; the store is ready once the capture
 *     has stopped and the file is read to its end;</li>
 * <li>a trace.dat, or no store: every row, the window keeping the newest.</li>
 * </ul>
 * Rows reach the view model through {@link Rows}; a finished file's reader waits while the view is
 * behind, so every view sees every event. Called on the UI thread; results come back on it.
 */
final class CaptureReading {
    /** Where rows of the file read go (the view model's window queue). */
    interface Rows {
        /**
         * Queues a batch (reader thread): a finished file's rows wait while the view is behind
         * (the generation stops the wait); a live capture's never wait, the views getting the
         * newest of them ({@link CaptureViewModel#LIVE_QUEUE}).
         *
         * @param live the rows of a file the backend may still write
         */
        void offer(List<EventRow> batch, long generation, boolean live);

        /** The rows' time base ({@link FileRows#wallClock()}), before the first batch (reader thread). */
        void wallClock(boolean wall);

        /** Moves what is queued into the views (UI thread). */
        void flush();
    }

    private final TaskExecutor executor;
    private final StringProperty status;
    private final Rows sink;
    private final AtomicLong generation = new AtomicLong();
    private final ObjectProperty<StoreTable> storeTable = new SimpleObjectProperty<>();
    private final ObjectProperty<StoreTable> viewStore = new SimpleObjectProperty<>();
    private final LongProperty indexed = new SimpleLongProperty(-1);
    private final StringProperty storeStatus = new SimpleStringProperty("");
    private final BooleanProperty opening = new SimpleBooleanProperty();
    private final BooleanProperty following = new SimpleBooleanProperty();
    private final LongProperty rowsRead = new SimpleLongProperty();
    private StoreCache storeCache;
    private Executor storeQueries;
    private Executor storeLookups;
    /** Whether the opened file is read for its first screen only (its store holds every event). */
    private volatile boolean firstScreenOnly;
    private volatile long firstScreenRead;
    private RowRecords records = RowRecords.none();

    CaptureReading(TaskExecutor executor, StringProperty status, Rows sink) {
        this.executor = executor;
        this.status = status;
        this.sink = sink;
        // a store table, however set, is what the views go over too
        storeTable.addListener((o, old, t) -> {
            if (t != null || viewStore.get() == old) {
                viewStore.set(t);
            }
        });
    }

    void setStore(StoreCache cache, Executor queries, Executor lookups) {
        this.storeCache = cache;
        this.storeQueries = queries;
        this.storeLookups = lookups;
    }

    StoreCache storeCache() {
        return storeCache;
    }

    void setRecords(RowRecords records) {
        this.records = records;
    }

    ObjectProperty<StoreTable> storeTableProperty() {
        return storeTable;
    }

    /**
     * The store the views go over: a live capture's store as it grows, from its first commit
     * ({@link StoreTable#growingProperty()} true until the capture has stopped and every event is
     * in), else the store table once it is ready.
     */
    ObjectProperty<StoreTable> viewStoreProperty() {
        return viewStore;
    }

    LongProperty indexedProperty() {
        return indexed;
    }

    StringProperty storeStatusProperty() {
        return storeStatus;
    }

    /** True while an opened file is read. */
    BooleanProperty openingProperty() {
        return opening;
    }

    /** True while a live capture's file is read as it grows. */
    BooleanProperty followingProperty() {
        return following;
    }

    /** Rows of the file read so far (the window's count while reading). */
    LongProperty rowsReadProperty() {
        return rowsRead;
    }

    /** The current read's generation: a newer read or a cancel changes it. */
    long generation() {
        return generation.get();
    }

    /** Stops what is being read and closes the store table; the next read starts afresh. */
    long reset() {
        long gen = generation.incrementAndGet();
        StoreTable t = storeTable.get();
        StoreTable growing = viewStore.get();
        storeTable.set(null);
        viewStore.set(null);
        if (growing != null && growing != t) {
            growing.close();
        }
        indexed.set(-1);
        storeStatus.set("");
        rowsRead.set(0);
        if (t != null) {
            t.close();
        }
        return gen;
    }

    /** Stops reading (the rows read so far stay); a store being built is let go. */
    void cancel() {
        generation.incrementAndGet();
        if (indexed.get() >= 0) {
            indexed.set(-1);
            storeStatus.set("indexing cancelled: the table keeps the rows read");
        }
    }

    /**
     * Reads a file: its store in the background, its rows into the window.
     *
     * @param file    a pcapng of tracewire frames or a trace.dat
     * @param writing null for a finished file; for a live capture's pcapng, true while the backend
     *                may still write it
     * @param done    on the UI thread when the rows are read: the rows read, or -1 when only the
     *                first screen was read (the store holds the rest); a status line with it
     */
    void read(Path file, BooleanSupplier writing, Done done) {
        long gen = generation.get();
        boolean pcapng = writing != null || isPcapng(file); // a live capture's file may be empty yet
        openStore(file, gen, writing, pcapng);
        firstScreenOnly = writing == null && storeCache != null && pcapng;
        firstScreenRead = 0;
        readRows(file, gen, writing, firstScreenOnly, 0, done);
    }

    /** What a read ends with. */
    interface Done {
        /**
         * @param rows   rows read, -1 when only the first screen was read
         * @param read   rows read in all
         * @param status a line for the status
         */
        void done(long rows, long read, String status);

        /** @param why the file could not be read */
        void failed(String why);
    }

    private void openStore(Path file, long gen, BooleanSupplier writing, boolean pcapng) {
        if (storeCache == null || !pcapng) {
            return;
        }
        indexed.set(0);
        storeStatus.set(writing != null ? "capturing into " + file.getFileName() + ": the table shows the newest events"
                + " read (up to " + String.format("%,d", CaptureViewModel.WINDOW) + "), the store indexes every event"
                + " and the other views show what it holds so far; after Stop the table holds the whole file"
                : "indexing " + file.getFileName() + "… the table shows its first "
                + String.format("%,d", CaptureViewModel.WINDOW) + " events until every event is indexed");
        StoreCache cache = storeCache;
        LongConsumer counted = n -> executor.runOnUi(() -> {
            if (generation.get() == gen && indexed.get() >= 0) {
                indexed.set(n);
            }
        });
        storeQueries.execute(() -> {
            StoreTable t;
            try {
                t = StoreTable.open(file, cache, writing, counted, storeQueries, executor);
                if (storeLookups != null) {
                    t.setLookups(storeLookups);
                }
            } catch (Exception | LinkageError e) {
                String why = LiveCapture.rootMessage(e);
                executor.runOnUi(() -> storeFailed(file, gen, why));
                return;
            }
            executor.runOnUi(() -> {
                if (generation.get() != gen) {
                    t.close();
                    return;
                }
                if (writing == null) {
                    ready(t, file);
                    return;
                }
                // the views go over the store as it grows; the table, once it holds every event
                viewStore.set(t);
                t.built().thenRun(() -> executor.runOnUi(() -> {
                    if (generation.get() == gen && viewStore.get() == t) {
                        ready(t, file);
                    }
                }));
            });
        });
    }

    /** The store holds every event of the file (UI thread): the table and the views over it. */
    private void ready(StoreTable t, Path file) {
        indexed.set(-1);
        storeTable.set(t);
        storeStatus.set(String.format("all %,d events of %s, from its store%s", t.total(), file.getFileName(),
                t.stoppedAt() == null ? "" : " (the file is read up to: " + t.stoppedAt() + ")"));
    }

    private void storeFailed(Path file, long gen, String why) {
        if (generation.get() != gen) {
            return;
        }
        indexed.set(-1);
        storeStatus.set("no store for " + file.getFileName() + " (" + why + "): the file is read whole,"
                + " the table keeps the latest " + String.format("%,d", CaptureViewModel.WINDOW) + " rows");
        if (firstScreenOnly) {
            readRows(file, gen, null, false, firstScreenRead, new Done() {
                @Override
                public void done(long rows, long read, String line) {
                    status.set(line);
                }

                @Override
                public void failed(String w) {
                    status.set(w);
                }
            });
        }
    }

    /**
     * Reads a file's rows in the background.
     *
     * @param firstScreen stop after {@value CaptureViewModel#WINDOW} rows
     * @param skip        rows already shown (a whole read after a first screen): read, not handed on
     */
    private void readRows(Path file, long gen, BooleanSupplier writing, boolean firstScreen, long skip, Done done) {
        RowRecords rr = records;
        BooleanProperty reading = writing != null ? following : opening;
        reading.set(true);
        executor.execute(() -> {
            try (FileRows in = writing != null ? FileRows.follow(file, writing)
                    : firstScreen ? FileRows.firstScreen(file) : FileRows.open(file)) {
                rr.useFile(in.catalog(), null);
                sink.wallClock(writing != null || in.wallClock());
                long[] seen = {0};
                long n = in.readAll(batch -> {
                    long from = Math.max(0, Math.min(batch.size(), skip - seen[0]));
                    seen[0] += batch.size();
                    if (from < batch.size()) {
                        sink.offer(from == 0 ? batch : batch.subList((int) from, batch.size()), gen, writing != null);
                    }
                }, () -> generation.get() != gen || (firstScreen && seen[0] >= CaptureViewModel.WINDOW));
                rr.useFile(in.catalog(), null);
                boolean partial = firstScreen && seen[0] >= CaptureViewModel.WINDOW;
                if (firstScreen) {
                    firstScreenRead = n;
                }
                return new Object[] {partial ? -1L : n, summary(in, file, n, partial, writing != null, gen), n};
            }
        }, r -> {
            reading.set(false);
            sink.flush();
            done.done((Long) r[0], (Long) r[2], (String) r[1]);
        }, e -> {
            reading.set(false);
            done.failed("cannot open " + file.getFileName() + ": " + LiveCapture.rootMessage(e));
        });
    }

    private String summary(FileRows in, Path file, long n, boolean partial, boolean live, long gen) {
        StringBuilder sb = new StringBuilder();
        if (generation.get() != gen) {
            return String.format("cancelled after %,d events", n);
        }
        if (partial) {
            sb.append(String.format("opened %s: its first %,d events; its store indexes every event", file.getFileName(), n));
        } else {
            sb.append(String.format("%s %s: %,d events (formats of %s)", live ? "captured into" : "opened",
                    file.getFileName(), n, in.formatsLabel()));
        }
        if (!partial && n > CaptureViewModel.WINDOW) {
            sb.append(String.format("; the table keeps the last %,d", CaptureViewModel.WINDOW));
        }
        for (String note : in.summary()) {
            sb.append("; ").append(note);
        }
        return sb.toString();
    }

    static boolean isPcapng(Path file) {
        try (var in = Files.newInputStream(file)) {
            return PcapngInput.hasMagic(in.readNBytes(4));
        } catch (IOException e) {
            return false;
        }
    }
}
