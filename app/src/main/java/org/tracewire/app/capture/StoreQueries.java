package org.tracewire.app.capture;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import javafx.beans.InvalidationListener;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.beans.value.ObservableLongValue;
import javafx.beans.value.ObservableValue;
import org.tracewire.app.util.BackgroundThreads;
import org.tracewire.app.util.TaskExecutor;

/**
 * A view's own connection to the opened file's capture store on a thread of its own: the one place
 * where the app's views (timeline, latency, histogram, query, I/O graph) reach the store. The
 * connection is a duplicate of the store's ({@link StoreTable#newConnection}: the same in-memory
 * database and buffer pool, its temporary tables its own), so a view's queries neither wait for the
 * event table's nor stop them, and {@link #cancel()} interrupts only this view's statement.
 *
 * <p>It follows the capture ({@link #follow}): a store being built or ready puts the view in store
 * mode ({@link #overStoreProperty()}); on the worker thread it opens a reader of type {@code R} over
 * each new store ({@code opener}) and closes the connection when the store goes. Results of
 * {@link #query} reach the UI thread only while the store they ran on is still the current one.
 *
 * <p>A view not on screen ({@link #shownProperty()} false) does not open a new store: the opened
 * file's views would otherwise all query it at once when it is ready, for minutes of CPU on a large
 * capture and a buffer pool shared by all of them. It opens the store when it is first shown and
 * keeps it until the store changes. Tests that construct a view model alone leave it shown.
 *
 * <p>A store that grows with a live capture ({@link StoreTable#growingProperty()}) is the same
 * store throughout: the view stays over it and re-runs its queries ({@link #onGrowth}) as commits
 * come, at most every {@value #GROWTH_MS} ms and never while one of its queries runs, so a view's
 * worker holds at most one growth query; {@link #growingNoteProperty()} says how far the store
 * got. Once the capture has stopped and the store holds every event, the view re-queries once more.
 *
 * <p>Threads: {@link #follow}, {@link #query}, the properties: UI thread. {@link #execute},
 * {@link #connection()}: the worker thread. {@link #cancel()}, {@link #table()}: any thread.
 *
 * @param <R> what the view reads the store through (a class of SQL queries, or the
 *            {@link Connection} itself)
 */
public final class StoreQueries<R> {
    /** Opens the reader over a new store's connection (worker thread). */
    @FunctionalInterface
    public interface Opener<R> {
        /**
         * @param db    the view's connection
         * @param table the store's table
         * @return the reader, or null when the store has nothing for this view
         * @throws SQLException when DuckDB fails
         */
        R open(Connection db, StoreTable table) throws SQLException;
    }

    /** A query against the reader (worker thread). */
    @FunctionalInterface
    public interface Query<R, T> {
        /**
         * @param reader the current store's reader
         * @return the result handed to the UI thread
         * @throws SQLException when DuckDB fails
         */
        T run(R reader) throws SQLException;
    }

    /** What reads a statement's result ({@link #execute}). */
    @FunctionalInterface
    public interface ResultHandler {
        /**
         * @param rs the result, or null when the statement has none
         * @throws SQLException when reading it fails
         */
        void accept(ResultSet rs) throws SQLException;
    }

    private final Consumer<Runnable> ui;
    private final AtomicLong generation = new AtomicLong();
    private final BooleanProperty overStore = new SimpleBooleanProperty();
    private final BooleanProperty shown = new SimpleBooleanProperty(true);
    private Executor worker;
    private ObservableValue<StoreTable> source;
    private ObservableLongValue indexed;
    private Consumer<StoreTable> changed = t -> { };
    private volatile StoreTable store;
    /** Least time between two re-queries of a growing store, ms. */
    public static final long GROWTH_MS = 1500;
    /** How soon a re-query held back by a running query is looked at again, ms. */
    static final long GROWTH_RECHECK_MS = 250;
    private static final ScheduledExecutorService TIMER =
            Executors.newSingleThreadScheduledExecutor(BackgroundThreads.factory("store-growth", false));
    private final AtomicInteger inFlight = new AtomicInteger();
    private final StringProperty growingNote = new SimpleStringProperty("");
    private final InvalidationListener grewListener = o -> grew();
    private Runnable growth;
    private BooleanSupplier busy = () -> false;
    private boolean growthPending;
    private boolean recheckQueued;
    private long lastGrowth;
    private StoreTable watched;
    /** The store the view goes over grows (read by the worker). */
    private volatile boolean growingNow;
    private final StoreConnection<R> conn;

    /**
     * @param ui     hands results to the UI thread
     * @param opener opens the reader over each store
     */
    public StoreQueries(TaskExecutor ui, Opener<R> opener) {
        this(ui::runOnUi, opener);
    }

