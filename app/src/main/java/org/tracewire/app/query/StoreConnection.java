package org.tracewire.app.query;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.tracewire.app.capture.StoreTable;

/**
 * A DuckDB connection of a view's own to an opened capture's store (a duplicate of the store's
 * connection: the same in-memory database, its views and attached files), owned by the view's
 * worker thread, so the view's queries neither wait for the event table's nor stop them, and
 * {@link #cancel()} interrupts only this connection's statement. Every method except
 * {@link #cancel()} and {@link #table()} runs on the worker thread.
 */
public final class StoreConnection {
    private final Executor worker;
    private final AtomicReference<Statement> running = new AtomicReference<>();
    private volatile StoreTable table;
    private Connection conn;

    /** @param worker the view's worker thread (one thread: the connection's owner) */
    public StoreConnection(Executor worker) {
        this.worker = worker;
    }

    /** The worker thread. */
    public Executor worker() {
        return worker;
    }

    /**
     * Moves to another store (on the worker thread): closes the connection held, opens one to
     * {@code t}'s store.
     *
     * @param t    the event table over the store, or null for none
     * @param then runs on the worker thread afterwards (with the new connection, or none)
     */
    public void use(StoreTable t, Runnable then) {
        table = t;
        worker.execute(() -> {
            close();
            if (t != null && table == t) {
                try {
                    conn = t.newConnection();
                } catch (SQLException e) {
                    conn = null;
                }
            }
            then.run();
        });
    }

    /** The event table whose store is used, or null. */
    public StoreTable table() {
        return table;
    }

    /** The connection (worker thread), or null when no store is open. */
    public Connection connection() {
        return conn;
    }

    /**
     * Runs a statement that {@link #cancel()} may interrupt (worker thread).
     *
     * @param sql the statement
     * @param rs  receives its result (null when it has none), before the statement closes
     * @throws SQLException as DuckDB throws it (an interrupted one: "INTERRUPT Error: Interrupted!")
     */
    public void execute(String sql, ResultHandler rs) throws SQLException {
        if (conn == null) {
            throw new SQLException("no capture store is open");
        }
        try (Statement s = conn.createStatement()) { // a new statement each time: DuckDB closes one that failed
            running.set(s);
            try {
                boolean has = s.execute(sql);
                rs.accept(has ? s.getResultSet() : null);
            } finally {
                running.set(null);
            }
        }
    }

    /** What reads a statement's result. */
    @FunctionalInterface
    public interface ResultHandler {
        /**
         * @param rs the result, or null
         * @throws SQLException when reading it fails
         */
        void accept(java.sql.ResultSet rs) throws SQLException;
    }

    /** Interrupts the statement running now, if any (any thread). */
    public void cancel() {
        Statement s = running.get();
        if (s != null) {
            try {
                s.cancel();
            } catch (SQLException e) {
                // it ended meanwhile
            }
        }
    }

    /** Closes the connection (worker thread). */
    public void close() {
        if (conn != null) {
            try {
                conn.close();
            } catch (SQLException e) {
                // closing: nothing left to tell
            }
            conn = null;
        }
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
}
