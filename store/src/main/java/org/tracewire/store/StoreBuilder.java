package org.tracewire.store;

import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.LongConsumer;
import org.duckdb.DuckDBConnection;
import org.tracewire.format.Field;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.input.TraceDatInput;
import org.tracewire.record.EventRecord;
import org.tracewire.record.RecordException;
import org.tracewire.store.CaptureContexts.CaptureState;
import org.tracewire.store.TypedTables.Writer;
import org.tracewire.tracedat.TraceDatException;

/**
 * Writes the events of one {@link RecordInput} into the tables of a DuckDB database: the rows of
 * each table are gathered column by column ({@link TableBatch}, up to {@value TableBatch#MAX_ROWS}
 * rows, all batches together up to {@value BuildBatches#BATCH_BYTES} bytes) and moved in by one
 * {@code INSERT} per batch through a table function ({@link BatchFunction}; docs/decisions/0018),
 * on a thread of its own for a finished file ({@link Inserter}, docs/decisions/0029). The tables
 * ({@code docs/store.md}):
 * <ul>
 * <li>one typed table per event ({@code sched_switch}, …): a row per event, its common columns
 *     (frame, time, CPU, pid, flags, file offset, capture) and a column per format field
 *     ({@link TypedColumn}; {@link TypedTables}); {@code event_rows}, a view of every event made
 *     of them ({@link EventRows}; docs/decisions/0032), is what the query layer's {@code events}
 *     view reads;</li>
 * <li>{@code frame_runs}: where the events' frames stop being consecutive (the rank of an event in
 *     frame order and its frame), {@code truncated_frames}, {@code event_offsets} (the file offset
 *     of every {@value #OFFSET_STEP}th event), {@code context_offsets} (a pcapng's blocks without an
 *     event, its context among them: {@link PcapngInput#onBlockWithoutEvent});</li>
 * <li>{@code tasks}: per capture and pid seen (a task an event ran in or names:
 *     {@link org.tracewire.format.TaskFields}), the tgid and the task name the file gives (PROCESS
 *     context, a trace.dat's saved cmdlines: what {@code report} prints; {@link CaptureContexts});</li>
 * <li>{@code lost}: where the kernel lost events, per CPU;</li>
 * <li>{@code captures} (the captures in the file: host, kernel, boot id), {@code event_tables}
 *     (event → table), {@code event_ids} (its id in each capture), {@code meta} (source identity,
 *     counts, the last frame, whether the build completed and where it stopped).</li>
 * </ul>
 * One transaction for the whole build, or, for a file still written, a commit per step
 * ({@link Steps}) that leaves every table consistent with the events read so far.
 * {@code frame} is the pcapng packet number (Wireshark's {@code frame.number}); for a trace.dat,
 * which has no frames, the event's 1-based position in the input (time order).
 *
 * <p>Bad input stops the build, it does not fail it: an error reading the input (a truncated or
 * corrupt block) ends the event loop, and what was read stays, with {@code meta.complete = false}
 * and {@code meta.stopped_at} saying where and why. A field that lies outside its record is NULL.
 */
public final class StoreBuilder {
    /** The schema's version: a cached store of another version is rebuilt. */
    public static final int SCHEMA_VERSION = 6;

    /**
     * What a build did.
     *
     * @param events    events stored
     * @param lost      events the kernel lost, as the input reports them (unknown counts not included)
     * @param stoppedAt null when the whole input was read, else where and why reading stopped
     * @param summary   the input's own summary lines (lost events, skipped frames)
     */
    public record Result(long events, long lost, String stoppedAt, List<String> summary) {
    }

    private final DuckDBConnection db;
    private final RecordInput in;
    /** The input as a pcapng (frames, file offsets, scopes), else null (a trace.dat). */
    private final PcapngInput pcap;
    private final CaptureContexts contexts;
    private final TypedTables typed;
    /** The {@code event_rows} view (a union of the typed tables, or its own table: {@link EventRows}). */
    private final EventRows rows;
    /** Where the statements run: its own thread for a finished file, inline for one in {@link Steps}. */
    private final Inserter inserter;
    /** The typed tables' connection and inserter: on a thread, their own (decision 0031, closed last); else db's. */
    private final DuckDBConnection typedDb;
    private final Inserter typedInserter;
    /** The batches; null until the tables are made. */
    private BuildBatches batches;
    private long batchBytes;