    /**
     * @param onUi   hands results to the UI thread
     * @param opener opens the reader over each store
     */
    public StoreQueries(Consumer<Runnable> onUi, Opener<R> opener) {
        this.ui = onUi;
        this.conn = new StoreConnection<>(opener);
        shown.addListener((o, a, now) -> {
            if (now && source != null) {
                update();
            }
        });
    }

    /**
     * A view's connection itself, with the worker thread given.
     *
     * @param ui     hands results to the UI thread
     * @param worker runs the SQL (one thread)
     * @return the queries, whose reader is the connection
     */
    public static StoreQueries<Connection> connection(TaskExecutor ui, Executor worker) {
        StoreQueries<Connection> q = new StoreQueries<>(ui, (db, t) -> db);
        q.setQueries(worker);
        return q;
    }

    /**
     * Sets the worker thread; without one the view never goes over a store.
     *
     * @param queries runs the queries, one at a time (one thread)
     */
    public void setQueries(Executor queries) {
        this.worker = queries;
    }

    /** The worker thread (null until {@link #setQueries}). */
    public Executor worker() {
        return worker;
    }

    /**
     * Follows a capture's store: {@code changed} runs on the UI thread whenever the store mode or
     * the store changes (with the store, null while it is built or when there is none), after the
     * old connection is queued to close and the new reader to open.
     *
     * @param capture the capture view model
     * @param changed receives the new store
     */
    public void follow(CaptureViewModel capture, Consumer<StoreTable> changed) {
        follow(capture.viewStoreProperty(), capture.indexedProperty(), changed);
    }

    /**
     * Follows an opened file's event table: {@link #follow(CaptureViewModel, Consumer)} with the
     * store's table and its build's progress.
     *
     * @param table   the table over the store, null when there is none
     * @param indexed events stored so far while the store is built, −1 otherwise (may be null:
     *                the view has no building mode)
     * @param changed receives the new store (UI thread)
     */
    public void follow(ObservableValue<StoreTable> table, ObservableLongValue indexed, Consumer<StoreTable> changed) {
        this.source = table;
        this.indexed = indexed;
        this.changed = changed;
        table.addListener((o, a, t) -> update());
        if (indexed != null) {
            indexed.addListener((o, a, n) -> update());
        }
        update();
    }

    private void update() {
        StoreTable t = source.getValue();
        if (t != null && t != store && !shown.get()) {
            t = null; // opened once the view is shown
        }
        boolean building = indexed != null && indexed.get() >= 0;
        boolean over = worker != null && (t != null || building);
        if (t == store && over == overStore.get()) {
            return;
        }
        long gen = generation.incrementAndGet();
        store = t;
        if (worker != null) {
            StoreTable opened = t;
            worker.execute(() -> {
                conn.close();
                if (opened == null || generation.get() != gen) {
                    return;
                }
                conn.open(opened);
            });
        }
        watch(over ? t : null);
        overStore.set(over);
        changed.accept(over ? t : null);
    }

    /** Listens to the growth of the store the view goes over (UI thread). */
    private void watch(StoreTable t) {
        if (watched != null) {
            watched.committedProperty().removeListener(grewListener);
            watched.growingProperty().removeListener(grewListener);
        }
        watched = t;
        growthPending = false;
        lastGrowth = System.nanoTime() / 1_000_000;
        if (t != null) {
            t.committedProperty().addListener(grewListener);
            t.growingProperty().addListener(grewListener);
        }
        growingNote.set(note(t));
        growingNow = t != null && t.growingProperty().get();
    }

    private static String note(StoreTable t) {
        return t != null && t.growingProperty().get()
                ? String.format("%,d events so far — capture running", t.committedProperty().get()) : "";
    }

    /**
     * What the view re-runs when its store grows (UI thread): its current query, over the events
     * committed by then, after its reader was opened again on the worker. Throttled as the class
     * comment says.
     *
     * @param refresh re-queries the view (UI thread)
     */
    public void onGrowth(Runnable refresh) {
        this.growth = refresh;
    }

    /**
     * A view whose work runs on {@link #worker()} outside {@link #query} says here when it is busy:
     * no growth re-query starts meanwhile.
     *
     * @param busy true while such work runs (UI thread)
     */
    public void busyWhile(BooleanSupplier busy) {
        this.busy = busy;
    }

    /**
     * "N events so far — capture running" while the view's store grows, else empty (UI thread):
     * the view shows it with its results.
     */
    public ReadOnlyStringProperty growingNoteProperty() {
        return growingNote;
    }

    /** {@link #growingNoteProperty()} followed by "; ", or empty. */
    public String notePrefix() {
        String n = growingNote.get();
        return n.isEmpty() ? "" : n + "; ";
    }

    /** The store grew or stopped growing (UI thread). */
    private void grew() {
        if (watched == null) {
            return;
        }
        growingNow = watched.growingProperty().get();
        growthPending = true;
        checkGrowth();
    }

