package org.tracewire.store;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.duckdb.DuckDBConnection;

/**
 * The batches of a {@link StoreBuilder build} and their way into DuckDB: {@code frame_runs},
 * {@code event_offsets}, {@code lost}, {@code truncated_frames}, {@code context_offsets} and the typed tables'
 * ({@link TypedTables}) {@link TableBatch}es, each full one moved in by one {@code INSERT} through
 * {@link BatchFunction}, run by the build's {@link Inserter}s: on their threads, the small tables
 * by one on the build's connection, the typed tables' by another on a connection of their own
 * (DuckDB appends to two tables from two transactions at once: docs/decisions/0031). A full batch
 * is then {@linkplain TableBatch#handOff handed off} (the reader fills another set meanwhile:
 * docs/decisions/0029, 0035); inline (one inserter, one connection) it is written, then grown, as a
 * build of one thread does. All batches together hold up to {@value #BATCH_BYTES}
 * bytes, the snapshots in flight counted; beyond, every batch is written and let go.
 * The reading thread's; the works it hands over are the inserter's.
 */
final class BuildBatches {
    /** The bytes all batches may hold together (snapshots in flight included). */
    static final long BATCH_BYTES = 32L << 20;

    final TableBatch runs;
    final TableBatch lost;
    final TableBatch offsets;
    final TableBatch truncated;
    /** {@code context_offsets}'; its rows come from {@link #blockWithoutEvent}, moved in by {@link #contextBlocks}. */
    final TableBatch contexts;
    private long[] pendingBlocks = new long[64];
    private int pendingCount;
    /** {@code event_rows_wide}'s batch once there is one ({@link EventRows#widen}), written with the typed tables'. */
    TableBatch wide;
    private final TypedTables typed;
    private final Inserter inserter;
    /** The typed tables' inserter and connection ({@link #inserter} and the build's when inline). */
    private final Inserter typedInserter;
    private final DuckDBConnection typedDb;
    private final long budget;
    /** Registered by the first work handed over (on the inserter's thread); null before. */
    private volatile BatchFunction function;
    /** Registered likewise on the typed tables' connection ({@link #function} when inline). */
    private volatile BatchFunction typedFunction;
    /** True when the typed tables have an inserter and connection of their own. */
    private final boolean split;
    /** Bytes the batches hold ({@link TableBatch#bytes()}), all tables together. */
    private long bytes;

    /**
     * @param db            the build's connection (the table function is registered on it, as a work)
     * @param typedDb       the typed tables' connection ({@code db} when inline)
     * @param typed         the typed tables, whose batches are written with these
     * @param inserter      where the statements run
     * @param typedInserter where the typed tables' run ({@code inserter} when inline)
     * @param budget        the bytes all batches may hold together ({@link #BATCH_BYTES}; a test's less)
     * @param runs          the batch of {@code frame_runs}; {@code lost}, {@code offsets}, {@code truncated},
     *                      {@code contexts} ({@code context_offsets}) likewise
     * @throws SQLException an earlier work's failure (inline: the registration's)
     */
    BuildBatches(DuckDBConnection db, DuckDBConnection typedDb, TypedTables typed, Inserter inserter,
                 Inserter typedInserter, long budget, TableBatch runs, TableBatch lost, TableBatch offsets,
                 TableBatch truncated, TableBatch contexts)
            throws SQLException {
        this.typed = typed;
        this.inserter = inserter;
        this.typedInserter = typedInserter;
        this.budget = budget;
        this.runs = runs;
        this.lost = lost;
        this.offsets = offsets;
        this.truncated = truncated;
        this.contexts = contexts;
        this.typedDb = typedDb;
        this.split = typedInserter != inserter;
        inserter.submit(() -> function = BatchFunction.register(db, BatchFunction.NAME));
        if (split) { // its transaction starts once the shared tables are committed
            inserter.barrier();
            typedInserter.submit(() -> {
                typedDb.setAutoCommit(false);
                typedFunction = BatchFunction.register(typedDb, BatchFunction.TYPED_NAME);
            });
        } else {
            inserter.submit(() -> typedFunction = function);
        }
    }

    /**
     * Commits the typed tables' transaction on their own connection and waits for it (nothing when
     * inline: the build's commit holds them). Called once every batch is written.
     *
     * @throws SQLException a work's failure, or DuckDB's refusal of the commit
     */
    void commitTyped() throws SQLException {
        if (!split) {
            return;
        }
        typedInserter.submit(() -> {
            typedDb.commit();
            typedDb.setAutoCommit(true);
        });
        typedInserter.barrier();
    }

    /** True for the batches of the build's own tables (all but the typed tables'). */
    private boolean shared(TableBatch b) {
        return b == runs || b == lost || b == offsets || b == truncated || b == contexts;
    }

