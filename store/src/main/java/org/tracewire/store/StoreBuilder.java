package org.tracewire.store;

import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.TaskFields;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.input.TraceDatInput;
import org.tracewire.record.EventRecord;
import org.tracewire.record.RecordException;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.symbols.UserSymbolResolver;
import org.tracewire.tracedat.TraceDatException;
import org.tracewire.tracetext.StackText;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.WireContext;

/**
 * Writes the events of one {@link RecordInput} into the tables of a DuckDB database: the rows of
 * each table are gathered column by column ({@link TableBatch}, up to {@value TableBatch#MAX_ROWS}
 * rows, all batches together up to {@value #BATCH_BYTES} bytes) and moved in by one {@code INSERT}
 * per batch through a table function ({@link BatchFunction}; docs/decisions/0018). The tables
 * ({@code docs/store.md}):
 * <ul>
 * <li>{@code event_rows}: one row per event (frame, time, CPU, pid, event kind and id, flags, file
 *     offset; the query layer's {@code events} view joins in the names);</li>
 * <li>{@code tasks}: per capture and pid seen (a task an event ran in or names: {@link TaskFields}),
 *     the tgid and the task name the file gives (PROCESS context, a trace.dat's saved cmdlines:
 *     what {@code report} prints);</li>
 * <li>{@code lost}: where the kernel lost events, per CPU;</li>
 * <li>one typed table per event ({@code sched_switch}, …), a column per format field
 *     ({@link TypedColumn}), keyed by {@code frame};</li>
 * <li>{@code captures} (the captures in the file: host, kernel, boot id), {@code event_tables}
 *     (event → table), {@code meta} (source identity, counts, the last frame, whether the build
 *     completed and where it stopped).</li>
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
    public static final int SCHEMA_VERSION = 3;

    /** Names a typed table may not take (the store's own tables and views). */
    static final Set<String> RESERVED = Set.of("events", "event_rows", "lost", "captures", "event_tables", "meta",
            "symbols", "user_symbols", "stack",
            "sched_slice", "sched_latency", "latency", "thread_state", "event_rate", "sources", "tasks");

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

    /** The typed table of one event (system:name). */
    private static final class Table {
        final String name;
        final int kind;
        final List<TypedColumn> columns;
        final Map<String, TypedColumn> byName = new HashMap<>();
        final TableBatch batch;

        Table(String name, int kind, List<TypedColumn> columns, TableBatch batch) {
            this.name = name;
            this.kind = kind;
            this.columns = columns;
            this.batch = batch;
            columns.forEach(c -> byName.put(c.field().name(), c));
        }
    }

    /**
     * What one format (as an object) appends with: its table, its columns in table order, its common
     * fields, the other fields that name a task ({@link TaskFields}).
     */
    private record Writer(Table table, TypedColumn[] columns, Field pid, Field flags, Field preempt, String fullName,
                          Field userStackTgid, Field[] taskFields) {
    }

    private final DuckDBConnection db;
    private final Map<EventFormat, Writer> writers = new IdentityHashMap<>();
    private final Map<String, Table> tables = new LinkedHashMap<>();
    private RecordInput in;
    private final Map<Object, CaptureState> captures = new LinkedHashMap<>();
    private TableBatch events;
    private TableBatch lost;
    private BatchFunction function;
    /** Bytes the batches hold ({@link TableBatch#bytes()}), all tables together. */
    private long batchBytes;

    /** The bytes all batches may hold together; beyond, every batch is written and let go. */
    static final long BATCH_BYTES = 32L << 20;

    private StoreBuilder(DuckDBConnection db) {
        this.db = db;
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
        StoreBuilder b = new StoreBuilder(db);
        b.counted = counted;
        b.steps = steps;
        if (steps != null) {
            steps.builder = b;
        }
        return b.run(in, source);
    }

    /** Told after each commit of a build in {@link Steps} (on the building thread). */
    @FunctionalInterface
    public interface Committed {
        /**
         * @param events    events committed so far ({@code event_rows} rows, {@code meta.events})
         * @param lastFrame the frame of the last event committed (0 before the first)
         * @param last      true for the build's final commit ({@code meta.complete} then set)
         */
        void committed(long events, long lastFrame, boolean last);
    }

    /**
     * Commits a build in steps: after at least {@code everyNs} since the last commit, checked every
     * {@value #STEP_CHECK} events and whenever the input waits for its file to grow ({@link #idle}).
     * Each commit holds every table's rows for the events read so far: {@code event_rows}, the
     * typed tables, {@code lost}, {@code tasks} (a row per task seen, updated when its name or tgid
     * becomes known), {@code symbols}, {@code user_symbols}, and {@code meta} with {@code events},
     * {@code lost}, {@code last_frame} and {@code complete = false} (true or false with
     * {@code stopped_at} only at the final commit). A step commits only when it adds events.
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
            if (b != null && failure == null && b.function != null) {
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

    private static final List<String> EVENT_ROWS = List.of("frame BIGINT", "ts BIGINT", "trace_ts BIGINT",
            "cpu SMALLINT", "pid INTEGER", "kind USMALLINT", "id USMALLINT", "flags UTINYINT", "preempt_count UTINYINT",
            "file_offset BIGINT", "capture USMALLINT", "truncated BOOLEAN");
    private static final List<String> LOST = List.of("frame BIGINT", "ts BIGINT", "trace_ts BIGINT", "cpu SMALLINT",
            "count BIGINT", "capture USMALLINT");
    /** The key columns every typed table starts with ({@link TypedColumn#KEY_COLUMNS}). */
    private static final List<String> KEYS = List.of("frame BIGINT", "ts BIGINT", "common_cpu SMALLINT",
            "common_pid INTEGER", "capture USMALLINT");

    /** A table's batch, its columns given as {@code name TYPE}. */
    private TableBatch batch(String table, List<String> columns) {
        return new TableBatch(table, columns.stream().map(c -> c.substring(c.indexOf(' ') + 1)).toList(),
                BatchFunction.NAME);
    }

    /** Makes room for a row in a batch, writing and letting go of every batch when they hold too much. */
    private void reserve(TableBatch b) throws SQLException {
        grown(b, b.reserve());
    }

    /** Writes a full batch into its table, then lets it grow. */
    private void write(TableBatch b) throws SQLException {
        function.insert(b);
        grown(b, b.grow());
    }

    private void grown(TableBatch b, long bytes) throws SQLException {
        if (bytes == 0) {
            return;
        }
        batchBytes += bytes;
        if (batchBytes > BATCH_BYTES) {
            writeBatches(b);
        }
    }

    /** Writes every batch but {@code keep}, and lets go of their arrays. */
    private void writeBatches(TableBatch keep) throws SQLException {
        List<TableBatch> all = new ArrayList<>();
        all.add(events);
        all.add(lost);
        tables.values().forEach(t -> all.add(t.batch));
        for (TableBatch b : all) {
            if (b != keep) {
                function.insert(b);
                batchBytes -= b.release();
            }
        }
    }

    private Result run(RecordInput in, String source) throws SQLException {
        try (Statement s = db.createStatement()) {
            s.execute("CREATE TABLE meta(key VARCHAR PRIMARY KEY, value VARCHAR)");
            s.execute("CREATE TABLE event_rows(" + String.join(", ", EVENT_ROWS) + ")");
            s.execute("CREATE TABLE lost(" + String.join(", ", LOST) + ")");
            s.execute("CREATE TABLE captures(capture USMALLINT, hostname VARCHAR, kernel VARCHAR, boot_id VARCHAR,"
                    + " capture_id VARCHAR, clock VARCHAR, buffer VARCHAR)");
            s.execute("CREATE TABLE event_tables(kind USMALLINT, event VARCHAR, system VARCHAR, name VARCHAR, table_name VARCHAR)");
            s.execute("CREATE TABLE tasks(capture USMALLINT, pid INTEGER, tgid INTEGER, comm VARCHAR)");
            // the code addresses the captures described (SYMBOLS context), for the stack view
            s.execute("CREATE TABLE symbols(capture USMALLINT, address UBIGINT, name VARCHAR, start UBIGINT,"
                    + " size UBIGINT, module VARCHAR)");
            s.execute("CREATE TABLE user_symbols(capture USMALLINT, tgid UINTEGER, address UBIGINT, name VARCHAR,"
                    + " start UBIGINT, size UBIGINT, module VARCHAR)");
        }
        this.in = in;
        PcapngInput pcap = in instanceof PcapngInput p ? p : null;
        // One transaction for the whole build (the store file is moved into place once built), or one per step
        db.setAutoCommit(false);
        function = BatchFunction.register(db);
        events = batch("event_rows", EVENT_ROWS);
        lost = batch("lost", LOST);
        String stoppedAt = null;
        long ordinal = 0;
        Object lastScope = null;
        String lastBuffer = null;
        int capture = 0;
        CaptureState state = null;
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
            ordinal++;
            long frame = e.frame() != 0 ? e.frame() : ordinal;
            long offset = -1;
            if (pcap != null) {
                offset = pcap.lastOffset();
                Object scope = pcap.lastScope();
                if (scope != lastScope) {
                    lastScope = scope;
                    state = capture(scope, pcap.context(scope), "");
                    capture = state.index;
                }
            } else if (!e.buffer().equals(lastBuffer)) {
                lastBuffer = e.buffer();
                state = capture("buffer " + lastBuffer, null, lastBuffer);
                capture = state.index;
            }
            state.renderer = e.renderer();
            EventRecord r = e.record();
            Writer w = writers.get(r.format());
            if (w == null) {
                w = writer(r);
            }
            if (w.userStackTgid != null && state.context != null) {
                userSymbols(state, r, w.userStackTgid);
            }
            int pid = w.pid == null ? 0 : (int) safeInt(r, w.pid);
            if (pid >= 0) {
                state.pids.set(pid);
            }
            for (Field tf : w.taskFields) {
                int named = (int) safeInt(r, tf);
                if (named > 0) {
                    state.pids.set(named);
                }
            }
            lostTotal += store(e, r, w, frame, offset, capture, pid);
            count++;
            lastFrame = frame;
            if (counted != null && (count & (PROGRESS_EVERY - 1)) == 0) {
                counted.accept(count);
            }
            if (steps != null && (count & (STEP_CHECK - 1)) == 0) {
                stepIfDue();
            }
        }
        if (steps != null && steps.failure != null) {
            throw steps.failure;
        }
        writeBatches(null);
        // the same statement starts the transaction the context tables' appenders then join
        meta("events", Long.toString(count));
        writeContextTables();
        if (pcap == null && in instanceof TraceDatInput td) {
            String uname = td.file().options().uname();
            String host = uname == null ? "" : uname.split(" ").length > 1 ? uname.split(" ")[1] : "";
            try (var ps = db.prepareStatement("UPDATE captures SET hostname = ?, clock = ?")) {
                ps.setString(1, host);
                ps.setString(2, td.file().clock());
                ps.executeUpdate();
            }
        }
        if (stoppedAt == null && in.failure() != null) {
            // a reader that ends at a damaged or cut block says so after its last event, not by throwing
            stoppedAt = "after " + count + " events: " + in.failure();
        }
        List<String> summary = new ArrayList<>(in.summary());
        meta("source", source);
        meta("schema_version", Integer.toString(SCHEMA_VERSION));
        meta("events", Long.toString(count));
        meta("lost", Long.toString(lostTotal));
        meta("last_frame", Long.toString(lastFrame));
        meta("wall_clock", Boolean.toString(in.wallClock()));
        meta("complete", Boolean.toString(stoppedAt == null));
        meta("stopped_at", stoppedAt);
        meta("summary", String.join("\n", summary));
        db.commit();
        db.setAutoCommit(true);
        if (steps != null) {
            steps.listener.committed(count, lastFrame, true);
        }
        return new Result(count, lostTotal, stoppedAt, summary);
    }

    /** A {@link Steps} commit when one is due and events were read since the last. */
    private void stepIfDue() throws SQLException {
        long now = System.nanoTime();
        if (count == committedEvents || now - lastStep < steps.everyNs) {
            return;
        }
        // every batch written (their arrays kept: the build goes on), then what goes with the rows
        function.insert(events);
        function.insert(lost);
        for (Table t : tables.values()) {
            function.insert(t.batch);
        }
        meta("events", Long.toString(count)); // first: the appenders below join this transaction
        meta("lost", Long.toString(lostTotal));
        meta("last_frame", Long.toString(lastFrame));
        meta("complete", "false");
        writeContextTables();
        db.commit();
        lastStep = System.nanoTime();
        committedEvents = count;
        steps.listener.committed(count, lastFrame, false);
    }

    /**
     * Brings {@code tasks}, {@code symbols} and {@code user_symbols} up to what the build has seen,
     * within the open transaction: a task's row is written when it is first seen and written again
     * when its name or tgid changes (a later PROCESS context, the renderer's saved names); a
     * capture's symbols again when its context holds more; user-stack frames once each.
     */
    private void writeContextTables() throws SQLException {
        for (CaptureState c : captures.values()) {
            if (c.context != null && c.context.symbols().size() != c.symbolsWritten) {
                if (c.symbolsWritten > 0) {
                    try (Statement s = db.createStatement()) {
                        s.execute("DELETE FROM symbols WHERE capture = " + c.index);
                    }
                }
                try (DuckDBAppender sa = db.createAppender(DuckDBConnection.DEFAULT_SCHEMA, "symbols")) {
                    for (Map.Entry<Long, SymbolResolver.Symbol> sym : c.context.symbols().entrySet()) {
                        sa.beginRow();
                        sa.append((short) c.index);
                        sa.append(sym.getKey());
                        appendSymbol(sa, sym.getValue());
                    }
                }
                c.symbolsWritten = c.context.symbols().size();
            }
            if (c.userSymbols.size() != c.userSymbolsWritten) {
                try (DuckDBAppender ua = db.createAppender(DuckDBConnection.DEFAULT_SCHEMA, "user_symbols")) {
                    int i = 0;
                    for (Map.Entry<UserFrame, SymbolResolver.Symbol> u : c.userSymbols.entrySet()) {
                        if (i++ < c.userSymbolsWritten || u.getValue() == null) {
                            continue; // written at an earlier step, or the capture did not resolve it
                        }
                        ua.beginRow();
                        ua.append((short) c.index);
                        ua.append(u.getKey().tgid());
                        ua.append(u.getKey().address());
                        appendSymbol(ua, u.getValue());
                    }
                }
                c.userSymbolsWritten = c.userSymbols.size();
            }
            writeTasks(c);
        }
    }

    /** The {@code tasks} rows of a capture that are new or changed since the last commit. */
    private void writeTasks(CaptureState c) throws SQLException {
        if (c.renderer == null) {
            return; // no event of this capture yet
        }
        Map<Integer, WireContext.Task> known = c.context == null ? Map.of() : c.context.tasks();
        List<Integer> rows = new ArrayList<>(); // pids
        List<String> comms = new ArrayList<>();
        List<Integer> tgids = new ArrayList<>();
        StringBuilder changed = new StringBuilder();
        for (int pid = c.pids.nextSetBit(0); pid >= 0; pid = c.pids.nextSetBit(pid + 1)) {
            WireContext.Task task = known.get(pid);
            Integer tgid = task == null ? null : task.tgid();
            String comm = c.renderer.comm(pid);
            TaskRow now = new TaskRow(tgid, comm);
            TaskRow before = c.tasksWritten.put(pid, now);
            if (now.equals(before)) {
                continue;
            }
            if (before != null) {
                changed.append(changed.length() == 0 ? "" : ", ").append(pid);
            }
            rows.add(pid);
            comms.add(comm);
            tgids.add(tgid);
        }
        if (changed.length() > 0) {
            try (Statement s = db.createStatement()) {
                s.execute("DELETE FROM tasks WHERE capture = " + c.index + " AND pid IN (" + changed + ")");
            }
        }
        if (rows.isEmpty()) {
            return;
        }
        try (DuckDBAppender ta = db.createAppender(DuckDBConnection.DEFAULT_SCHEMA, "tasks")) {
            for (int i = 0; i < rows.size(); i++) {
                ta.beginRow();
                ta.append((short) c.index);
                ta.append(rows.get(i).intValue());
                if (tgids.get(i) != null) {
                    ta.append(tgids.get(i).intValue());
                } else {
                    ta.appendNull();
                }
                ta.append(comms.get(i));
                ta.endRow();
            }
        }
    }

    /** A {@code tasks} row as last written: tgid (null when unknown) and task name. */
    private record TaskRow(Integer tgid, String comm) {
    }

    /**
     * Puts an event's rows into the batches (events, its typed table, lost), writing those that are full.
     *
     * @return the events the kernel lost before it, as far as known (0 when none or unknown)
     */
    private long store(RecordInput.Event e, EventRecord r, Writer w, long frame, long offset, int capture, int pid)
            throws SQLException {
        long trace = r.timestampNs();
        TableBatch a = events;
        reserve(a);
        a.put(0, frame);
        a.put(1, e.timeNs());
        a.put(2, trace);
        a.put(3, r.cpu());
        a.put(4, pid);
        a.put(5, w.table.kind);
        a.put(6, r.format().id());
        a.put(7, w.flags == null ? 0 : safeInt(r, w.flags));
        a.put(8, w.preempt == null ? 0 : safeInt(r, w.preempt));
        if (offset >= 0) {
            a.put(9, offset);
        } else {
            a.putNull(9);
        }
        a.put(10, capture);
        a.put(11, e.truncated() ? 1 : 0);
        if (a.endRow()) {
            write(a);
        }

        TableBatch t = w.table.batch;
        reserve(t);
        t.put(0, frame);
        t.put(1, e.timeNs());
        t.put(2, r.cpu());
        t.put(3, pid);
        t.put(4, capture);
        TypedColumn[] cols = w.columns;
        for (int i = 0; i < cols.length; i++) {
            if (cols[i] == null) {
                t.putNull(KEYS.size() + i);
            } else {
                cols[i].put(t, KEYS.size() + i, r);
            }
        }
        if (t.endRow()) {
            write(t);
        }

        if (e.lostBefore() != 0) {
            reserve(lost);
            lost.put(0, frame);
            lost.put(1, e.timeNs());
            lost.put(2, trace);
            lost.put(3, r.cpu());
            if (e.lostBefore() > 0) {
                lost.put(4, e.lostBefore());
            } else {
                lost.putNull(4);
            }
            lost.put(5, capture);
            if (lost.endRow()) {
                write(lost);
            }
        }
        return Math.max(0, e.lostBefore());
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

    /**
     * The user-stack frames of a record the capture resolved in its process (SYMBOLS items 4, seen
     * by now), each (tgid, address) once: they go to {@code user_symbols}.
     */
    private static void userSymbols(CaptureState state, EventRecord r, Field tgidField) {
        int tgid;
        long[] addresses;
        try {
            tgid = (int) r.integer(tgidField);
            addresses = StackText.addresses(r);
        } catch (RecordException | IndexOutOfBoundsException e) {
            return;
        }
        UserSymbolResolver users = state.context.userSymbols();
        for (long a : addresses) {
            UserFrame key = new UserFrame(tgid, a);
            if (!state.userSymbols.containsKey(key)) {
                state.userSymbols.put(key, users.lookup(tgid, a)); // null: not resolved, looked up once all the same
            }
        }
    }

    /** Ends a symbols row: name, start, size, module (NULL when none). */
    private static void appendSymbol(DuckDBAppender a, SymbolResolver.Symbol v) throws SQLException {
        a.append(v.name());
        a.append(v.start());
        a.append(v.size());
        if (v.module() != null) {
            a.append(v.module());
        } else {
            a.appendNull();
        }
        a.endRow();
    }

    /** A user-stack address of a process. */
    private record UserFrame(int tgid, long address) {
    }

    /** A capture (a pcapng scope, a trace.dat buffer) as the build sees it. */
    private static final class CaptureState {
        final int index;
        final WireContext context;
        final BitSet pids = new BitSet();
        /** User-stack frames seen, each with its function as the capture resolved it (null: not resolved). */
        final Map<UserFrame, SymbolResolver.Symbol> userSymbols = new LinkedHashMap<>();
        KernelTextRenderer renderer;
        /** What the {@code tasks}, {@code symbols} and {@code user_symbols} rows written so far hold. */
        final Map<Integer, TaskRow> tasksWritten = new HashMap<>();
        int symbolsWritten;
        int userSymbolsWritten;

        CaptureState(int index, WireContext context) {
            this.index = index;
            this.context = context;
        }
    }

    private CaptureState capture(Object scope, WireContext c, String buffer) throws SQLException {
        CaptureState st = captures.get(scope);
        if (st != null) {
            return st;
        }
        st = new CaptureState(captures.size(), c);
        captures.put(scope, st);
        try (var ps = db.prepareStatement("INSERT INTO captures VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            ps.setInt(1, st.index);
            ps.setString(2, c == null ? "" : c.captureText(ContextMessage.CAPTURE_HOST));
            ps.setString(3, c == null ? null : c.captureText(ContextMessage.CAPTURE_KERNEL_RELEASE));
            ps.setString(4, c == null ? null : c.captureText(ContextMessage.CAPTURE_BOOT_ID));
            ps.setString(5, c == null ? null : c.captureText(ContextMessage.CAPTURE_ID));
            ps.setString(6, c == null ? null : c.clock());
            ps.setString(7, buffer);
            ps.executeUpdate();
        }
        return st;
    }

    /** The writer of a format seen for the first time: its event's table (created on first use). */
    private Writer writer(EventRecord r) throws SQLException {
        EventFormat f = r.format();
        Table t = tables.get(f.fullName());
        List<TypedColumn> cols = new ArrayList<>();
        for (Field field : f.fields()) {
            cols.add(TypedColumn.of(f, field, r.layout().longSize()));
        }
        if (t == null) {
            String name = tableName(f);
            StringBuilder ddl = new StringBuilder("CREATE TABLE ").append(Sql.quote(name))
                    .append('(').append(String.join(", ", KEYS));
            List<String> types = new ArrayList<>();
            KEYS.forEach(k -> types.add(k.substring(k.indexOf(' ') + 1)));
            for (TypedColumn c : cols) {
                ddl.append(", ").append(Sql.quote(c.name())).append(' ').append(c.sqlType());
                types.add(c.sqlType());
            }
            ddl.append(')');
            try (Statement s = db.createStatement()) {
                s.execute(ddl.toString());
            }
            int kind = tables.size();
            try (var ps = db.prepareStatement("INSERT INTO event_tables VALUES (?, ?, ?, ?, ?)")) {
                ps.setInt(1, kind);
                ps.setString(2, f.fullName());
                ps.setString(3, f.system());
                ps.setString(4, f.name());
                ps.setString(5, name);
                ps.executeUpdate();
            }
            t = new Table(name, kind, cols, new TableBatch(name, types, BatchFunction.NAME));
            tables.put(f.fullName(), t);
        }
        // Another format of the same event (a second capture in the file): its fields by name and
        // SQL type; a field the table lacks, or of another type, is not stored (NULL).
        TypedColumn[] order = new TypedColumn[t.columns.size()];
        for (int i = 0; i < order.length; i++) {
            TypedColumn want = t.columns.get(i);
            for (TypedColumn c : cols) {
                if (c.field().name().equals(want.field().name()) && c.sqlType().equals(want.sqlType())) {
                    order[i] = c;
                }
            }
        }
        // a user stack record (decided once per format): its frames' functions go to user_symbols
        Field tgid = StackText.kind(f) == StackText.Kind.USER ? f.field("tgid") : null;
        Field[] named = TaskFields.of(f).stream().map(TaskFields.TaskField::pid).filter(p -> !p.common())
                .toArray(Field[]::new);
        Writer w = new Writer(t, order, f.field("common_pid"), f.field("common_flags"), f.field("common_preempt_count"),
                f.fullName(), tgid != null && tgid.size() == 4 ? tgid : null, named);
        writers.put(f, w);
        return w;
    }

    /**
     * True when another system of the input's catalog has an event of this name (the table then
     * takes the system's name too). Asked when the event's table is made: a pcapng read in one pass
     * has its capture's formats by then (they come before its first event).
     */
    private boolean ambiguous(EventFormat f) {
        for (EventFormat o : in.catalog().formats()) {
            if (o.name().equals(f.name()) && !o.system().equals(f.system())) {
                return true;
            }
        }
        return false;
    }

    private String tableName(EventFormat f) {
        String name = plain(f.name());
        if (ambiguous(f) || RESERVED.contains(name) || usedByOther(name, f)) {
            name = plain(f.system()) + "__" + name;
        }
        for (int n = 2; usedByOther(name, f); n++) {
            name = plain(f.system()) + "__" + plain(f.name()) + "_" + n;
        }
        return name;
    }

    /**
     * A table name made of letters, digits and {@code _} only (every kernel event name is one; a
     * damaged FORMAT's name may hold spaces or control bytes, which DuckDB's appender refuses).
     */
    static String plain(String name) {
        String p = name.replaceAll("[^A-Za-z0-9_]", "_");
        return p.isEmpty() ? "_" : p;
    }

    private boolean usedByOther(String name, EventFormat f) {
        for (Table t : tables.values()) {
            if (t.name.equals(name)) {
                return true;
            }
        }
        return false;
    }
}
