package org.tracewire.app.histogram;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.tracewire.analysis.HistEntry;
import org.tracewire.analysis.HistField;
import org.tracewire.analysis.HistKey;
import org.tracewire.analysis.HistSort;
import org.tracewire.analysis.HistSpec;
import org.tracewire.analysis.HistSpecException;
import org.tracewire.analysis.HistTable;
import org.tracewire.filter.Filter;
import org.tracewire.filter.SqlFilterCompiler;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.input.RecordInput;

/**
 * Hist-trigger tables and flame graphs over every event of a capture store, as SQL GROUP BY on the
 * event's typed table (no JavaFX; call it on the thread that owns the connection). A key is what
 * {@link org.tracewire.analysis.HistAggregator} keys a record by: a field's value (the u64 bits of
 * a number; {@code .log2} and {@code .buckets=N} computed as the kernel does), a string field,
 * {@code common_pid}, {@code common_cpu}, or {@code stacktrace} — the event's kernel stack from the
 * store's {@code stack} view, innermost function first ({@value #ARROW}-joined, as the kernel's
 * {@code .stacktrace} key lists it), {@value #NO_STACK} for an event without one. An event's stack
 * is the first stack record after it on its CPU: a stack taken in an interrupt that came while
 * another event's stack was being saved follows the interrupt's event, and the store's view ties
 * the interrupted event's stack to that event too; only the first counts. Every matching
 * event is counted: the table holds {@code size} entries in its sort order, and says how many
 * there are in all ({@link HistTable#entryCount()}); nothing is dropped.
 */
public final class StoreHistogram {
    /** Between two functions of a stacktrace key, innermost first. */
    public static final String ARROW = " ← ";
    /** The stacktrace key of an event the capture recorded no stack for. */
    public static final String NO_STACK = "(no stack)";
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    private final Connection db;
    private final Map<String, String> tables = new LinkedHashMap<>();
    private final Map<String, Long> counts = new LinkedHashMap<>();
    private final Map<String, EventFormat> formats = new HashMap<>();
    private final Map<Integer, String> comms = new HashMap<>();
    private final boolean stacks;

    /**
     * A table and how much of the store it covers.
     *
     * @param table   the entries (at most the spec's size, in its order), hits = events counted,
     *                entryCount = every distinct key, dropped 0
     * @param events  events of the type in the store (counted or filtered out)
     */
    public record Result(HistTable table, long events) {
    }

    /**
     * Folded stacks of a selection: each distinct stack, root first joined by {@code ;} (Brendan
     * Gregg's folded format): the user stack's frames (a capture with {@code --stack=user|both}),
     * then the kernel stack's, with the events that have it.
     *
     * @param folded   stack → events
     * @param matched  events of the selection
     * @param noStack  of them, events with no stack recorded
     */
    public record Folded(Map<String, Long> folded, long matched, long noStack) {
    }

    private StoreHistogram(Connection db, boolean stacks) {
        this.db = db;
        this.stacks = stacks;
    }

    /**
     * Reads what the store holds: its event tables and counts, task names, whether it has stacks,
     * and the formats (from the file, for filters and field kinds).
     *
     * @param db   a connection to the store's database
     * @param file the capture the store was built from
     * @return the reader
     * @throws SQLException when DuckDB fails, or the file cannot be read again (its message)
     */
    public static StoreHistogram open(Connection db, Path file) throws SQLException {
        return open(db, file, Map.of());
    }