    private StoreBuilder(RecordInput in, DuckDBConnection db, Inserter inserter, DuckDBConnection typedDb,
                         Inserter typedInserter, int unionMax) {
        this.db = db;
        this.in = in;
        this.pcap = in instanceof PcapngInput p ? p : null;
        this.inserter = inserter;
        this.typedDb = typedDb;
        this.typedInserter = typedInserter;
        this.contexts = new CaptureContexts(db, inserter);
        this.typed = new TypedTables(typedDb, typedInserter,
                typedInserter == inserter ? BatchFunction.NAME : BatchFunction.TYPED_NAME, in::catalog);
        this.rows = new EventRows(typed, unionMax);
    }

    /**
     * Builds the store of an input into an empty database.
     *
     * @param in     the input, positioned before its first event (read to its end, not closed)
     * @param db     an open, empty database
     * @param source a label for the source (its path), kept in {@code meta}
     * @return what was stored
     * @throws SQLException when the database refuses a write
     */
    public static Result build(RecordInput in, DuckDBConnection db, String source) throws SQLException {
        return build(in, db, source, null);
    }

    /**
     * Like {@link #build(RecordInput, DuckDBConnection, String)}, telling {@code counted} the events
     * stored so far every {@value #PROGRESS_EVERY} events (from the building thread).
     *
     * @param counted receives the running count (may be null)
     */
    public static Result build(RecordInput in, DuckDBConnection db, String source, LongConsumer counted)
            throws SQLException {
        return build(in, db, source, counted, null);
    }

    /**
     * Like {@link #build(RecordInput, DuckDBConnection, String, LongConsumer)}, committing in
     * {@code steps} (null: one transaction for the whole build) so that other connections of the
     * same database read a consistent prefix of the input while it is built.
     *
     * @param steps when to commit and whom to tell (may be null)
     */
    public static Result build(RecordInput in, DuckDBConnection db, String source, LongConsumer counted, Steps steps)
            throws SQLException {
        return build(in, db, source, counted, steps, steps == null, BuildBatches.BATCH_BYTES, EventRows.UNION_MAX);
    }

    /**
     * The build, its statements on a thread of their own ({@code twoThreads}, a build without
     * {@code steps} only: docs/decisions/0029) or on the caller's. The thread ends before this
     * returns or throws; its failure is thrown here as it was thrown there. {@code batchBytes}: the
     * bytes all batches may hold ({@link BuildBatches#BATCH_BYTES}; a test's smaller budget);
     * {@code unionMax}: the most typed tables {@code event_rows} is a union of ({@link EventRows}).
     */
    static Result build(RecordInput in, DuckDBConnection db, String source, LongConsumer counted, Steps steps,
                        boolean twoThreads, long batchBytes, int unionMax) throws SQLException {
        if (twoThreads && steps != null) {
            throw new IllegalArgumentException("a build in steps runs on one thread");
        }
        try (DuckDBConnection typedDb = twoThreads ? (DuckDBConnection) db.duplicate() : null;
             Inserter inserter = twoThreads ? Inserter.start() : Inserter.inline();
             Inserter typedInserter = twoThreads ? Inserter.start(Inserter.THREAD_NAME + "-typed") : inserter) {
            StoreBuilder b = new StoreBuilder(in, db, inserter, twoThreads ? typedDb : db, typedInserter, unionMax);
            b.counted = counted;
            b.steps = steps;
            b.batchBytes = batchBytes;
            if (steps != null) {
                steps.builder = b;
            }
            return b.run(source);
        }
    }

    /** Told after each commit of a build in {@link Steps} (on the building thread). */
    @FunctionalInterface
    public interface Committed {
        /**
         * @param events    events committed so far (typed tables' rows, {@code meta.events})
         * @param lastFrame the frame of the last event committed (0 before the first)
         * @param last      true for the build's final commit ({@code meta.complete} then set)
         */
        void committed(long events, long lastFrame, boolean last);
    }

