package org.tracewire.store;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.tracewire.format.Field;
import org.tracewire.record.EventRecord;
import org.tracewire.record.RecordException;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.symbols.UserSymbolResolver;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.StackText;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.WireContext;

/**
 * The captures a {@link StoreBuilder build} has met (a pcapng scope, a trace.dat buffer) and the
 * store's tables written from their context rather than per event: {@code captures} (a row when a
 * capture's first event comes), and, brought up to date at each commit ({@link #write()}),
 * {@code tasks} (per capture and pid seen: tgid and the name the file gives), {@code symbols} (the
 * kernel addresses a capture describes) and {@code user_symbols} (the user-stack frames seen, as the
 * capture resolved them). Not thread-safe: the building thread's.
 */
final class CaptureContexts {
    /** A capture as the build sees it. */
    static final class CaptureState {
        /** Its {@code capture} number in every table (0, 1, … in the order met). */
        final int index;
        /** Its context (null for a trace.dat buffer). */
        final WireContext context;
        /** The pids seen: tasks events ran in or name. */
        final BitSet pids = new BitSet();
        /** The typed tables' kinds seen ({@code event_ids} rows written). */
        final BitSet kinds = new BitSet();
        /** User-stack frames seen, each with its function as the capture resolved it (null: not resolved). */
        final Map<UserFrame, SymbolResolver.Symbol> userSymbols = new LinkedHashMap<>();
        /** The renderer of its last event (task names as the file gives them). */
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

    /** A user-stack address of a process. */
    record UserFrame(int tgid, long address) {
    }

    /** A {@code tasks} row as last written: tgid (null when unknown) and task name. */
    private record TaskRow(Integer tgid, String comm) {
    }

    private final DuckDBConnection db;
    private final Inserter inserter;
    private final Map<Object, CaptureState> captures = new LinkedHashMap<>();

    /**
     * The context tables of a build into {@code db} (created by {@link #create}), a capture's row
     * written by {@code inserter}.
     */
    CaptureContexts(DuckDBConnection db, Inserter inserter) {
        this.db = db;
        this.inserter = inserter;
    }

    /** Creates the tables ({@code captures}, {@code tasks}, {@code symbols}, {@code user_symbols}). */
    static void create(Statement s) throws SQLException {
        s.execute("CREATE TABLE captures(capture USMALLINT, hostname VARCHAR, kernel VARCHAR, boot_id VARCHAR,"
                + " capture_id VARCHAR, clock VARCHAR, buffer VARCHAR)");
        s.execute("CREATE TABLE tasks(capture USMALLINT, pid INTEGER, tgid INTEGER, comm VARCHAR)");
        // the code addresses the captures described (SYMBOLS context), for the stack view
        s.execute("CREATE TABLE symbols(capture USMALLINT, address UBIGINT, name VARCHAR, start UBIGINT,"
                + " size UBIGINT, module VARCHAR)");
        s.execute("CREATE TABLE user_symbols(capture USMALLINT, tgid UINTEGER, address UBIGINT, name VARCHAR,"
                + " start UBIGINT, size UBIGINT, module VARCHAR)");
    }

    /**
     * The capture of a scope, its {@code captures} row written when first met.
     *
     * @param scope  the pcapng scope, or a key for a trace.dat buffer
     * @param c      its context (null: none, a trace.dat)
     * @param buffer the trace.dat instance ({@code ""}: top, or a pcapng)
     */
    CaptureState capture(Object scope, WireContext c, String buffer) throws SQLException {
        CaptureState st = captures.get(scope);
        if (st != null) {
            return st;
        }
        st = new CaptureState(captures.size(), c);
        captures.put(scope, st);
        // the values taken now, on the reading thread (the context grows as the input is read)
        int index = st.index;
        String[] row = {c == null ? "" : c.captureText(ContextMessage.CAPTURE_HOST),
            c == null ? null : c.captureText(ContextMessage.CAPTURE_KERNEL_RELEASE),
            c == null ? null : c.captureText(ContextMessage.CAPTURE_BOOT_ID),
            c == null ? null : c.captureText(ContextMessage.CAPTURE_ID), c == null ? null : c.clock(), buffer};
        inserter.submit(() -> {
            try (var ps = db.prepareStatement("INSERT INTO captures VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                ps.setInt(1, index);
                for (int i = 0; i < row.length; i++) {
                    ps.setString(i + 2, row[i]);
                }
                ps.executeUpdate();
            }
        });
        return st;
    }

    /**
     * Notes the user-stack frames of a record the capture resolved in its process (SYMBOLS items 4,
     * seen by now), each (tgid, address) once: they go to {@code user_symbols}.
     */
    static void userSymbols(CaptureState state, EventRecord r, Field tgidField) {
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

    /**
     * Brings {@code tasks}, {@code symbols} and {@code user_symbols} up to what the build has seen,
     * within the open transaction: a task's row is written when it is first seen and written again
     * when its name or tgid changes (a later PROCESS context, the renderer's saved names); a
     * capture's symbols again when its context holds more; user-stack frames once each.
     */
    void write() throws SQLException {
        for (CaptureState c : captures.values()) {
            writeSymbols(c);
            writeUserSymbols(c);
            writeTasks(c);
        }
    }

    private void writeSymbols(CaptureState c) throws SQLException {
        if (c.context == null || c.context.symbols().size() == c.symbolsWritten) {
            return;
        }
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

    private void writeUserSymbols(CaptureState c) throws SQLException {
        if (c.userSymbols.size() == c.userSymbolsWritten) {
            return;
        }
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

    /** The {@code tasks} rows of a capture that are new or changed since the last commit. */
    private void writeTasks(CaptureState c) throws SQLException {
        if (c.renderer == null) {
            return; // no event of this capture yet
        }
        Map<Integer, WireContext.Task> known = c.context == null ? Map.of() : c.context.tasks();
        List<Integer> pids = new ArrayList<>();
        List<TaskRow> rows = new ArrayList<>();
        StringBuilder changed = new StringBuilder();
        for (int pid = c.pids.nextSetBit(0); pid >= 0; pid = c.pids.nextSetBit(pid + 1)) {
            WireContext.Task task = known.get(pid);
            TaskRow now = new TaskRow(task == null ? null : task.tgid(), c.renderer.comm(pid));
            TaskRow before = c.tasksWritten.put(pid, now);
            if (now.equals(before)) {
                continue;
            }
            if (before != null) {
                changed.append(changed.length() == 0 ? "" : ", ").append(pid);
            }
            pids.add(pid);
            rows.add(now);
        }
        if (changed.length() > 0) {
            try (Statement s = db.createStatement()) {
                s.execute("DELETE FROM tasks WHERE capture = " + c.index + " AND pid IN (" + changed + ")");
            }
        }
        if (!rows.isEmpty()) {
            appendTasks(c.index, pids, rows);
        }
    }

    private void appendTasks(int capture, List<Integer> pids, List<TaskRow> rows) throws SQLException {
        try (DuckDBAppender ta = db.createAppender(DuckDBConnection.DEFAULT_SCHEMA, "tasks")) {
            for (int i = 0; i < rows.size(); i++) {
                ta.beginRow();
                ta.append((short) capture);
                ta.append(pids.get(i).intValue());
                if (rows.get(i).tgid() != null) {
                    ta.append(rows.get(i).tgid().intValue());
                } else {
                    ta.appendNull();
                }
                ta.append(rows.get(i).comm());
                ta.endRow();
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
}
