package org.tracewire.app.capture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
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
import org.tracewire.store.CaptureStore;
import org.tracewire.store.StoreBuildProcess;
import org.tracewire.store.StoreCache;

/**
 * Reads one capture file into the capture view: its capture store for the table and the views
 * ({@link StoreTable}), and, while an opened file's store is built, its rows for the window of
 * rows ({@link FileRows}). One path for every capture: an opened file, and the pcapng a live
 * capture writes, indexed as it grows while {@code writing} says the backend may still write it.
 * <ul>
 * <li>an opened pcapng (with a store, {@link #setStore}): its first
 *     {@value CaptureViewModel#FIRST_SCREEN} rows at once, while its store indexes every event;
 *     should the store fail, the file is then read whole;</li>
 * <li>a live capture's pcapng: no rows; its store ({@link CaptureStore#following}) is the table
 *     and the views' from its first commit, growing with each commit, until the capture has
 *     stopped and the file is read to its end;</li>
 * <li>a trace.dat, or no store: every row, the window keeping the newest.</li>
 * </ul>
 * With {@link #buildInChild}, an opened pcapng's store missing from the cache is built by a child
 * JVM ({@link StoreBuildProcess}, {@code sql}'s JIT options; docs/decisions/0027), then opened
 * here; a live capture's store is built in this JVM (the views query it as it grows).
 * Rows reach the view model through {@link Rows}; a finished file's reader waits while the view is
 * behind, so every view sees every event. Called on the UI thread; results come back on it.
 */
final class CaptureReading {
    /** Where rows of the file read go (the view model's window queue). */
    interface Rows {
        /** Queues a batch (reader thread); it waits while the view is behind (the generation stops the wait). */
        void offer(List<EventRow> batch, long generation);

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
    private final LongProperty indexed = new SimpleLongProperty(-1);
    /**
     * The status line's count of events indexed changes at most this often, ns: a person reads it
     * no faster, and each change costs the JavaFX thread a layout and the renderer a frame (every
     * 65,536 events, ~15 a second, took ~1.4 CPU-s of the app while a 10 M-event store was built).
     */
    static final long PROGRESS_NS = 250_000_000L;
    private final StringProperty storeStatus = new SimpleStringProperty("");
    private final BooleanProperty opening = new SimpleBooleanProperty();
    private final BooleanProperty following = new SimpleBooleanProperty();
    private StoreCache storeCache;
    private Executor storeQueries;
    private Executor storeLookups;
    /** Whether the opened file is read for its first screen only (its store holds every event). */
    private volatile boolean firstScreenOnly;
    private volatile long firstScreenRead;
    /** An opened pcapng's store build, held until its first rows are read (then on {@code storeQueries}). */
    private final AtomicReference<Runnable> pendingStore = new AtomicReference<>();
    private RowRecords records = RowRecords.none();
    /** Whether an opened pcapng's missing store is built by a child JVM. */
    private volatile boolean buildInChild;
    /** The child JVMs that build opened files' stores. */
    private final StoreChild child = new StoreChild();

    CaptureReading(TaskExecutor executor, StringProperty status, Rows sink) {
        this.executor = executor;
        this.status = status;
        this.sink = sink;
    }

    void setStore(StoreCache cache, Executor queries, Executor lookups) {
        this.storeCache = cache;
        this.storeQueries = queries;
        this.storeLookups = lookups;
    }

    /** Builds an opened pcapng's missing store in a child JVM ({@link StoreBuildProcess}) from now on. */
    void buildInChild() {
        this.buildInChild = true;
    }

    /** Stops the child building a store, if one runs (any thread; its build then fails, and is dropped). */
    void stopChild() {
        child.stop();
    }

    /**
     * Starts the child that builds {@code file}'s store before the file is opened (the app's start
     * with {@code --open}; {@link StoreChild#prepare}). Nothing when no child builds stores.
     */
    void prepare(Path file) {
        if (buildInChild && storeCache != null && isPcapng(file)) {
            child.prepare(file, storeCache);
        }
    }

    /** Stops a child prepared ahead, if any (app exit). */
    void dropPrepared() {
        child.dropPrepared();
    }

    StoreCache storeCache() {
        return storeCache;
    }

    void setRecords(RowRecords records) {
        this.records = records;
    }

