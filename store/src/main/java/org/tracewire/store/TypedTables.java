package org.tracewire.store;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.duckdb.DuckDBConnection;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.TaskFields;
import org.tracewire.record.EventRecord;
import org.tracewire.tracetext.StackText;

/**
 * The typed tables of a {@link StoreBuilder build}: one per event ({@code system:name}), made when
 * its first event comes, a column per format field ({@link TypedColumn}) after the key columns
 * {@link #KEYS}, and a row of {@code event_tables} naming it; and per format (several captures of a
 * file may each bring one of the same event) the {@link Writer} that fills its table's rows. A
 * table is named after the event; the system's name is put before it ({@code raw_syscalls__sys_enter})
 * when another system of the input has an event of that name, or the name is taken or reserved.
 * Not thread-safe: the building thread's (its statements run on the build's {@link Inserter}).
 */
final class TypedTables {
    /** Names a typed table may not take (the store's own tables and views). */
    static final Set<String> RESERVED = Set.of("events", "event_rows", "event_rows_wide", "frame_runs",
            "truncated_frames", "event_ids", "event_offsets", "context_offsets", "lost", "captures", "event_tables",
            "meta", "symbols", "user_symbols", "stack",
            "sched_slice", "sched_latency", "latency", "thread_state", "event_rate", "sources", "tasks");

    /** The key columns every typed table starts with ({@link TypedColumn#KEY_COLUMNS}). */
    static final List<String> KEYS = List.of("frame BIGINT", "ts BIGINT", "trace_ts BIGINT", "common_cpu SMALLINT",
            "common_pid INTEGER", "common_flags UTINYINT", "common_preempt_count UTINYINT", "file_offset BIGINT",
            "capture USMALLINT");

    /** The typed table of one event (system:name). */
    static final class Table {
        final String name;
        /** Its number: {@code event_rows.kind}, {@code event_tables.kind}. */
        final int kind;
        final List<TypedColumn> columns;
        /** Per column of {@link #columns}, its first batch column ({@link TypedColumn#spread()} from there). */
        final int[] at;
        final TableBatch batch;

        Table(String name, int kind, List<TypedColumn> columns, int[] at, TableBatch batch) {
            this.name = name;
            this.kind = kind;
            this.columns = columns;
            this.at = at;
            this.batch = batch;
        }
    }

    /**
     * What one format (as an object) appends with: its table, its columns in table order (null: a
     * column its format lacks), its common fields, the tgid field of a user stack record (null
     * otherwise), the other fields that name a task ({@link TaskFields}).
     */
    record Writer(Table table, TypedColumn[] columns, Field pid, Field flags, Field preempt, Field userStackTgid,
                  Field[] taskFields) {
    }

    private final DuckDBConnection db;
    private final Inserter inserter;
    /** The table function the tables' batches are read through ({@link BatchFunction}). */
    private final String function;
    private final Supplier<FormatCatalog> catalog;
    private final Map<EventFormat, Writer> writers = new IdentityHashMap<>();
    private final Map<String, Table> tables = new LinkedHashMap<>();

    /**
     * @param db       the connection its statements run on (the build's, or the typed tables' own)
     * @param inserter where its statements run (a table's {@code CREATE} before its first {@code INSERT})
     * @param function the name the build's {@link BatchFunction} for these tables is registered as
     * @param catalog  the input's formats as known so far (asked when a table is made)
     */
    TypedTables(DuckDBConnection db, Inserter inserter, String function, Supplier<FormatCatalog> catalog) {
        this.db = db;
        this.inserter = inserter;
        this.function = function;
        this.catalog = catalog;
    }

    /** Creates {@code event_tables}: kind, event ({@code system:name}), system, name, table_name. */
    static void create(Statement s) throws SQLException {
        s.execute("CREATE TABLE event_tables(kind USMALLINT, event VARCHAR, system VARCHAR, name VARCHAR, table_name VARCHAR)");
        s.execute("CREATE TABLE event_ids(kind USMALLINT, capture USMALLINT, id USMALLINT)");
    }

    /** The tables by event ({@code system:name}), in the order made (kind 0, 1, …). */
    Map<String, Table> byEvent() {
        return tables;
    }

    /** Its connection and inserter (the typed tables' transaction). */
    DuckDBConnection db() {
        return db;
    }

    Inserter inserter() {
        return inserter;
    }

    /** The name of the table function its batches are written with. */
    String function() {
        return function;
    }