    private void checkGrowth() {
        if (!growthPending || growth == null || watched == null || watched != store) {
            return;
        }
        long now = System.nanoTime() / 1_000_000;
        long wait = watched.growingProperty().get() ? Math.max(0, lastGrowth + GROWTH_MS - now) : 0;
        if (inFlight.get() > 0 || busy.getAsBoolean()) {
            wait = Math.max(wait, GROWTH_RECHECK_MS);
        }
        if (wait > 0) {
            if (!recheckQueued) {
                recheckQueued = true;
                TIMER.schedule(() -> ui.accept(() -> {
                    recheckQueued = false;
                    checkGrowth();
                }), wait, TimeUnit.MILLISECONDS);
            }
            return;
        }
        growthPending = false;
        lastGrowth = now;
        // the reader again first (what it read at open: counts, tables, materialised pairs), then the view's queries
        StoreTable t = watched;
        long gen = generation.get();
        inFlight.incrementAndGet();
        worker.execute(() -> {
            try {
                if (generation.get() == gen) {
                    conn.reopen(t);
                }
            } finally {
                inFlight.decrementAndGet();
            }
            ui.accept(() -> {
                if (generation.get() == gen && store == t) {
                    growingNote.set(note(t));
                    growth.run();
                }
            });
        });
    }

    /**
     * Runs a query on the worker thread against the current store's reader; {@code done} gets the
     * result on the UI thread unless the store changed meanwhile.
     *
     * @param query  the query
     * @param done   receives the result (UI thread)
     * @param failed receives why there is none (UI thread): DuckDB's message, or empty when the
     *               store has nothing for this view (the opener gave null)
     * @param <T>    the result type
     */
    public <T> void query(Query<R, T> query, Consumer<T> done, Consumer<String> failed) {
        if (worker == null) {
            return;
        }
        long gen = generation.get();
        inFlight.incrementAndGet();
        worker.execute(() -> {
            try {
                run(query, done, failed, gen);
            } finally {
                inFlight.decrementAndGet();
            }
        });
    }

    private <T> void run(Query<R, T> query, Consumer<T> done, Consumer<String> failed, long gen) {
        if (generation.get() != gen) {
            return;
        }
        StoreConnection.Answer<T> answer;
        String why;
        try {
            answer = conn.reader() == null ? null : conn.run(query, growingNow);
            why = answer == null ? conn.problem() : null;
        } catch (SQLException e) {
            answer = null;
            why = message(e);
        } catch (RuntimeException e) {
            answer = null;
            why = String.valueOf(e.getMessage());
        }
        if (answer == null) {
            String problem = why;
            ui.accept(() -> {
                if (generation.get() == gen) {
                    failed.accept(problem);
                }
            });
            return;
        }
        StoreConnection.Answer<T> a = answer;
        ui.accept(() -> {
            if (generation.get() == gen) {
                if (a.committed() >= 0 && watched != null && watched.growingProperty().get()) {
                    growingNote.set(String.format("%,d events so far — capture running", a.committed()));
                }
                done.accept(a.result());
            }
        });
    }

    /**
     * Whether {@code table} is still the store this view goes over (any thread): a worker-thread
     * job started for it checks this before handing on a result or while a long load runs.
     */
    public boolean current(StoreTable table) {
        return table != null && store == table;
    }

    /** The table of the store this view goes over (any thread), or null. */
    public StoreTable table() {
        return store;
    }

    /** The connection (worker thread), or null when no store is open. */
    public Connection connection() {
        return conn.connection();
    }

    /**
     * Runs a statement on the view's connection that {@link #cancel()} may interrupt (worker
     * thread).
     *
     * @param sql the statement
     * @param rs  receives its result (null when it has none), before the statement closes
     * @throws SQLException as DuckDB throws it (an interrupted one: "INTERRUPT Error: Interrupted!"),
     *                      or when no store is open
     */
    public void execute(String sql, ResultHandler rs) throws SQLException {
        conn.execute(sql, rs);
    }

    /** Interrupts the statement {@link #execute} runs now, if any (any thread). */
    public void cancel() {
        conn.cancel();
    }

    /**
     * DuckDB's message as the user should read it: without a JDBC prefix, trailing blank lines
     * removed.
     *
     * @param e what DuckDB threw
     * @return its text
     */
    public static String message(SQLException e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        return m.replaceFirst("^java\\.sql\\.SQLException: ", "").stripTrailing();
    }

    /** True while the view goes over an opened file's store (being built or ready) instead of rows. */
    public BooleanProperty overStoreProperty() {
        return overStore;
    }

    /** True in store mode. */
    public boolean over() {
        return overStore.get();
    }

    /**
     * Whether the view is on screen (default true); a view not shown opens no new store, and
     * opens the current one when it is shown.
     */
    public BooleanProperty shownProperty() {
        return shown;
    }
}
