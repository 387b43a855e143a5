package org.tracewire.app.capture;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A view's connection to one capture store and the reader opened over it ({@link StoreQueries}'s
 * worker side): opened, read again as a growing store commits, closed when the store goes. A
 * query over a growing store runs in one snapshot of it, with the count of events committed then.
 *
 * <p>Threads: everything on the view's worker thread, except {@link #cancel()} (any thread).
 *
 * @param <R> what the view reads the store through
 */
final class StoreConnection<R> {
    private final StoreQueries.Opener<R> opener;
    private final AtomicReference<Statement> running = new AtomicReference<>();
    private Connection connection;
    private R reader;
    private String openProblem;

    /**
     * A query's result and the store's committed events it saw.
     *
     * @param result    the query's result
     * @param committed events committed in the snapshot it ran in, -1 when the store is not growing
     */
    record Answer<T>(T result, long committed) {
    }

    StoreConnection(StoreQueries.Opener<R> opener) {
        this.opener = opener;
    }

    /** Opens a connection to {@code table}'s store and the reader over it; a failure is kept as {@link #problem()}. */
    void open(StoreTable table) {
        try {
            connection = table.newConnection();
            reader = opener.open(connection, table);
            openProblem = reader == null ? "" : null;
        } catch (SQLException e) {
            openProblem = "cannot query the store: " + StoreQueries.message(e);
        }
    }

    /** Opens the reader again over what the store now holds; on failure the last one stays. */
    void reopen(StoreTable table) {
        if (connection == null) {
            return;
        }
        try {
            reader = opener.open(connection, table);
            openProblem = reader == null ? "" : null;
        } catch (SQLException e) {
            // the reader of the last commit stays
        }
    }

    /** Closes the connection, if any. */
    void close() {
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

    /** The connection, or null when none is open. */
    Connection connection() {
        return connection;
    }

    /** The reader, or null (see {@link #problem()}). */
    R reader() {
        return reader;
    }

    /** Why there is no reader: "cannot query the store: …", or empty (none opened, or nothing for this view). */
    String problem() {
        return openProblem == null ? "" : openProblem;
    }

    /**
     * Runs a query against the reader; over a growing store in one snapshot (a transaction) whose
     * committed count ({@code s0.meta}) comes with the result.
     *
     * @throws SQLException as the query or DuckDB throws it (the snapshot rolled back)
     */
    <T> Answer<T> run(StoreQueries.Query<R, T> query, boolean growing) throws SQLException {
        long committed = -1;
        boolean snapshot = growing && connection != null;
        T result;
        try {
            if (snapshot) {
                // one snapshot of a growing store for the query's statements and the count it says
                connection.setAutoCommit(false);
                try (Statement s = connection.createStatement();
                     ResultSet rs = s.executeQuery("SELECT value::BIGINT FROM s0.meta WHERE key = 'events'")) {
                    committed = rs.next() ? rs.getLong(1) : -1;
                }
            }
            result = query.run(reader);
            if (snapshot) {
                connection.commit();
            }
        } catch (SQLException | RuntimeException e) {
            endSnapshot(snapshot);
            throw e;
        }
        endSnapshot(snapshot);
        return new Answer<>(result, committed);
    }

    /** Ends a query's snapshot of a growing store: rolled back if still open. */
    private void endSnapshot(boolean snapshot) {
        if (!snapshot) {
            return;
        }
        try {
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
        } catch (SQLException e) {
            // the transaction ended with the error
        }
        try {
            connection.setAutoCommit(true);
        } catch (SQLException e) {
            // a closed connection: the next store opens its own
        }
    }

    /** See {@link StoreQueries#execute}. */
    void execute(String sql, StoreQueries.ResultHandler rs) throws SQLException {
        if (connection == null) {
            throw new SQLException("no capture store is open");
        }
        try (Statement s = connection.createStatement()) { // a new statement each time: DuckDB closes one that failed
            running.set(s);
            try {
                boolean has = s.execute(sql);
                rs.accept(has ? s.getResultSet() : null);
            } finally {
                running.set(null);
            }
        }
    }

    /** Interrupts the statement {@link #execute} runs now, if any (any thread). */
    void cancel() {
        Statement s = running.get();
        if (s != null) {
            try {
                s.cancel();
            } catch (SQLException e) {
                // it ended meanwhile
            }
        }
    }
}