    /** The tables made so far, in the order made. */
    Collection<Table> tables() {
        return tables.values();
    }

    /** The writer of a record's format (its table made if it is the event's first). */
    Writer writer(EventRecord r) throws SQLException {
        Writer w = writers.get(r.format());
        return w != null ? w : newWriter(r);
    }

    private Writer newWriter(EventRecord r) throws SQLException {
        EventFormat f = r.format();
        List<TypedColumn> cols = new ArrayList<>();
        for (Field field : f.fields()) {
            cols.add(TypedColumn.of(f, field, r.layout().longSize()));
        }
        Table t = tables.get(f.fullName());
        if (t == null) {
            t = newTable(f, cols);
            tables.put(f.fullName(), t);
        }
        // Another format of the same event (a second capture in the file): its fields by name and
        // SQL type; a field the table lacks, or of another type, is not stored (NULL).
        TypedColumn[] order = new TypedColumn[t.columns.size()];
        for (int i = 0; i < order.length; i++) {
            TypedColumn want = t.columns.get(i);
            for (TypedColumn c : cols) {
                if (c.field().name().equals(want.field().name()) && c.sqlType().equals(want.sqlType())
                        && c.spread() == want.spread()) {
                    order[i] = c;
                }
            }
        }
        // a user stack record (decided once per format): its frames' functions go to user_symbols
        Field tgid = StackText.kind(f) == StackText.Kind.USER ? f.field("tgid") : null;
        Field[] named = TaskFields.of(f).stream().map(TaskFields.TaskField::pid).filter(p -> !p.common())
                .toArray(Field[]::new);
        Writer w = new Writer(t, order, f.field("common_pid"), f.field("common_flags"), f.field("common_preempt_count"),
                tgid != null && tgid.size() == 4 ? tgid : null, named);
        writers.put(f, w);
        return w;
    }

    /** Creates the table of an event and its {@code event_tables} row. */
    private Table newTable(EventFormat f, List<TypedColumn> cols) throws SQLException {
        String name = tableName(f);
        StringBuilder ddl = new StringBuilder("CREATE TABLE ").append(Sql.quote(name))
                .append('(').append(String.join(", ", KEYS));
        List<String> types = new ArrayList<>();
        KEYS.forEach(k -> types.add(k.substring(k.indexOf(' ') + 1)));
        int[] spreads = new int[KEYS.size() + cols.size()];
        Arrays.fill(spreads, 1);
        int[] at = new int[cols.size()];
        int next = KEYS.size();
        for (int i = 0; i < cols.size(); i++) {
            TypedColumn c = cols.get(i);
            ddl.append(", ").append(Sql.quote(c.name())).append(' ').append(c.sqlType());
            types.add(c.sqlType());
            spreads[KEYS.size() + i] = c.spread();
            at[i] = next;
            next += c.spread();
        }
        ddl.append(')');
        int kind = tables.size();
        String event = f.fullName();
        String system = f.system();
        String eventName = f.name();
        inserter.submit(() -> { // handed over before the table's first batch
            try (Statement s = db.createStatement()) {
                s.execute(ddl.toString());
            }
            try (var ps = db.prepareStatement("INSERT INTO event_tables VALUES (?, ?, ?, ?, ?)")) {
                ps.setInt(1, kind);
                ps.setString(2, event);
                ps.setString(3, system);
                ps.setString(4, eventName);
                ps.setString(5, name);
                ps.executeUpdate();
            }
        });
        return new Table(name, kind, cols, at, new TableBatch(name, types, spreads, function));
    }

    /**
     * True when another system of the input's catalog has an event of this name. Asked when the
     * event's table is made: a pcapng read in one pass has its capture's formats by then (they come
     * before its first event).
     */
    private boolean ambiguous(EventFormat f) {
        for (EventFormat o : catalog.get().formats()) {
            if (o.name().equals(f.name()) && !o.system().equals(f.system())) {
                return true;
            }
        }
        return false;
    }

    private String tableName(EventFormat f) {
        String name = plain(f.name());
        if (ambiguous(f) || RESERVED.contains(name) || taken(name)) {
            name = plain(f.system()) + "__" + name;
        }
        for (int n = 2; taken(name); n++) {
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

    private boolean taken(String name) {
        for (Table t : tables.values()) {
            if (t.name.equals(name)) {
                return true;
            }
        }
        return false;
    }
}