    /**
     * Like {@link #open(Connection, Path)}, the formats of {@code known} events taken as they are
     * (a store that grows is read again at each commit; its file is opened only for a new event).
     *
     * @param known formats read before, by {@code system:event}
     */
    public static StoreHistogram open(Connection db, Path file, Map<String, EventFormat> known) throws SQLException {
        boolean stacks;
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.tables WHERE table_catalog = current_database()"
                     + " AND table_schema = 'main' AND table_name = 'stack'")) {
            rs.next();
            stacks = rs.getLong(1) > 0;
        }
        StoreHistogram h = new StoreHistogram(db, stacks);
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT k.event, k.table_name, coalesce(n.n, 0) FROM s0.event_tables k LEFT JOIN"
                     + " (SELECT event, count(*) AS n FROM events GROUP BY event) n ON n.event = k.event ORDER BY k.event")) {
            while (rs.next()) {
                h.tables.put(rs.getString(1), rs.getString(2));
                h.counts.put(rs.getString(1), rs.getLong(3));
            }
        }
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT pid, arg_max(comm, capture) FROM tasks GROUP BY pid")) {
            while (rs.next()) {
                h.comms.put(rs.getInt(1), rs.getString(2));
            }
        }
        for (String ev : h.tables.keySet()) {
            if (known.get(ev) != null) {
                h.formats.put(ev, known.get(ev));
            }
        }
        if (h.formats.keySet().containsAll(h.tables.keySet())) {
            return h;
        }
        try (RecordInput in = RecordInput.open(file, null)) {
            for (String ev : h.tables.keySet()) {
                EventFormat f = in.catalog().byName(ev);
                if (f != null) {
                    h.formats.put(ev, f);
                }
            }
        } catch (IOException e) {
            throw new SQLException(file + ": " + e.getMessage(), e);
        }
        return h;
    }

    /** Events of each type in the store ({@code system:event} → count), sorted by name. */
    public Map<String, Long> eventCounts() {
        return counts;
    }

    /** True when the store has the {@code stack} view (the capture recorded stacks). */
    public boolean hasStacks() {
        return stacks;
    }

    /** The format of an event of the store, or null. */
    public EventFormat format(String event) {
        return formats.get(event);
    }

    /** The store's name of a task (its last in the file), or null. */
    public String comm(int pid) {
        return comms.get(pid);
    }

    /** Whether a key names the event's stack. */
    public static boolean isStack(String name) {
        return name.equals("stacktrace") || name.equals("common_stacktrace");
    }

    /**
     * The table of a spec over every event of a type.
     *
     * @param event {@code system:event}
     * @param spec  keys, values, sort, size, filter
     * @return the table
     * @throws HistSpecException when a key or value does not fit the event (or the filter does not)
     * @throws SQLException      when DuckDB fails
     */
    public Result aggregate(String event, HistSpec spec) throws SQLException {
        EventFormat f = formats.get(event);
        String table = tables.get(event);
        if (f == null || table == null) {
            throw new HistSpecException(-1, "no events of " + event + " in this store");
        }
        Keys keys = keys(event, f, spec);
        List<String> values = new ArrayList<>();
        for (HistField v : spec.values()) {
            Field fd = field(f, v.name());
            if (fd != null && isString(fd)) {
                throw new HistSpecException(-1, v.name() + " is a string: values are sums of numbers");
            }
            values.add("sum(" + column(f, v.name()) + "::HUGEINT)");
        }
        String from = source(table, f, spec.filter(), keys.stack());
        StringBuilder select = new StringBuilder("SELECT ");
        for (int i = 0; i < keys.sql().size(); i++) {
            select.append(keys.sql().get(i)).append(" AS k").append(i).append(", ");
        }
        select.append("count(*) AS hitcount");
        for (int i = 0; i < values.size(); i++) {
            select.append(", ").append(values.get(i)).append(" AS v").append(i);
        }
        select.append(" FROM ").append(from).append(" GROUP BY ALL");
        long events;
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + quote(table))) {
            rs.next();
            events = rs.getLong(1); // now: a growing store holds more than when it was opened
        }
        return new Result(groups(select.toString(), spec, keys.string(), values.size()), events);
    }

    /**
     * A spec's keys as SQL over the event's typed table {@code x} (joined to the stack path
     * {@code st.path} when a key is the stack).
     *
     * @param sql    each key's expression
     * @param string per key: true when it is a string (a string field or the stack)
     * @param stack  true when a key is the stack
     */
    private record Keys(List<String> sql, List<Boolean> string, boolean stack) {
    }

    private Keys keys(String event, EventFormat f, HistSpec spec) {
        List<String> keys = new ArrayList<>();
        List<Boolean> stringKey = new ArrayList<>();
        boolean stackKey = false;
        for (HistField k : spec.keys()) {
            if (isStack(k.name())) {
                if (!stacks) {
                    throw new HistSpecException(-1, "stacktrace: this capture recorded no stacks (capture with -e " + event + " --stack)");
                }
                stackKey = true;
                keys.add("coalesce(st.path, " + literal(NO_STACK) + ")");
                stringKey.add(true);
                continue;
            }
            Field fd = field(f, k.name());
            boolean str = fd != null && isString(fd);
            if (str && k.modifier() != HistField.Modifier.NONE) {
                throw new HistSpecException(-1, k.name() + " is a string: ." + k.modifier().text() + " is for numbers");
            }
            keys.add(str ? "x." + quote(fd.name()) : numberKey(k, column(f, k.name())));
            stringKey.add(str);
        }
        return new Keys(keys, stringKey, stackKey);
    }

    /**
     * Runs the GROUP BY into a temporary table and reads its first {@code spec.size()} entries in
     * the spec's order, with the hits and entries of the whole.
     */
    private HistTable groups(String select, HistSpec spec, List<Boolean> stringKey, int values) throws SQLException {
        long hits;
        long entries;
        List<HistEntry> out = new ArrayList<>();
        try (Statement s = db.createStatement()) {
            s.execute("CREATE OR REPLACE TEMP TABLE app_hist AS " + select);
            try (ResultSet rs = s.executeQuery("SELECT count(*), coalesce(sum(hitcount), 0) FROM app_hist")) {
                rs.next();
                entries = rs.getLong(1);
                hits = rs.getLong(2);
            }
            try (ResultSet rs = s.executeQuery("SELECT * FROM app_hist ORDER BY " + order(spec, stringKey.size()) + " LIMIT " + spec.size())) {
                while (rs.next()) {
                    out.add(entry(rs, spec, stringKey, values));
                }
            }
            s.execute("DROP TABLE app_hist");
        }
        return new HistTable(spec.toTriggerText(), spec, spec.keys().stream().map(HistField::name).toList(),
                spec.values().stream().map(HistField::name).toList(), out, hits, entries, 0);
    }

    private HistEntry entry(ResultSet rs, HistSpec spec, List<Boolean> stringKey, int values) throws SQLException {
        List<HistKey> key = new ArrayList<>();
        for (int i = 0; i < stringKey.size(); i++) {
            if (stringKey.get(i)) {
                String v = rs.getString("k" + i);
                key.add(HistKey.of(v == null ? "" : v));
            } else {
                long n = bits(rs.getString("k" + i));
                key.add(label(spec.keys().get(i), n));
            }
        }
        List<Long> sums = new ArrayList<>();
        for (int i = 0; i < values; i++) {
            sums.add(bits(rs.getString("v" + i)));
        }
        return new HistEntry(key, rs.getLong("hitcount"), sums);
    }

    /**
     * The folded stacks (user, then kernel) of the events of a type that a filter selects.
     *
     * @param event  {@code system:event}
     * @param filter the kernel filter, or null for every event of the type
     * @return the folded stacks
     * @throws HistSpecException when the filter does not fit the event, or the store has no stacks
     * @throws SQLException      when DuckDB fails
     */
    public Folded folded(String event, Filter filter) throws SQLException {
        EventFormat f = formats.get(event);
        String table = tables.get(event);
        if (f == null || table == null) {
            throw new HistSpecException(-1, "no events of " + event + " in this store");
        }
        if (!stacks) {
            throw new HistSpecException(-1, "this capture recorded no stacks (capture with -e " + event + " --stack)");
        }
        Map<String, Long> folded = new LinkedHashMap<>();
        long matched = 0;
        long none = 0;
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT st.folded, count(*) FROM " + source(table, f, filter, true)
                     + " GROUP BY st.folded ORDER BY count(*) DESC, st.folded")) {
            while (rs.next()) {
                String path = rs.getString(1);
                long n = rs.getLong(2);
                matched += n;
                if (path == null) {
                    none += n;
                } else {
                    folded.put(path, n);
                }
            }
        }
        return new Folded(folded, matched, none);
    }

    /** The rows a spec counts: the typed table (with the task's fields and the stack joined in where needed), filtered. */
    private String source(String table, EventFormat f, Filter filter, boolean stack) {
        String cond = filter == null ? null : SqlFilterCompiler.compile(filter, f);
        String rows = SqlFilterCompiler.relation(table, cond);
        String from = "(SELECT * FROM " + rows + (cond == null ? "" : " WHERE " + cond) + ") x";
        if (stack) {
            // a stack line's name as report prints it: the symbol, 0x%08x when unknown, 0 for 0
            String name = "CASE WHEN address = 0 THEN '0' ELSE coalesce(func, printf('0x%08x', address)) END";
            // path: the kernel stack (the hist trigger's key); folded: user frames, then kernel frames, root first
            from += " LEFT JOIN (SELECT host, event_frame, string_agg(" + name + ", " + literal(ARROW)
                    + " ORDER BY depth) FILTER (WHERE kind = 'kernel') AS path,"
                    + " string_agg(" + name + ", ';' ORDER BY kind = 'kernel', depth DESC) AS folded FROM (SELECT * FROM stack"
                    + " QUALIFY stack_frame = min(stack_frame) OVER (PARTITION BY host, event_frame, kind))"
                    + " GROUP BY host, event_frame) st ON st.host = x.host AND st.event_frame = x.frame";
        }
        return from;
    }

    private static Field field(EventFormat f, String name) {
        return f.field(name);
    }

    private static boolean isString(Field fd) {
        FieldKind k = fd.kind();
        return k == FieldKind.CHAR_ARRAY || k == FieldKind.DYNAMIC_STRING || (k == FieldKind.ARRAY && fd.type().contains("char"));
    }

    /** The SQL of a numeric key or value field. */
    private static String column(EventFormat f, String name) {
        if (name.equals("common_cpu") || name.equals("cpu")) {
            return "x.common_cpu";
        }
        if (name.equals("common_pid")) {
            return "x.common_pid";
        }
        Field fd = f.field(name);
        if (fd == null) {
            throw new HistSpecException(-1, "no field '" + name + "' in " + f.fullName());
        }
        FieldKind k = fd.kind();
        if (!((k == FieldKind.INTEGER || k == FieldKind.POINTER) && (fd.size() == 1 || fd.size() == 2 || fd.size() == 4 || fd.size() == 8))) {
            throw new HistSpecException(-1, name + " (" + fd.declaration() + ") is neither a number nor a string");
        }
        return "x." + quote(fd.name());
    }

    /** A numeric key under its modifier, as HistAggregator computes it on the value's u64 bits. */
    private static String numberKey(HistField k, String col) {
        String u = "(CASE WHEN " + col + " < 0 THEN " + col + "::HUGEINT + " + TWO_64 + " ELSE " + col + "::HUGEINT END)";
        return switch (k.modifier()) {
            // ilog2(roundup_pow_of_two(v)) = fls(v - 1) & 63: 0 for v <= 1 and for v > 2^63
            case LOG2 -> "(CASE WHEN " + u + " <= 1 OR " + u + " > " + TWO_64.shiftRight(1) + " THEN 0 ELSE " + bitLength(u + " - 1")
                    + " END)";
            case BUCKETS -> "((" + u + " // " + k.buckets() + ") * " + k.buckets() + ")";
            default -> col + "::HUGEINT";
        };
    }

    /** The bit length of a positive HUGEINT expression: floor(log2(x)) + 1, corrected where the double rounds. */
    private static String bitLength(String x) {
        String l = "floor(log2((" + x + ")::DOUBLE))::INTEGER";
        return "(" + l + " + 1 - CASE WHEN (1::HUGEINT << " + l + ") > (" + x + ") THEN 1 ELSE 0 END"
                + " + CASE WHEN (1::HUGEINT << (" + l + " + 1)) <= (" + x + ") THEN 1 ELSE 0 END)";
    }

    /** ORDER BY of a spec's sort, then the keys. */
    private static String order(HistSpec spec, int keys) {
        List<String> by = new ArrayList<>();
        for (HistSort s : spec.sort()) {
            String col = "hitcount";
            for (int i = 0; i < spec.values().size(); i++) {
                if (spec.values().get(i).name().equals(s.field())) {
                    col = "v" + i;
                }
            }
            for (int i = 0; i < spec.keys().size(); i++) {
                if (spec.keys().get(i).name().equals(s.field())) {
                    col = "k" + i;
                }
            }
            by.add(col + (s.descending() ? " DESC" : ""));
        }
        for (int i = 0; i < keys; i++) {
            by.add("k" + i);
        }
        return String.join(", ", by);
    }

    /** A key's number with the label its modifier shows (the task's name for {@code .execname}). */
    private HistKey label(HistField k, long n) {
        if (k.modifier() == HistField.Modifier.EXECNAME) {
            String c = comms.get((int) n);
            return c == null ? HistKey.of(n) : new HistKey(n, null, c);
        }
        return HistKey.of(n);
    }

    /** A HUGEINT's text as its low 64 bits (Java's wrap-around, as HistAggregator sums). */
    private static long bits(String text) {
        return text == null ? 0 : new BigInteger(text).longValue();
    }

    private static String quote(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