    /** The inserter that writes a batch: the typed tables' for theirs. */
    private Inserter inserterOf(TableBatch b) {
        return shared(b) ? inserter : typedInserter;
    }

    private BatchFunction functionOf(TableBatch b) {
        return shared(b) ? function : typedFunction;
    }

    /** True once the table function is registered (inline: at once). */
    boolean registered() {
        return function != null && typedFunction != null;
    }

    /**
     * A row of integers, one per column: {@code frame_runs} (rank, frame), {@code truncated_frames}
     * (frame), {@code event_offsets} (file offset, -1: none) or {@code context_offsets} (file offset).
     */
    void row(TableBatch b, long... values) throws SQLException {
        reserve(b);
        for (int i = 0; i < values.length; i++) {
            b.put(i, values[i]);
        }
        if (b.endRow()) {
            write(b);
        }
    }

    /**
     * Notes the file offset of a block the input read without an event ({@link
     * org.tracewire.input.PcapngInput#onBlockWithoutEvent}; no statement: called inside its read).
     */
    void blockWithoutEvent(long offset) {
        if (pendingCount == pendingBlocks.length) {
            pendingBlocks = Arrays.copyOf(pendingBlocks, pendingCount * 2);
        }
        pendingBlocks[pendingCount++] = offset;
    }

    /** Moves the offsets noted since the last call into {@code context_offsets}' batch, in file order. */
    void contextBlocks() throws SQLException {
        for (int i = 0; i < pendingCount; i++) {
            row(contexts, pendingBlocks[i]);
        }
        pendingCount = 0;
    }

    /**
     * A {@code lost} row: the kernel lost events before the event of {@code frame} (times in ns;
     * {@code count} ≤ 0: how many is unknown, NULL).
     */
    void lost(long frame, long ts, long traceTs, int cpu, long count, int capture) throws SQLException {
        reserve(lost);
        lost.put(0, frame);
        lost.put(1, ts);
        lost.put(2, traceTs);
        lost.put(3, cpu);
        if (count > 0) {
            lost.put(4, count);
        } else {
            lost.putNull(4);
        }
        lost.put(5, capture);
        if (lost.endRow()) {
            write(lost);
        }
    }

    /** Makes room for a row in a batch, writing and letting go of every batch when they hold too much. */
    void reserve(TableBatch b) throws SQLException {
        grown(b, b.reserve());
    }

    /** Writes a full batch into its table (inline: now; else handed off), then lets it grow. */
    void write(TableBatch b) throws SQLException {
        if (!inserter.threaded()) {
            function.insert(b);
            grown(b, b.grow());
            return;
        }
        long before = b.bytes();
        handOff(b);
        grown(b, b.bytes() - before);
    }

    /** Hands a batch's rows to its inserter: one work writes them, then frees the snapshot. */
    private void handOff(TableBatch b) throws SQLException {
        Inserter to = inserterOf(b);
        TableBatch s = b.handOff(to);
        to.submit(() -> {
            functionOf(b).insert(s);
            s.written.release();
        });
    }

    private void grown(TableBatch b, long by) throws SQLException {
        if (by == 0) {
            return;
        }
        bytes += by;
        if (bytes > budget) {
            writeAll(b);
        }
    }

    /** Every batch: {@code frame_runs}, {@code lost}, {@code event_offsets}, {@code truncated_frames}, {@code context_offsets}, the typed tables'. */
    private List<TableBatch> all() {
        List<TableBatch> all = new ArrayList<>();
        all.add(runs);
        all.add(lost);
        all.add(offsets);
        all.add(truncated);
        all.add(contexts);
        typed.tables().forEach(t -> all.add(t.batch));
        if (wide != null) {
            all.add(wide);
        }
        return all;
    }

    /**
     * Writes every batch but {@code keep} and lets go of their arrays (on an inserting thread: all
     * handed off first, then each let go once written).
     *
     * @throws SQLException when DuckDB refuses rows
     */
    void writeAll(TableBatch keep) throws SQLException {
        List<TableBatch> all = all();
        for (TableBatch b : all) {
            if (b != keep && b.rows() > 0) {
                if (inserter.threaded()) {
                    long before = b.bytes();
                    handOff(b);
                    bytes += b.bytes() - before; // counted, as release() takes it all off below
                } else {
                    function.insert(b);
                }
            }
        }
        for (TableBatch b : all) {
            if (b != keep) {
                bytes -= b.release(inserterOf(b));
            }
        }
        assert keep != null || bytes == 0 : "batch bytes miscounted: " + bytes; // all let go: none held
    }

    /**
     * Writes every batch, keeping their arrays (a {@link StoreBuilder.Steps} commit: inline only).
     *
     * @throws SQLException when DuckDB refuses rows
     */
    void writeKeeping() throws SQLException {
        for (TableBatch b : all()) {
            function.insert(b);
        }
    }
}
