package org.tracewire.store;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A store's {@code event_rows} view: one row per event ({@code frame}, {@code ts}, {@code trace_ts},
 * {@code cpu}, {@code pid}, {@code kind}, {@code event}, {@code id}, {@code flags},
 * {@code preempt_count}, {@code file_offset}, {@code capture}, {@code truncated}), not in frame
 * order (docs/decisions/0032). Each event is stored once, in its typed table, and the view is the
 * union of the typed tables, its {@code kind}, {@code event} and {@code id} constants per table
 * (the id per capture from {@code event_ids}), while the store has up to {@link #UNION_MAX} typed
 * tables: DuckDB plans a union per query (~0.6 ms and ~1 MiB per table). With more, the build
 * also writes every event's common columns into the table {@code event_rows_wide} (those read so
 * far copied from the typed tables once) and the view reads it. The view is (re)made in the
 * typed tables' transaction ({@link #view}), so a reader of a growing store sees every event
 * committed. The building thread's; the statements run on the typed tables' {@link Inserter}.
 */
final class EventRows {
    /** The most typed tables {@code event_rows} is a union of. */
    static final int UNION_MAX = 32;
    private static final List<String> WIDE = List.of("frame BIGINT", "ts BIGINT", "trace_ts BIGINT", "cpu SMALLINT",
            "pid INTEGER", "kind USMALLINT", "id USMALLINT", "flags UTINYINT", "preempt_count UTINYINT",
            "file_offset BIGINT", "capture USMALLINT");

    private final TypedTables typed;
    private final int unionMax;
    /** Each kind's id by capture ({@code event_ids}). */
    private final Map<Integer, TreeMap<Integer, Integer>> ids = new HashMap<>();
    /** True while the view names every id (and, a union, as many tables as {@link #viewedTables}). */
    private boolean viewed;
    private int viewedTables;
    /** {@code event_rows_wide}'s batch once the store has more than {@link #unionMax} tables; else null. */
    private TableBatch wide;

    /**
     * @param typed    the typed tables (their connection, inserter and function)
     * @param unionMax the most typed tables the view is a union of ({@link #UNION_MAX}; a test's other)
     */
    EventRows(TypedTables typed, int unionMax) {
        this.typed = typed;
        this.unionMax = unionMax;
    }

    /** {@code event_rows_wide}'s batch, or null while the view is a union. */
    TableBatch wide() {
        return wide;
    }

    /**
     * Notes the id an event has in a capture (its format's {@code ID}) the first time the capture
     * shows that kind ({@code seen}: the capture's kinds so far): a row of {@code event_ids},
     * written after the table's {@code event_tables} row.
     */
    void eventId(BitSet seen, int kind, int capture, int id) throws SQLException {
        if (seen.get(kind)) {
            return;
        }
        seen.set(kind);
        ids.computeIfAbsent(kind, k -> new TreeMap<>()).put(capture, id);
        viewed = false;
        typed.inserter().submit(() -> {
            try (var ps = typed.db().prepareStatement("INSERT INTO event_ids VALUES (?, ?, ?)")) {
                ps.setInt(1, kind);
                ps.setInt(2, capture);
                ps.setInt(3, id);
                ps.executeUpdate();
            }
        });
    }

    /**
     * True when the store has just got more typed tables than a union takes: the caller writes
     * every batch, then calls {@link #widen}.
     */
    boolean widenDue() {
        return wide == null && typed.tables().size() > unionMax;
    }

    /**
     * Makes {@code event_rows_wide}, copies the common columns of every typed row written so far
     * into it (one {@code INSERT} per table: not a union) and returns its batch, which then takes
     * each event's row ({@link #put}). Call once every batch is written.
     */
    TableBatch widen() throws SQLException {
        List<String> copies = new ArrayList<>();
        String columns = String.join(", ", WIDE.stream().map(c -> c.substring(0, c.indexOf(' '))).toList());
        for (Map.Entry<String, TypedTables.Table> e : typed.byEvent().entrySet()) {
            copies.add("INSERT INTO event_rows_wide SELECT " + columns + " FROM (" + branch(e) + ")");
        }
        typed.inserter().submit(() -> {
            try (Statement s = typed.db().createStatement()) {
                s.execute("CREATE TABLE event_rows_wide(" + String.join(", ", WIDE) + ")");
                for (String c : copies) {
                    s.execute(c);
                }
            }
        });
        wide = new TableBatch("event_rows_wide", WIDE.stream().map(c -> c.substring(c.indexOf(' ') + 1)).toList(),
                typed.function());
        viewed = false;
        return wide;
    }

