package org.tracewire.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.tracewire.store.CaptureStore.Source;

/**
 * The views of a {@link CaptureStore} over its attached sources ({@code s0}, {@code s1}, …): reads
 * each source's counts ({@code meta}), captures (hosts: a name taken twice gets {@code -2}, …),
 * event tables and columns, then (re)creates {@code sources}, the unions ({@code events},
 * {@code lost}, one view per typed table, …) and the derived views ({@link DerivedViews}), each
 * with {@code CREATE OR REPLACE} so a reader never finds a view missing while a followed store grows.
 * Errors: SQLException from DuckDB for a source it cannot read; a derived view that cannot be
 * made is noted in {@link #missingViews} instead.
 */
final class UnionViews {
    /** The sources with their counts as read now. */
    final List<Source> sources;
    /** Derived views not made, with the reason (see {@link CaptureStore#missingViews()}). */
    final Map<String, String> missingViews = new LinkedHashMap<>();
    private final Map<String, List<Integer>> tablesBySource = new LinkedHashMap<>();
    // system:event -> its table in each source (a name taken twice makes it system__event in that source only)
    private final Map<String, Map<String, List<Integer>>> tablesByEvent = new TreeMap<>();
    private final List<Map<String, Set<String>>> columnsBySource = new ArrayList<>(); // table -> columns, per source
    private final List<String[]> hosts = new ArrayList<>(); // {source, capture, host}
    private final Set<String> taken = new LinkedHashSet<>();

    private UnionViews(List<Source> sources) {
        this.sources = new ArrayList<>(sources);
    }

    /**
     * Reads the catalogs of {@code sources} (attached as {@code s0}, {@code s1}, … on {@code db})
     * and (re)creates the views on {@code db}; the result holds the sources' new counts and the
     * derived views not made.
     */
    static UnionViews create(Connection db, List<Source> sources) throws SQLException {
        UnionViews v = new UnionViews(sources);
        try (Statement s = db.createStatement()) {
            for (int i = 0; i < v.sources.size(); i++) {
                v.read(s, i);
            }
            v.unions(s);
            v.derivedViews(s);
        }
        return v;
    }

    /** Reads source {@code i}'s counts, hosts, event tables and columns. */
    private void read(Statement s, int i) throws SQLException {
        Source src = sources.get(i);
        Map<String, String> meta = new HashMap<>();
        try (ResultSet rs = s.executeQuery("SELECT key, value FROM s" + i + ".meta")) {
            while (rs.next()) {
                meta.put(rs.getString(1), rs.getString(2));
            }
        }
        sources.set(i, new Source(src.file(), src.store(), src.built(), Long.parseLong(meta.getOrDefault("events", "0")),
                meta.get("stopped_at")));
        try (ResultSet rs = s.executeQuery("SELECT capture, hostname FROM s" + i + ".captures ORDER BY capture")) {
            while (rs.next()) {
                String h = rs.getString(2);
                if (h == null || h.isBlank()) {
                    h = src.file().getFileName().toString().replaceFirst("\\.(pcapng|dat)$", "");
                }
                String unique = h;
                for (int n = 2; taken.contains(unique); n++) {
                    unique = h + "-" + n;
                }
                taken.add(unique);
                hosts.add(new String[] {Integer.toString(i), rs.getString(1), unique});
            }
        }
        try (ResultSet rs = s.executeQuery("SELECT table_name, event FROM s" + i + ".event_tables ORDER BY table_name")) {
            while (rs.next()) {
                tablesBySource.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(i);
                tablesByEvent.computeIfAbsent(rs.getString(2), k -> new LinkedHashMap<>())
                        .computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(i);
            }
        }
        Map<String, Set<String>> columns = new HashMap<>();
        try (ResultSet rs = s.executeQuery("SELECT table_name, column_name FROM duckdb_columns()"
                + " WHERE database_name = 's" + i + "' AND schema_name = 'main'")) {
            while (rs.next()) {
                columns.computeIfAbsent(rs.getString(1), k -> new HashSet<>()).add(rs.getString(2));
            }
        }
        columnsBySource.add(columns);
    }

