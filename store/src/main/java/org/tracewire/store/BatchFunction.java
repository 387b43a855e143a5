package org.tracewire.store;

import java.sql.SQLException;
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
 * DuckDB JDBC's Java table functions (2.0): no {@code --add-opens}, no other library.
 */
final class BatchFunction implements DuckDBTableFunction<TableBatch, int[], Object> {
    /** The function's SQL name. */
    static final String NAME = "tracewire_batch";
    /** Its name on the typed tables' connection of a build on three threads ({@link BuildBatches}). */
    static final String TYPED_NAME = "tracewire_batch_typed";

    private final DuckDBConnection db;
    private TableBatch pending;

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
        try (var s = db.createStatement()) {
            s.execute(batch.insert());
        } finally {
            pending = null;
        }
        batch.clear();
    }

    @Override
    public TableBatch bind(DuckDBTableFunctionBindInfo info) {
        TableBatch b = pending;
        if (b == null) {
            throw new IllegalStateException(NAME + " is only called by a store build");
        }
        for (int i = 0; i < b.columns(); i++) {
            info.addResultColumn("c" + i, b.passedType(i));
        }
        info.setCardinality(b.rows(), true);
        return b;
    }

    @Override
    public int[] init(DuckDBTableFunctionInitInfo info) {
        info.setMaxThreads(1);
        return new int[1]; // the next row to hand over
    }

    @Override
    public long apply(DuckDBTableFunctionCallInfo info, DuckDBDataChunkWriter out) {
        TableBatch b = info.getBindData();
        int[] next = info.getInitData();
        int k = b.write(out, next[0]);
        next[0] += k;
        return k;
    }
}
