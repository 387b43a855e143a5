package org.tracewire.store;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDataChunkWriter;
import org.duckdb.DuckDBFunctions;
import org.duckdb.DuckDBTableFunction;
import org.duckdb.DuckDBTableFunctionBindInfo;
import org.duckdb.DuckDBTableFunctionCallInfo;
import org.duckdb.DuckDBTableFunctionInitInfo;

/**
 * The table function through which a build hands DuckDB its {@link TableBatch batches}: registered
 * on the build's connection as {@value #NAME}{@code ()}, it returns the rows of the batch given to
 * {@link #insert}, columns {@code c0, c1, …} of the batch's passed types, 2,048 rows per call (a
 * DuckDB vector), on the thread that runs the {@code INSERT} (the build's: {@code threads = 1}).
 * Each table's {@code INSERT} is prepared once and run per batch (parsing and planning it for
 * each batch took ~7% of the typed tables' inserter's CPU: docs/decisions/0036), so the batch is
 * taken at each run's {@link #init}, not at its one {@link #bind}.
 * DuckDB JDBC's Java table functions (2.0): no {@code --add-opens}, no other library.
 */
final class BatchFunction implements DuckDBTableFunction<String, BatchFunction.Cursor, Object> {
    /** The function's SQL name. */
    static final String NAME = "tracewire_batch";
    /** Its name on the typed tables' connection of a build on three threads ({@link BuildBatches}). */
    static final String TYPED_NAME = "tracewire_batch_typed";

    private final DuckDBConnection db;
    private TableBatch pending;
    /** Each table's {@code INSERT}, prepared at its first batch, by its text (closed with the connection). */
    private final Map<String, PreparedStatement> prepared = new HashMap<>();

    /** One execution's rows: the batch being moved in and the next row to hand over. */
    static final class Cursor {
        final TableBatch batch;
        int next;

        Cursor(TableBatch batch) {
            this.batch = batch;
        }
    }

    private BatchFunction(DuckDBConnection db) {
        this.db = db;
    }

    /**
     * Registers the function on a connection as {@code name} ({@link #NAME}, {@link #TYPED_NAME}:
     * each registration hands over its own batches).
     *
     * @throws SQLException when DuckDB refuses it
     */
    static BatchFunction register(DuckDBConnection db, String name) throws SQLException {
        BatchFunction f = new BatchFunction(db);
        DuckDBFunctions.tableFunction().withName(name).withFunction(f).register(db);
        return f;
    }

    /**
     * Moves a batch's rows into its table (one {@code INSERT}) and clears the batch.
     *
     * @throws SQLException when DuckDB refuses the rows
     */
    void insert(TableBatch batch) throws SQLException {
        if (batch.rows() == 0) {
            return;
        }
        pending = batch;
        try {
            PreparedStatement ps = prepared.get(batch.insert());
            if (ps == null) {
                ps = db.prepareStatement(batch.insert());
                prepared.put(batch.insert(), ps);
            }
            ps.execute();
        } finally {
            pending = null;
        }
        batch.clear();
    }

    /**
     * The table's columns; the bind data is only the table's name: a prepared {@code INSERT} keeps
     * it for the connection's life, and each run takes its batch at {@link #init}.
     */
    @Override
    public String bind(DuckDBTableFunctionBindInfo info) {
        TableBatch b = pending();
        for (int i = 0; i < b.columns(); i++) {
            info.addResultColumn("c" + i, b.passedType(i));
        }
        info.setCardinality(b.rows(), true);
        return b.table();
    }

    @Override
    public Cursor init(DuckDBTableFunctionInitInfo info) {
        info.setMaxThreads(1);
        return new Cursor(pending()); // the batch inserted now (a prepared INSERT is bound once)
    }

    /** The batch {@link #insert} is moving in. */
    private TableBatch pending() {
        TableBatch b = pending;
        if (b == null) {
            throw new IllegalStateException(NAME + " is only called by a store build");
        }
        return b;
    }

    @Override
    public long apply(DuckDBTableFunctionCallInfo info, DuckDBDataChunkWriter out) {
        Cursor c = info.getInitData();
        int k = c.batch.write(out, c.next);
        c.next += k;
        return k;
    }
}