    /** {@code sources}, the unions of the fixed tables, {@code events}, one view per typed table. */
    private void unions(Statement s) throws SQLException {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < sources.size(); i++) {
            all.add(i);
        }
        StringBuilder src = new StringBuilder("CREATE OR REPLACE VIEW sources AS ");
        for (int i = 0; i < sources.size(); i++) {
            src.append(i == 0 ? "" : " UNION ALL ").append("SELECT ").append(i).append(" AS source, ")
                    .append(Sql.literal(sources.get(i).file().toString())).append(" AS file, ")
                    .append(Sql.literal(sources.get(i).store().toString())).append(" AS store");
            for (String k : List.of("events", "lost", "complete", "stopped_at", "summary")) {
                src.append(", (SELECT value FROM s").append(i).append(".meta WHERE key = ").append(Sql.literal(k))
                        .append(")").append(k.equals("events") || k.equals("lost") ? "::BIGINT" : k.equals("complete") ? "::BOOLEAN" : "")
                        .append(" AS ").append(k);
            }
        }
        s.execute(src.toString());
        for (String t : List.of("lost", "captures", "tasks", "symbols", "user_symbols")) {
            s.execute("CREATE OR REPLACE VIEW " + t + " AS " + union(t, all, hosts));
        }
        s.execute("CREATE OR REPLACE VIEW events AS " + union(EVENTS, all, hosts));
        for (Map.Entry<String, List<Integer>> t : tablesBySource.entrySet()) {
            s.execute("CREATE OR REPLACE VIEW " + Sql.quote(t.getKey()) + " AS " + union(Sql.quote(t.getKey()), t.getValue(), hosts));
        }
    }

    /** {@code task_state}, {@code stack}, {@code sched_slice}, {@code latency}, {@code thread_state}, {@code event_rate}. */
    private void derivedViews(Statement s) throws SQLException {
        s.execute(TASK_STATE_MACRO);
        List<String> stacks = new ArrayList<>();
        if (tablesBySource.containsKey("kernel_stack")) {
            stacks.add("SELECT host, frame, common_cpu AS cpu, capture, 'kernel' AS kind, NULL::UINTEGER AS tgid,"
                    + " caller FROM kernel_stack");
        }
        if (tablesBySource.containsKey("user_stack")) {
            stacks.add("SELECT host, frame, common_cpu AS cpu, capture, 'user' AS kind, tgid, caller FROM user_stack");
        }
        if (!stacks.isEmpty()) {
            derived(s, "stack", STACK.replace("$STACKS", String.join(" UNION ALL ", stacks)), missingViews);
        }
        if (tablesBySource.containsKey("sched_switch")) {
            derived(s, "sched_slice", SCHED_SLICE, missingViews);
        }
        DerivedViews.Events ev = events();
        // each in a statement of its own: DuckDB JDBC closes a statement whose query failed
        try (Statement ls = s.getConnection().createStatement()) {
            DerivedViews.createLatency(ls, ev, missingViews);
            if (tablesByEvent.containsKey("sched:sched_switch") && (tablesByEvent.containsKey("sched:sched_wakeup")
                    || tablesByEvent.containsKey("sched:sched_wakeup_new"))) {
                derived(s, "sched_latency", DerivedViews.SCHED_LATENCY, missingViews);
            }
        } catch (SQLException e) {
            missingViews.put("latency", firstLines(e));
        }
        derived(s, "thread_state", DerivedViews.threadState(ev), missingViews);
        try (Statement rate = s.getConnection().createStatement()) {
            rate.execute(DerivedViews.EVENT_RATE);
        }
    }

    /** The event types read, as {@link DerivedViews} asks for them. */
    private DerivedViews.Events events() {
        return new DerivedViews.Events() {
            @Override
            public Set<String> names() {
                return tablesByEvent.keySet();
            }

            @Override
            public String relation(String event) {
                return UnionViews.relation(tablesByEvent.get(event), hosts);
            }

            @Override
            public Set<String> columns(String event) {
                Set<String> c = new HashSet<>();
                tablesByEvent.getOrDefault(event, Map.of()).forEach((t, in) -> in.forEach(i ->
                        c.addAll(columnsBySource.get(i).getOrDefault(t, Set.of()))));
                return c;
            }
        };
    }

    /**
     * Creates a derived view, or notes why not: a file whose formats lack a field the view reads
     * (another kernel's {@code sched_switch}, a damaged FORMAT) has the tables, not the view.
     */
    private static void derived(Statement s, String name, String ddl, Map<String, String> missingViews) {
        try (Statement d = s.getConnection().createStatement()) { // a failed query closes its statement
            d.execute(ddl);
        } catch (SQLException e) {
            missingViews.put(name, firstLines(e));
        }
    }

    /** DuckDB's message on one line (its first two lines: the kind of error and what). */
    static String firstLines(SQLException e) {
        String why = String.valueOf(e.getMessage()).strip();
        int nl = why.indexOf('\n');
        return nl > 0 ? why.substring(0, nl) + " " + why.substring(nl + 1).strip() : why;
    }

    /**
     * The rows of one event type over every source, {@code host} first: the union of its table in
     * each source that has it ({@code tables}: table name → sources), in parentheses; null for none.
     */
    static String relation(Map<String, List<Integer>> tables, List<String[]> hosts) {
        if (tables == null) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, List<Integer>> t : tables.entrySet()) {
            sb.append(sb.length() == 0 ? "(" : " UNION ALL BY NAME ").append(union(Sql.quote(t.getKey()), t.getValue(), hosts));
        }
        return sb.append(")").toString();
    }

    /**
     * The body of the {@code events} view over one store ({@code $S}): its {@code event_rows} (a view
     * of the store over its typed tables, made in the build's transaction: docs/decisions/0032)
     * with their task names and tgids (tables of a few rows each) joined in.
     */
    private static final String EVENTS = """
            (SELECT r.frame, r.ts, r.trace_ts, r.cpu, r.pid, t.tgid, t.comm, r.event, r.id, r.flags,
                    r.preempt_count, r.file_offset, r.capture, c.buffer, r.truncated
             FROM $S.event_rows r
             LEFT JOIN $S.tasks t ON t.capture = r.capture AND t.pid = r.pid
             LEFT JOIN $S.captures c ON c.capture = r.capture)""";

    /** A view's body: the table (or subquery over {@code $S}) of each source, with {@code host} first. */
    private static String union(String table, List<Integer> of, List<String[]> hosts) {
        StringBuilder sb = new StringBuilder();
        for (int i : of) {
            StringBuilder host = new StringBuilder("CASE capture");
            int n = 0;
            String only = null;
            for (String[] h : hosts) {
                if (h[0].equals(Integer.toString(i))) {
                    host.append(" WHEN ").append(h[1]).append(" THEN ").append(Sql.literal(h[2]));
                    only = h[2];
                    n++;
                }
            }
            String hostExpr = n == 1 ? Sql.literal(only) : n == 0 ? "NULL::VARCHAR" : host.append(" END").toString();
            sb.append(sb.length() == 0 ? "" : " UNION ALL BY NAME ").append("SELECT ").append(hostExpr)
                    .append(" AS host, * FROM ")
                    .append(table.startsWith("(") ? table.replace("$S", "s" + i) : "s" + i + "." + table);
        }
        return sb.toString();
    }

    /**
     * One row per frame of each stack record ({@code ftrace:kernel_stack}, {@code user_stack},
     * {@code capture --stack}): the event it belongs to ({@code event_frame}: the last event before
     * it on its CPU that is no stack record, as the kernel writes a stack right after its event),
     * the stack record's frame, {@code kind} ({@code kernel} or {@code user}), {@code depth} (1: the
     * innermost call), the {@code address}, and {@code func} and {@code module}: a kernel frame's
     * symbol from the capture's SYMBOLS context, a user frame's function as the capture resolved it
     * in its process ({@code user_symbols}), else NULL.
     *
     * <p>Defined by the table macro {@code stack_between(lo, hi)}: the rows whose stack record's
     * frame is in {@code (lo, hi]}, events looked for from frame {@code lo} on (a row whose event
     * lies before {@code lo} has a NULL {@code event_frame}), so that one event's stacks
     * ({@code stack_of(frame, reach)}: the rows of the event at {@code frame}, its stack records
     * within {@code reach} frames after it) are found without joining every event of the capture.
     */
    static final String STACK = """
            CREATE OR REPLACE MACRO stack_between(lo, hi) AS TABLE
            WITH s AS (SELECT * FROM ($STACKS) WHERE frame > lo AND frame <= hi),
            f AS (SELECT host, frame, cpu, capture, kind, tgid, unnest(caller) AS address,
                         generate_subscripts(caller, 1) AS depth FROM s),
            e AS (SELECT host, cpu, frame FROM events
                  WHERE frame >= lo AND frame < hi AND event NOT IN ('ftrace:kernel_stack', 'ftrace:user_stack'))
            SELECT f.host, e.frame AS event_frame, f.frame AS stack_frame, f.kind, f.depth, f.address,
                   coalesce(k.name, u.name) AS func, coalesce(k.module, u.module) AS module
            FROM f ASOF LEFT JOIN e ON e.host = f.host AND e.cpu = f.cpu AND f.frame > e.frame
            LEFT JOIN symbols k ON f.kind = 'kernel' AND k.host = f.host AND k.capture = f.capture
                                   AND k.address = f.address
            LEFT JOIN user_symbols u ON f.kind = 'user' AND u.host = f.host AND u.capture = f.capture
                                   AND u.tgid = f.tgid AND u.address = f.address;
            CREATE OR REPLACE MACRO stack_of(ev, reach) AS TABLE
            SELECT * FROM stack_between(ev, ev + reach) WHERE event_frame = ev;
            CREATE OR REPLACE VIEW stack AS SELECT * FROM stack_between(-1, 9223372036854775807)""";

    /**
     * {@code task_state(prev_state)}: a task state as {@code sched_switch}'s print fmt prints it on
     * Linux 6.x ({@code R}, or {@code S D T t X Z P I} joined by {@code |}, then {@code +} for
     * TASK_REPORT_MAX, 0x100).
     */
    static final String TASK_STATE_MACRO = """
            CREATE OR REPLACE MACRO task_state(s) AS CASE WHEN s IS NULL THEN NULL ELSE
              (CASE WHEN (s & 255) = 0 THEN 'R' ELSE concat_ws('|',
                 CASE WHEN s & 1 <> 0 THEN 'S' END, CASE WHEN s & 2 <> 0 THEN 'D' END,
                 CASE WHEN s & 4 <> 0 THEN 'T' END, CASE WHEN s & 8 <> 0 THEN 't' END,
                 CASE WHEN s & 16 <> 0 THEN 'X' END, CASE WHEN s & 32 <> 0 THEN 'Z' END,
                 CASE WHEN s & 64 <> 0 THEN 'P' END, CASE WHEN s & 128 <> 0 THEN 'I' END) END)
              || CASE WHEN s & 256 <> 0 THEN '+' ELSE '' END END""";

    /**
     * What ran on each CPU from one {@code sched_switch} to the CPU's next: the task switched in
     * ({@code next_pid}, {@code next_comm}, {@code next_prio}) from {@code ts} for {@code dur} ns,
     * and the state it left in ({@code end_state}: the next switch's {@code prev_state}). The last
     * slice of each CPU has no end: {@code dur} and {@code end_state} are NULL. Idle is pid 0.
     */
    static final String SCHED_SLICE = """
            CREATE OR REPLACE VIEW sched_slice AS
            SELECT host, common_cpu AS cpu, ts, lead(ts) OVER w - ts AS dur, next_pid AS pid, next_comm AS comm,
                   next_prio AS prio, task_state(lead(prev_state) OVER w) AS end_state,
                   frame, lead(frame) OVER w AS end_frame, lead(prev_pid) OVER w AS end_prev_pid
            FROM sched_switch
            WINDOW w AS (PARTITION BY host, common_cpu ORDER BY ts, frame)""";
}