    /**
     * Commits a build in steps: after at least {@code everyNs} since the last commit, checked every
     * {@value #STEP_CHECK} events and whenever the input waits for its file to grow ({@link #idle}).
     * Each commit holds every table's rows for the events read so far: the typed tables,
     * {@code frame_runs}, {@code truncated_frames}, {@code lost}, {@code tasks} (a row per task
     * seen, updated when its name or tgid becomes known), {@code symbols}, {@code user_symbols}, and {@code meta} with {@code events},
     * {@code lost}, {@code last_frame} and {@code complete = false} (true or false with
     * {@code stopped_at} only at the final commit), and the {@code event_rows} view of the typed
     * tables made so far (the same commit: a reader's events are all of them). A step commits only
     * when it adds events.
     */
    public static final class Steps {
        private final long everyNs;
        private final Committed listener;
        private StoreBuilder builder;
        private SQLException failure;

        /**
         * @param everyNs  the least time between two commits, ns
         * @param listener told after each commit (may be null)
         */
        public Steps(long everyNs, Committed listener) {
            this.everyNs = everyNs;
            this.listener = listener == null ? (n, f, l) -> { } : listener;
        }

        /**
         * The input waits for its file to grow (the building thread, between two events; a
         * {@link org.tracewire.io.GrowingFile}'s writer check): commits what was read when a step
         * is due, so a reader is not kept waiting for the next event. A failure to commit ends the
         * build after the input's next event (thrown there).
         */
        public void idle() {
            StoreBuilder b = builder;
            if (b != null && failure == null && b.batches != null && b.batches.registered()) {
                try {
                    b.stepIfDue();
                } catch (SQLException e) {
                    failure = e;
                } catch (RuntimeException e) { // a listener's: not the input's to report
                    failure = new SQLException("a step of the build failed: " + e.getMessage(), e);
                }
            }
        }
    }

    /** Events between two looks at the clock for a {@link Steps} commit. */
    static final int STEP_CHECK = 1024;
    private Steps steps;
    private long lastStep = System.nanoTime();
    private long committedEvents;
    private long count;
    private long lostTotal;
    private long lastFrame;

    /** Events between two progress calls. */
    public static final int PROGRESS_EVERY = 1 << 16;
    private LongConsumer counted;

    /** Where the reading is: events read (a trace.dat's frame numbers), the last event's scope or buffer, its capture. */
    private long ordinal;
    private Object lastScope;
    private String lastBuffer;
    private CaptureState state;

    /** A row where frames stop being consecutive: the event's rank (0-based, frame order) and frame. */
    private static final List<String> RUNS = List.of("rank BIGINT", "frame BIGINT");
    private static final List<String> TRUNCATED = List.of("frame BIGINT");
    /** {@code event_offsets} holds the file offset of every this-many-th event in frame order (-1: none). */
    public static final int OFFSET_STEP = 512;
    private static final List<String> LOST = List.of("frame BIGINT", "ts BIGINT", "trace_ts BIGINT", "cpu SMALLINT",
            "count BIGINT", "capture USMALLINT");

    /** A table's batch, its columns given as {@code name TYPE}. */
    private TableBatch batch(String table, List<String> columns) {
        return new TableBatch(table, columns.stream().map(c -> c.substring(c.indexOf(' ') + 1)).toList(),
                BatchFunction.NAME);
    }

    private Result run(String source) throws SQLException {
        inserter.submit(() -> {
            try (Statement s = db.createStatement()) {
                s.execute("CREATE TABLE meta(key VARCHAR PRIMARY KEY, value VARCHAR)");
                s.execute("CREATE TABLE frame_runs(" + String.join(", ", RUNS) + ")");
                s.execute("CREATE TABLE truncated_frames(" + String.join(", ", TRUNCATED) + ")");
                s.execute("CREATE TABLE lost(" + String.join(", ", LOST) + ")");
                s.execute("CREATE TABLE event_offsets(file_offset BIGINT)");
                s.execute("CREATE TABLE context_offsets(file_offset BIGINT)");
                TypedTables.create(s);
                CaptureContexts.create(s);
            }
            // One transaction for the whole build (the store file is moved into place once built), or one per step
            db.setAutoCommit(false);
        });
        batches = new BuildBatches(db, typedDb, typed, inserter, typedInserter, batchBytes, batch("frame_runs", RUNS),
                batch("lost", LOST), batch("event_offsets", List.of("file_offset BIGINT")),
                batch("truncated_frames", TRUNCATED), batch("context_offsets", List.of("file_offset BIGINT")));
        if (pcap != null) {
            pcap.onBlockWithoutEvent(batches::blockWithoutEvent);
        }
        String stoppedAt = null;
        Iterator<RecordInput.Event> it = in.events();
        while (true) {
            RecordInput.Event e;
            try {
                if (!it.hasNext()) {
                    break;
                }
                e = it.next();
                if (steps != null && steps.failure != null) {
                    throw steps.failure;
                }
            } catch (UncheckedIOException | IllegalStateException | RecordException | TraceDatException ex) {
                String msg = ex instanceof UncheckedIOException u ? u.getCause().getMessage() : ex.getMessage();
                stoppedAt = "after " + count + " events: " + msg;
                break;
            }
            add(e);
        }
        if (steps != null && steps.failure != null) {
            throw steps.failure;
        }
        return finish(source, stoppedAt);
    }