    /** An event's row of {@code event_rows_wide} (only once {@link #widen widened}); true when the batch is full. */
    boolean put(long frame, long ts, long traceTs, int cpu, int pid, int kind, int id, long flags, long preempt,
                long offset, int capture) {
        TableBatch w = wide;
        w.put(0, frame);
        w.put(1, ts);
        w.put(2, traceTs);
        w.put(3, cpu);
        w.put(4, pid);
        w.put(5, kind);
        w.put(6, id);
        w.put(7, flags);
        w.put(8, preempt);
        if (offset >= 0) {
            w.put(9, offset);
        } else {
            w.putNull(9);
        }
        w.put(10, capture);
        return w.endRow();
    }

    /** (Re)creates the view when a table or an id came since it was made (a work of the typed tables' inserter). */
    void view() throws SQLException {
        if (viewed && (wide != null || viewedTables == typed.tables().size())) {
            return;
        }
        viewed = true;
        viewedTables = typed.tables().size();
        String rows;
        if (wide != null) {
            rows = "SELECT r.frame, r.ts, r.trace_ts, r.cpu, r.pid, r.kind, k.event, r.id, r.flags, r.preempt_count,"
                    + " r.file_offset, r.capture FROM event_rows_wide r JOIN event_tables k ON k.kind = r.kind";
        } else {
            List<String> branches = new ArrayList<>();
            for (Map.Entry<String, TypedTables.Table> e : typed.byEvent().entrySet()) {
                branches.add(branch(e));
            }
            rows = branches.isEmpty() ? NO_EVENTS : String.join(" UNION ALL ", branches);
        }
        String ddl = "CREATE OR REPLACE VIEW event_rows AS SELECT *, frame IN (SELECT frame FROM truncated_frames) AS truncated"
                + " FROM (" + rows + ")";
        typed.inserter().submit(() -> {
            try (Statement s = typed.db().createStatement()) {
                s.execute(ddl);
            }
        });
    }

    /** One typed table (event name → table) as rows of the view ({@link #BRANCH}). */
    private String branch(Map.Entry<String, TypedTables.Table> e) {
        TypedTables.Table t = e.getValue();
        return BRANCH.replace("$KIND", Integer.toString(t.kind)).replace("$EVENT", Sql.literal(e.getKey()))
                .replace("$ID", id(t.kind)).replace("$T", Sql.quote(t.name));
    }

    /** A kind's id: one number, or a CASE over the captures whose formats differ. */
    private String id(int kind) {
        TreeMap<Integer, Integer> byCapture = ids.getOrDefault(kind, new TreeMap<>());
        if (byCapture.isEmpty()) {
            return "NULL::USMALLINT";
        }
        if (new HashSet<>(byCapture.values()).size() == 1) {
            return byCapture.firstEntry().getValue() + "::USMALLINT";
        }
        StringBuilder id = new StringBuilder("CASE capture");
        byCapture.forEach((c, v) -> id.append(" WHEN ").append(c).append(" THEN ").append(v));
        return id.append(" END::USMALLINT").toString();
    }

    /** One typed table ({@code $T}) as rows of the view. */
    private static final String BRANCH = "SELECT frame, ts, trace_ts, common_cpu AS cpu, common_pid AS pid,"
            + " $KIND::USMALLINT AS kind, $EVENT AS event, $ID AS id, common_flags AS flags,"
            + " common_preempt_count AS preempt_count, file_offset, capture FROM $T";
    /** The rows of a store without events. */
    private static final String NO_EVENTS = "SELECT NULL::BIGINT AS frame, NULL::BIGINT AS ts, NULL::BIGINT AS trace_ts,"
            + " NULL::SMALLINT AS cpu, NULL::INTEGER AS pid, NULL::USMALLINT AS kind, NULL::VARCHAR AS event,"
            + " NULL::USMALLINT AS id, NULL::UTINYINT AS flags, NULL::UTINYINT AS preempt_count,"
            + " NULL::BIGINT AS file_offset, NULL::USMALLINT AS capture WHERE false";
}
