package org.tracewire.app.capture;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.SimpleBooleanProperty;
import org.tracewire.app.util.TaskExecutor;

/**
 * A view model's own connection to the opened file's capture store ({@link StoreTable#newConnection}),
 * used on a query thread: it follows the capture (a store being built or ready puts the view in
 * store mode, {@link #overStoreProperty()}), opens a reader of type {@code R} over each new store
 * on the query thread ({@code opener}), closes it when the store goes, and runs queries against
 * it whose results reach the UI thread only while the store they ran on is still the current one.
 *
 * @param <R> what the view reads the store through (e.g. a class of SQL queries)
 */
public final class StoreQueries<R> {
    /** Opens the reader over a new store's connection (query thread). */
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

    /** A query against the reader (query thread). */
    @FunctionalInterface
    public interface Query<R, T> {
        /**
         * @param reader the current store's reader
         * @return the result handed to the UI thread
         * @throws SQLException when DuckDB fails
         */
        T run(R reader) throws SQLException;
    }

    private final TaskExecutor ui;
    private final Opener<R> opener;
    private final AtomicLong generation = new AtomicLong();
    private final BooleanProperty overStore = new SimpleBooleanProperty();
    private Executor queries;
    private CaptureViewModel capture;
    private StoreTable store;
    // owned by the query thread
    private Connection connection;
    private R reader;
    private String openProblem;

    /**
     * @param ui     hands results to the UI thread
     * @param opener opens the reader over each store
     */
    public StoreQueries(TaskExecutor ui, Opener<R> opener) {
        this.ui = ui;
        this.opener = opener;
    }

    /**
     * Sets the query thread; without one the view never goes over a store.
     *
     * @param queries runs the queries, one at a time (one thread)
     */
    public void setQueries(Executor queries) {
        this.queries = queries;
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
        this.capture = capture;
        capture.storeTableProperty().addListener((o, a, t) -> update(t, changed));
        capture.indexedProperty().addListener((o, a, n) -> update(capture.storeTableProperty().get(), changed));
    }

    private void update(StoreTable t, Consumer<StoreTable> changed) {
        boolean building = capture.indexedProperty().get() >= 0;
        boolean over = queries != null && (t != null || building);
        if (t == store && over == overStore.get()) {
            return;
        }
        long gen = generation.incrementAndGet();
        store = t;
        if (queries != null) {
            queries.execute(this::closeConnection);
            if (over && t != null) {
                queries.execute(() -> {
                    if (generation.get() != gen) {
                        return;
                    }
                    try {
                        connection = t.newConnection();
                        reader = opener.open(connection, t);
                        openProblem = reader == null ? "" : null;
                    } catch (SQLException e) {
                        openProblem = "cannot query the store: " + e.getMessage();
                    }
                });
            }
        }
        overStore.set(over);
        changed.accept(over ? t : null);
    }

    /** Query thread: closes the connection to the last store. */
    private void closeConnection() {
        reader = null;
        openProblem = null;
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                // closing: nothing to tell
            }
            connection = null;
        }
    }

    /**
     * Runs a query on the query thread against the current store's reader; {@code done} gets the
     * result on the UI thread unless the store changed meanwhile.
     *
     * @param query  the query
     * @param done   receives the result (UI thread)
     * @param failed receives why there is none (UI thread): DuckDB's message, or empty when the
     *               store has nothing for this view (the opener gave null)
     * @param <T>    the result type
     */
    public <T> void query(Query<R, T> query, Consumer<T> done, Consumer<String> failed) {
        if (queries == null) {
            return;
        }
        long gen = generation.get();
        queries.execute(() -> {
            if (generation.get() != gen) {
                return;
            }
            if (reader == null) {
                String why = openProblem == null ? "" : openProblem;
                ui.runOnUi(() -> {
                    if (generation.get() == gen) {
                        failed.accept(why);
                    }
                });
                return;
            }
            T result;
            try {
                result = query.run(reader);
            } catch (SQLException | RuntimeException e) {
                String why = String.valueOf(e.getMessage());
                ui.runOnUi(() -> {
                    if (generation.get() == gen) {
                        failed.accept(why);
                    }
                });
                return;
            }
            ui.runOnUi(() -> {
                if (generation.get() == gen) {
                    done.accept(result);
                }
            });
        });
    }

    /** True while the view goes over an opened file's store (being built or ready) instead of rows. */
    public BooleanProperty overStoreProperty() {
        return overStore;
    }

    /** True in store mode. */
    public boolean over() {
        return overStore.get();
    }
}