    /** Puts one event into the batches and notes what it tells of its capture (the per-event work of a build). */
    private void add(RecordInput.Event e) throws SQLException {
        batches.contextBlocks();
        ordinal++;
        long frame = e.frame() != 0 ? e.frame() : ordinal;
        long offset = pcap != null ? pcap.lastOffset() : -1;
        CaptureState st = captureOf(e);
        st.renderer = e.renderer();
        EventRecord r = e.record();
        Writer w = typed.writer(r);
        if (rows.widenDue()) { // every batch written, then the typed rows so far copied into event_rows_wide
            batches.writeAll(null);
            batches.wide = rows.widen();
        }
        if (w.userStackTgid() != null && st.context != null) {
            CaptureContexts.userSymbols(st, r, w.userStackTgid());
        }
        int pid = w.pid() == null ? 0 : (int) safeInt(r, w.pid());
        if (pid >= 0) {
            st.pids.set(pid);
        }
        for (Field tf : w.taskFields()) {
            int named = (int) safeInt(r, tf);
            if (named > 0) {
                st.pids.set(named);
            }
        }
        if (count == 0 || frame != lastFrame + 1) {
            batches.row(batches.runs, count, frame);
        }
        if (e.truncated()) {
            batches.row(batches.truncated, frame);
        }
        rows.eventId(st.kinds, w.table().kind, st.index, r.format().id());
        if ((count & (OFFSET_STEP - 1)) == 0) { // the rank's file offset (-1: none), for a page read from the file alone
            batches.row(batches.offsets, offset);
        }
        long flags = w.flags() == null ? 0 : safeInt(r, w.flags());
        long preempt = w.preempt() == null ? 0 : safeInt(r, w.preempt());
        typedRow(e, r, w, frame, offset, st.index, pid, flags, preempt);
        if (batches.wide != null) {
            batches.reserve(batches.wide);
            if (rows.put(frame, e.timeNs(), r.timestampNs(), r.cpu(), pid, w.table().kind, r.format().id(), flags, preempt,
                    offset, st.index)) {
                batches.write(batches.wide);
            }
        }
        if (e.lostBefore() != 0) {
            batches.lost(frame, e.timeNs(), r.timestampNs(), r.cpu(), e.lostBefore(), st.index);
            lostTotal += Math.max(0, e.lostBefore());
        }
        count++;
        lastFrame = frame;
        if (counted != null && (count & (PROGRESS_EVERY - 1)) == 0) {
            counted.accept(count);
        }
        if (steps != null && (count & (STEP_CHECK - 1)) == 0) {
            stepIfDue();
        }
    }

    /** The capture of an event: its pcapng scope's, or its trace.dat buffer's. */
    private CaptureState captureOf(RecordInput.Event e) throws SQLException {
        if (pcap != null) {
            Object scope = pcap.lastScope();
            if (scope != lastScope || state == null) {
                lastScope = scope;
                state = contexts.capture(scope, pcap.context(scope), "");
            }
        } else if (!e.buffer().equals(lastBuffer) || state == null) {
            lastBuffer = e.buffer();
            state = contexts.capture("buffer " + lastBuffer, null, lastBuffer);
        }
        return state;
    }