    /**
     * The store the table and the views go over: a live capture's store as it grows, from its
     * first commit ({@link StoreTable#growingProperty()} true until the capture has stopped and
     * every event is in), else an opened file's store once it holds every event.
     */
    ObjectProperty<StoreTable> storeTableProperty() {
        return storeTable;
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

    /** True while a live capture's file is indexed as it grows (from Start until its store holds all of it). */
    BooleanProperty followingProperty() {
        return following;
    }

    /** The current read's generation: a newer read or a cancel changes it. */
    long generation() {
        return generation.get();
    }

    /** Stops what is being read and closes the store table; the next read starts afresh. */
    long reset() {
        long gen = generation.incrementAndGet();
        stopChild();
        StoreTable t = storeTable.get();
        storeTable.set(null);
        indexed.set(-1);
        storeStatus.set("");
        following.set(false);
        if (t != null) {
            t.close();
        }
        return gen;
    }

    /** Stops reading (the rows read so far stay); a store being built is let go. */
    void cancel() {
        generation.incrementAndGet();
        stopChild();
        following.set(false);
        if (indexed.get() >= 0) {
            indexed.set(-1);
            storeStatus.set("indexing cancelled: the table keeps the rows read");
        }
    }

    /**
     * Reads a file: its store in the background, and an opened file's rows into the window.
     *
     * @param file    a pcapng of tracewire frames or a trace.dat
     * @param writing null for a finished file; for a live capture's pcapng, true while the backend
     *                may still write it: then only its store is built, as the file grows
     * @param done    on the UI thread when the file is read: the rows read, or -1 when only the
     *                first screen was read (the store holds the rest); a live capture's, when its
     *                store holds every event of the file; a status line with it
     */
    void read(Path file, BooleanSupplier writing, Done done) {
        long gen = generation.get();
        child.keepPreparedOnlyFor(file);
        if (writing != null) {
            if (storeCache == null) {
                done.failed("no capture store to index " + file.getFileName() + " into");
                return;
            }
            following.set(true);
            openStore(file, gen, writing, true, done);
            return;
        }
        boolean pcapng = isPcapng(file);
        firstScreenOnly = storeCache != null && pcapng;
        // the store's build waits for the first rows (both would share two cores: BENCHMARKS.md)
        pendingStore.set(null);
        openStore(file, gen, null, pcapng, null);
        firstScreenRead = 0;
        readRows(file, gen, firstScreenOnly, 0, done);
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

    /**
     * Builds a file's store in the background; a live capture's ({@code writing} not null) is the
     * table's and the views' from its first commit, and {@code live} hears when it holds the
     * whole file, or why it failed.
     */
    private void openStore(Path file, long gen, BooleanSupplier writing, boolean pcapng, Done live) {
        if (storeCache == null || !pcapng) {
            return;
        }
        indexed.set(0);
        storeStatus.set(writing != null ? "capturing into " + file.getFileName() + ": waiting for the store's first"
                + " commit (about a second after the capture's first events); the table then holds every event"
                + " indexed so far and grows with each commit"
                : "indexing " + file.getFileName() + "… the table shows its first "
                + String.format("%,d", CaptureViewModel.FIRST_SCREEN) + " events until every event is indexed");
        StoreCache cache = storeCache;
        LongConsumer counted = atMostEvery(PROGRESS_NS, System::nanoTime, n -> executor.runOnUi(() -> {
            if (generation.get() == gen && indexed.get() >= 0) {
                indexed.set(n);
            }
        }));
        Runnable build = () -> {
            StoreTable t;
            try {
                if (writing == null && buildInChild && !Files.isRegularFile(cache.storeFor(file))) {
                    child.build(file, cache, () -> generation.get() != gen, counted);
                }
                t = StoreTable.open(file, cache, writing, counted, storeQueries, executor);
                if (storeLookups != null) {
                    t.setLookups(storeLookups);
                }
            } catch (Exception | LinkageError e) {
                String why = LiveCapture.rootMessage(e);
                executor.runOnUi(() -> storeFailed(file, gen, why, live));
                return;
            }
            executor.runOnUi(() -> {
                if (generation.get() != gen) {
                    t.close();
                } else if (writing == null) {
                    status.set("opened " + file.getFileName() + ": " + ready(t, file));
                } else {
                    followGrowing(t, file, gen, live);
                }
            });
        };
        if (writing == null && firstScreenOnly) {
            pendingStore.set(build);
        } else {
            storeQueries.execute(build);
        }
    }

    /**
     * Passes on a count only when {@code ns} have gone by since the last one passed on (the first at
     * once); the counts between are dropped (the store's ready state then says the whole count).
     * For one thread at a time (a build's, or the reader of its child's lines).
     *
     * @param ns    the least time between two counts passed on, ns
     * @param clock the time, ns ({@code System::nanoTime})
     * @param to    what the counts are passed on to
     */
    static LongConsumer atMostEvery(long ns, LongSupplier clock, LongConsumer to) {
        long[] last = {clock.getAsLong() - ns};
        return n -> {
            long now = clock.getAsLong();
            if (now - last[0] >= ns) {
                last[0] = now;
                to.accept(n);
            }
        };
    }

    /** Starts the store's build that waited for the first rows, if any (any thread). */
    private void startPendingStore() {
        Runnable build = pendingStore.getAndSet(null);
        if (build != null) {
            storeQueries.execute(build);
        }
    }

    /**
     * A live capture's store from its first commit (UI thread): the table and the views go over it
     * as it grows; once it has counted every event and stopped growing, it is {@link #ready} and
     * {@code live} hears the count.
     */
    private void followGrowing(StoreTable t, Path file, long gen, Done live) {
        storeTable.set(t);
        storeStatus.set("capturing into " + file.getFileName() + ": the table holds every event indexed so far"
                + " (the store commits about every second); after Stop, every event of the file");
        Runnable built = () -> {
            if (generation.get() == gen && storeTable.get() == t) {
                ready(t, file);
                following.set(false);
                long n = t.total();
                live.done(n, n, String.format("captured into %s: %,d events%s", file.getFileName(), n,
                        t.stoppedAt() == null ? "" : " (the file is read up to: " + t.stoppedAt() + ")"));
            }
        };
        if (!t.growingProperty().get()) {
            built.run();
        } else {
            t.growingProperty().addListener((o, was, growing) -> {
                if (!growing) {
                    built.run();
                }
            });
        }
    }

    /**
     * The store holds every event of the file (UI thread): the table and the views over it.
     *
     * @return what the store holds ("all N events of FILE, from its store…"), for a status line
     */
    private String ready(StoreTable t, Path file) {
        indexed.set(-1);
        storeTable.set(t);
        String all = String.format("all %,d events of %s, from its store%s", t.total(), file.getFileName(),
                t.stoppedAt() == null ? "" : " (the file is read up to: " + t.stoppedAt() + ")");
        storeStatus.set(all);
        return all;
    }

    private void storeFailed(Path file, long gen, String why, Done live) {
        if (generation.get() != gen) {
            return;
        }
        indexed.set(-1);
        if (live != null) {
            following.set(false);
            storeStatus.set("no store for " + file.getFileName() + " (" + why + "): the capture goes on into the file;"
                    + " open it once the capture has stopped");
            live.failed("cannot index " + file.getFileName() + ": " + why);
            return;
        }
        storeStatus.set("no store for " + file.getFileName() + " (" + why + "): the file is read whole,"
                + " the table keeps the latest " + String.format("%,d", CaptureViewModel.WINDOW) + " rows");
        if (firstScreenOnly) {
            readRows(file, gen, false, firstScreenRead, new Done() {
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
     * @param firstScreen stop after {@value CaptureViewModel#FIRST_SCREEN} rows
     * @param skip        rows already shown (a whole read after a first screen): read, not handed on
     */
    private void readRows(Path file, long gen, boolean firstScreen, long skip, Done done) {
        RowRecords rr = records;
        opening.set(true);
        executor.execute(() -> {
            try (FileRows in = firstScreen ? FileRows.firstScreen(file) : FileRows.open(file)) {
                rr.useFile(in.catalog());
                sink.wallClock(in.wallClock());
                long[] seen = {0};
                long n = in.readAll(batch -> {
                    long from = Math.max(0, Math.min(batch.size(), skip - seen[0]));
                    seen[0] += batch.size();
                    if (from < batch.size()) {
                        sink.offer(from == 0 ? batch : batch.subList((int) from, batch.size()), gen);
                    }
                    if (firstScreen) {
                        startPendingStore(); // the first rows are on their way to the table
                    }
                }, () -> generation.get() != gen || (firstScreen && seen[0] >= CaptureViewModel.FIRST_SCREEN));
                rr.useFile(in.catalog());
                boolean partial = firstScreen && seen[0] >= CaptureViewModel.FIRST_SCREEN;
                if (firstScreen) {
                    firstScreenRead = n;
                    startPendingStore();
                }
                return new Object[] {partial ? -1L : n, summary(in, file, n, partial, gen), n};
            }
        }, r -> {
            opening.set(false);
            sink.flush();
            done.done((Long) r[0], (Long) r[2], (String) r[1]);
        }, e -> {
            opening.set(false);
            startPendingStore();
            done.failed("cannot open " + file.getFileName() + ": " + LiveCapture.rootMessage(e));
        });
    }

    private String summary(FileRows in, Path file, long n, boolean partial, long gen) {
        StringBuilder sb = new StringBuilder();
        if (generation.get() != gen) {
            return String.format("cancelled after %,d events", n);
        }
        if (partial) {
            sb.append(String.format("opened %s: its first %,d events; its store indexes every event", file.getFileName(), n));
        } else {
            sb.append(String.format("opened %s: %,d events (formats of %s)", file.getFileName(), n, in.formatsLabel()));
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