    /**
     * Writes what the batches hold and the context tables, then {@code meta}, and commits (one work
     * of the inserter, waited for: the input is read to its end, nothing changes under it).
     */
    private Result finish(String source, String stoppedAt) throws SQLException {
        batches.contextBlocks();
        batches.writeAll(null);
        if (stoppedAt == null && in.failure() != null) {
            // a reader that ends at a damaged or cut block says so after its last event, not by throwing
            stoppedAt = "after " + count + " events: " + in.failure();
        }
        List<String> summary = new ArrayList<>(in.summary());
        List<String> meta = Arrays.asList("source", source, "schema_version", Integer.toString(SCHEMA_VERSION),
                "events", Long.toString(count), "lost", Long.toString(lostTotal), "last_frame", Long.toString(lastFrame),
                "wall_clock", Boolean.toString(in.wallClock()), "complete", Boolean.toString(stoppedAt == null),
                "stopped_at", stoppedAt, "summary", String.join("\n", summary));
        rows.view();
        batches.commitTyped(); // the typed tables' transaction first: the build's commit ends the build
        long events = count;
        String[] hostClock = pcap == null && in instanceof TraceDatInput td ? hostClock(td) : null;
        inserter.submit(() -> {
            // the same statement starts the transaction the context tables' appenders then join
            meta("events", Long.toString(events));
            contexts.write();
            if (hostClock != null) {
                try (var ps = db.prepareStatement("UPDATE captures SET hostname = ?, clock = ?")) {
                    ps.setString(1, hostClock[0]);
                    ps.setString(2, hostClock[1]);
                    ps.executeUpdate();
                }
            }
            for (int i = 0; i < meta.size(); i += 2) {
                meta(meta.get(i), meta.get(i + 1));
            }
            db.commit();
            db.setAutoCommit(true);
        });
        inserter.barrier();
        if (steps != null) {
            steps.listener.committed(count, lastFrame, true);
        }
        return new Result(count, lostTotal, stoppedAt, summary);
    }

    /** A trace.dat's host (from its uname) and clock, for its {@code captures} row. */
    private static String[] hostClock(TraceDatInput td) {
        String uname = td.file().options().uname();
        String host = uname == null ? "" : uname.split(" ").length > 1 ? uname.split(" ")[1] : "";
        return new String[] {host, td.file().clock()};
    }

    /** A {@link Steps} commit when one is due and events were read since the last (inline). */
    private void stepIfDue() throws SQLException {
        if (count != committedEvents && System.nanoTime() - lastStep >= steps.everyNs) {
            step();
        }
    }

    /** A {@link Steps} commit of everything read so far (inline). */
    private void step() throws SQLException {
        // every batch written (their arrays kept: the build goes on), then what goes with the rows
        batches.writeKeeping();
        rows.view();
        meta("events", Long.toString(count)); // first: the appenders below join this transaction
        meta("lost", Long.toString(lostTotal));
        meta("last_frame", Long.toString(lastFrame));
        meta("complete", "false");
        contexts.write();
        db.commit();
        lastStep = System.nanoTime();
        committedEvents = count;
        steps.listener.committed(count, lastFrame, false);
    }

    /** An event's row in its typed table: the keys, then a column per field (NULL: one its format lacks). */
    private void typedRow(RecordInput.Event e, EventRecord r, Writer w, long frame, long offset, int capture, int pid,
                          long flags, long preempt) throws SQLException {
        TableBatch t = w.table().batch;
        batches.reserve(t);
        t.put(0, frame);
        t.put(1, e.timeNs());
        t.put(2, r.timestampNs());
        t.put(3, r.cpu());
        t.put(4, pid);
        t.put(5, flags);
        t.put(6, preempt);
        if (offset >= 0) {
            t.put(7, offset);
        } else {
            t.putNull(7);
        }
        t.put(8, capture);
        TypedColumn[] cols = w.columns();
        int[] at = w.table().at;
        for (int i = 0; i < cols.length; i++) {
            if (cols[i] == null) {
                for (int k = w.table().columns.get(i).spread() - 1; k >= 0; k--) {
                    t.putNull(at[i] + k);
                }
            } else {
                cols[i].put(t, at[i], r);
            }
        }
        if (t.endRow()) {
            batches.write(t);
        }
    }

    private static long safeInt(EventRecord r, Field f) {
        try {
            return r.integer(f);
        } catch (RecordException e) {
            return 0;
        }
    }

    private void meta(String key, String value) throws SQLException {
        try (var ps = db.prepareStatement("INSERT OR REPLACE INTO meta VALUES (?, ?)")) {
            ps.setString(1, key);
            ps.setString(2, value);
            ps.executeUpdate();
        }
    }
}
