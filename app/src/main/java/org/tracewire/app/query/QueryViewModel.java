package org.tracewire.app.query;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.beans.value.ObservableValue;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.collections.ObservableListBase;
import org.tracewire.app.capture.StoreQueries;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.session.SessionStore;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.store.QueryOutput;

/**
 * The query view's model (Perfetto's query page; GUI-free): SQL over an opened capture's store
 * ({@link org.tracewire.store.CaptureStore}, schema in {@code docs/store.md}) on a worker thread
 * with a connection of its own ({@link StoreQueries}), cancellable.
 *
 * <p>A query's result is kept in DuckDB, not in the JVM: a SELECT (or WITH, FROM, VALUES, …) is
 * run as {@code CREATE OR REPLACE TABLE app_query.result AS <query>} in the store's in-memory
 * database, counted, and read by pages of {@value #PAGE} rows as the table scrolls
 * ({@link Result#rows()} is a virtual list). A statement DuckDB does not take after
 * {@code CREATE TABLE … AS} (DESCRIBE, SHOW, SET, PRAGMA, …) runs as it is, its result read into
 * memory up to {@value #RAW_ROWS} rows. DuckDB's errors are shown as its text (line numbers those
 * of the user's query). The chart takes the first {@value #CHART_ROWS} rows. "Show these events"
 * restricts the event table to the result's {@code frame} column
 * ({@link StoreTable#restrictToFrames}). The queries run are kept as a history in the
 * {@link SessionStore} (newest first).
 *
 * <p>Threads: properties are read and written on the UI thread; SQL runs on the worker.
 */
public final class QueryViewModel {
    /** Rows per page read from a stored result. */
    public static final int PAGE = 256;
    /** Rows of a result the chart takes at most. */
    public static final int CHART_ROWS = 10_000;
    /** Bars a bar chart shows at most. */
    public static final int CHART_BARS = 200;
    /** Rows read of a result that is not stored (DESCRIBE, SHOW, PRAGMA, …). */
    public static final int RAW_ROWS = 10_000;
    /** Series a chart draws at most (numeric columns after the first). */
    public static final int CHART_SERIES = 4;
    /** The table a stored result is kept in (the store's in-memory database, so every connection reads it). */
    public static final String RESULT_TABLE = "app_query.result";
    /** What a row not fetched yet shows. */
    public static final List<String> LOADING = List.of();

    private static final Pattern LINE = Pattern.compile("(?m)^LINE (\\d+):");
    private static final String WRAP = "CREATE OR REPLACE TABLE " + RESULT_TABLE + " AS\n";

    /**
     * A column of a result or of a table in the schema.
     *
     * @param name    its name
     * @param type    DuckDB's type name
     * @param numeric an integer, decimal or floating-point type
     * @param time    a point in time: a TIMESTAMP/DATE type, or an integer named {@code ts} or {@code *_ts} (ns)
     */
    public record Column(String name, String type, boolean numeric, boolean time) {
    }

    /**
     * A table or view of the store, for the schema beside the editor.
     *
     * @param name    its name
     * @param view    a view (else a table)
     * @param columns its columns in order
     */
    public record SchemaTable(String name, boolean view, List<Column> columns) {
    }

    /**
     * The result of a query.
     *
     * @param seq     the query's number in this session (1, 2, …)
     * @param sql     the query
     * @param columns the columns
     * @param count   rows in the result (all of them, not only those read)
     * @param stored  kept in {@link #RESULT_TABLE} (read by pages), else read into memory
     * @param note    what else to say ("first 10,000 rows", "3 rows changed"), or empty
     * @param ms      time the query took, ms
     * @param rows    the rows: a virtual list of {@code count} rows (at most {@value #RAW_ROWS} when
     *                not stored), a row not fetched yet {@link #LOADING}
     */
    public record Result(long seq, String sql, List<Column> columns, long count, boolean stored, String note, long ms,
                         ObservableList<List<String>> rows) {
        /** The index of the column named {@code frame}, or -1. */
        public int frameColumn() {
            for (int i = 0; i < columns.size(); i++) {
                if (columns.get(i).name().equalsIgnoreCase("frame")) {
                    return i;
                }
            }
            return -1;
        }
    }

    /**
     * One line or bar series of a chart.
     *
     * @param name the column's name
     * @param y    a value per point (NaN: NULL)
     */
    public record Series(String name, double[] y) {
    }

    /**
     * A chart of a result: a line chart over a numeric or time column, or a bar chart over a
     * first column of text.
     *
     * @param bar        a bar chart ({@code categories}), else a line chart ({@code x})
     * @param xName      what the x axis shows
     * @param x          the x values of a line chart (a time column: seconds from its smallest value)
     * @param categories the bars' names of a bar chart
     * @param series     the y columns
     * @param truncated  the result has more rows than the chart shows
     * @param note       what the chart shows, or why there is none
     */
    public record Chart(boolean bar, String xName, double[] x, List<String> categories, List<Series> series,
                        boolean truncated, String note) {
    }

    private final TaskExecutor ui;
    private final StoreQueries<Connection> store;
    private final SessionStore sessions;
    private final AtomicLong seq = new AtomicLong();
    private final StringProperty sql = new SimpleStringProperty(
            "SELECT event, count(*) AS events FROM events GROUP BY event ORDER BY events DESC");
    private final BooleanProperty available = new SimpleBooleanProperty();
    private final BooleanProperty running = new SimpleBooleanProperty();
    private final StringProperty status = new SimpleStringProperty("open a pcapng (File › Open capture…) to query its store");
    private final StringProperty error = new SimpleStringProperty("");
    private final ObjectProperty<Result> result = new SimpleObjectProperty<>();
    private final ObjectProperty<Chart> chart = new SimpleObjectProperty<>();
    private final ObservableList<SchemaTable> schema = FXCollections.observableArrayList();
    private final ObservableList<String> history = FXCollections.observableArrayList();
    private Runnable showTable = () -> { };

    /**
     * @param ui       hands results to the UI thread
     * @param worker   runs the SQL (one thread)
     * @param sessions keeps the history (null: in memory only)
     */
    public QueryViewModel(TaskExecutor ui, Executor worker, SessionStore sessions) {
        this.ui = ui;
        this.store = StoreQueries.connection(ui, worker);
        this.sessions = sessions;
        if (sessions != null) {
            worker.execute(() -> {
                List<String> h = sessions.queryHistory();
                ui.runOnUi(() -> history.setAll(h));
            });
        }
    }

    /**
     * Follows the opened file's event table: queries go to its store while there is one.
     *
     * @param table the capture view model's {@code storeTableProperty()}
     */
    public void connect(ObservableValue<StoreTable> table) {
        store.follow(table, null, this::use);
        store.onGrowth(this::grown);
    }

    /**
     * The store grew or the capture stopped (UI thread): the schema again (new event tables) and
     * the status says how far the store is; the query shown is not run again (it is the user's:
     * Ctrl+Enter runs it over what is committed then).
     */
    private void grown() {
        StoreTable t = store.table();
        if (t == null || running.get()) {
            return;
        }
        store.worker().execute(() -> {
            if (store.connection() == null || !store.current(t)) {
                return;
            }
            List<SchemaTable> tables;
            try {
                tables = readSchema();
            } catch (SQLException e) {
                return; // the schema shown stays
            }
            ui.runOnUi(() -> {
                if (store.table() != t || running.get()) {
                    return;
                }
                schema.setAll(tables);
                status.set(storeStatus(t));
            });
        });
    }

    /** What the status says of the store: its events, or how far a growing store got. */
    private String storeStatus(StoreTable t) {
        String n = store.growingNoteProperty().get();
        String shown = result.get() == null ? "" : "; the result shown is of the events committed when it ran";
        return n.isEmpty() ? String.format("%,d events of %s: Ctrl+Enter runs the query%s", t.committedProperty().get(),
                t.file().getFileName(), shown)
                : n + ": Ctrl+Enter runs the query over the events committed by then" + shown;
    }

    /** Whether the view is on screen: it opens the store when first shown ({@link StoreQueries}). */
    public BooleanProperty shownProperty() {
        return store.shownProperty();
    }

    private void use(StoreTable t) {
        available.set(false);
        result.set(null);
        chart.set(null);
        error.set("");
        schema.clear();
        status.set(t == null ? "open a pcapng (File › Open capture…) to query its store" : "opening the store…");
        if (t == null) {
            return;
        }
        store.worker().execute(() -> {
            if (store.connection() == null || !store.current(t)) {
                return;
            }
            List<SchemaTable> tables = new ArrayList<>();
            String why = null;
            try {
                store.execute("CREATE SCHEMA IF NOT EXISTS app_query", rs -> { });
                tables = readSchema();
            } catch (SQLException e) {
                why = StoreQueries.message(e);
            }
            List<SchemaTable> found = tables;
            String problem = why;
            ui.runOnUi(() -> {
                if (store.table() != t) {
                    return;
                }
                schema.setAll(found);
                available.set(problem == null);
                status.set(problem == null ? storeStatus(t) : "cannot query the store: " + problem);
            });
        });
    }

    private List<SchemaTable> readSchema() throws SQLException {
        Map<String, SchemaTable> out = new LinkedHashMap<>();
        store.execute("SELECT c.table_name, t.table_type = 'VIEW', c.column_name, c.data_type"
                + " FROM information_schema.columns c JOIN information_schema.tables t"
                + " ON t.table_catalog = c.table_catalog AND t.table_schema = c.table_schema AND t.table_name = c.table_name"
                + " WHERE c.table_catalog = current_database() AND c.table_schema = 'main'"
                + " ORDER BY c.table_name, c.ordinal_position", rs -> {
                    while (rs.next()) {
                        String name = rs.getString(1);
                        SchemaTable st = out.computeIfAbsent(name, k -> {
                            try {
                                return new SchemaTable(k, rs.getBoolean(2), new ArrayList<>());
                            } catch (SQLException e) {
                                throw new IllegalStateException(e);
                            }
                        });
                        st.columns().add(column(rs.getString(3), rs.getString(4)));
                    }
                });
        List<SchemaTable> list = new ArrayList<>();
        for (SchemaTable t : out.values()) {
            list.add(new SchemaTable(t.name(), t.view(), List.copyOf(t.columns())));
        }
        return list;
    }

    private static Column column(String name, String type) {
        String t = type == null ? "" : type.toUpperCase(Locale.ROOT);
        boolean numeric = t.matches("(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|DOUBLE|FLOAT|REAL|DECIMAL.*|NUMERIC.*)");
        boolean time = t.startsWith("TIMESTAMP") || t.equals("DATE")
                || (numeric && !t.startsWith("D") && (name.equalsIgnoreCase("ts") || name.toLowerCase(Locale.ROOT).endsWith("_ts")));
        return new Column(name, type, numeric, time);
    }

    /** Runs the editor's SQL (Ctrl+Enter); one query at a time. */
    public void run() {
        String text = strip(sql.get());
        if (text.isEmpty() || running.get()) {
            return;
        }
        if (!available.get()) {
            error.set("no capture store: open a pcapng (File › Open capture…) and wait until its store is ready");
            return;
        }
        remember(text);
        long n = seq.incrementAndGet();
        running.set(true);
        error.set("");
        status.set("running query " + n + "… (Cancel stops it)");
        StoreTable t = store.table();
        store.worker().execute(() -> {
            long t0 = System.nanoTime();
            Result r = null;
            Chart c = null;
            String why = null;
            try {
                r = execute(n, text, t0);
                c = r.columns().isEmpty() ? null : chart(r);
            } catch (SQLException e) {
                why = StoreQueries.message(e);
                if (why.startsWith("INTERRUPT")) {
                    why = "cancelled: " + why;
                }
            }
            Result done = r;
            Chart drawn = c;
            String problem = why;
            ui.runOnUi(() -> {
                running.set(false);
                if (store.table() != t) {
                    return;
                }
                if (problem != null) {
                    error.set(problem);
                    status.set("query " + n + " failed");
                    return;
                }
                result.set(done);
                chart.set(drawn);
                status.set(store.notePrefix() + String.format("query %d: %,d row%s in %,d ms%s", n, done.count(),
                        done.count() == 1 ? "" : "s",
                        done.ms(), done.note().isEmpty() ? "" : " (" + done.note() + ")"));
            });
        });
    }

    /** Interrupts the running query (DuckDB's {@code Statement.cancel}). */
    public void cancel() {
        if (running.get()) {
            status.set("cancelling…");
            store.cancel();
        }
    }

    /** Runs a query (worker thread): stored when DuckDB takes it after CREATE TABLE … AS, else as it is. */
    private Result execute(long n, String text, long t0) throws SQLException {
        try {
            store.execute(WRAP + text, rs -> { });
        } catch (SQLException e) {
            String m = StoreQueries.message(e);
            if (!m.startsWith("Parser Error")) {
                throw new SQLException(unwrapLines(m), e);
            }
            return raw(n, text, t0); // not a query (or not valid SQL: then DuckDB says so in the user's lines)
        }
        List<Column> cols = new ArrayList<>();
        store.execute("SELECT column_name, data_type FROM information_schema.columns WHERE table_catalog = current_database()"
                + " AND table_schema = 'app_query' AND table_name = 'result' ORDER BY ordinal_position", rs -> {
                    while (rs.next()) {
                        cols.add(column(rs.getString(1), rs.getString(2)));
                    }
                });
        long[] count = {0};
        store.execute("SELECT count(*) FROM " + RESULT_TABLE, rs -> {
            rs.next();
            count[0] = rs.getLong(1);
        });
        long ms = (System.nanoTime() - t0) / 1_000_000;
        return new Result(n, text, List.copyOf(cols), count[0], true, "", ms,
                new Rows(n, (int) Math.min(count[0], Integer.MAX_VALUE), cols.size()));
    }

    /** A statement run as it is; its result (if any) read up to {@value #RAW_ROWS} rows. */
    private Result raw(long n, String text, long t0) throws SQLException {
        List<Column> cols = new ArrayList<>();
        List<List<String>> rows = new ArrayList<>();
        boolean[] more = {false};
        store.execute(text, rs -> {
            if (rs == null) {
                return;
            }
            ResultSetMetaData md = rs.getMetaData();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                cols.add(column(md.getColumnLabel(i), md.getColumnTypeName(i)));
            }
            while (rs.next()) {
                if (rows.size() == RAW_ROWS) {
                    more[0] = true;
                    break;
                }
                rows.add(row(rs, cols.size()));
            }
        });
        long ms = (System.nanoTime() - t0) / 1_000_000;
        String note = cols.isEmpty() ? "a statement without rows" : more[0] ? String.format("the first %,d rows", RAW_ROWS) : "";
        return new Result(n, text, List.copyOf(cols), rows.size(), false, note, ms, FXCollections.observableArrayList(rows));
    }

    private static List<String> row(ResultSet rs, int n) throws SQLException {
        List<String> r = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
            r.add(QueryOutput.cell(rs.getObject(i)));
        }
        return List.copyOf(r);
    }

    /** DuckDB's "LINE n:" of the wrapped statement as lines of the user's query. */
    static String unwrapLines(String message) {
        Matcher m = LINE.matcher(message);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(sb, "LINE " + Math.max(1, Integer.parseInt(m.group(1)) - 1) + ":");
        }
        return m.appendTail(sb).toString();
    }

    /** The editor's text without trailing semicolons and blanks. */
    static String strip(String text) {
        String t = text == null ? "" : text.strip();
        while (t.endsWith(";")) {
            t = t.substring(0, t.length() - 1).stripTrailing();
        }
        return t;
    }

    /** The chart of a result (worker thread): its first {@value #CHART_ROWS} rows. */
    private Chart chart(Result r) throws SQLException {
        List<Column> cols = r.columns();
        int x = -1;
        for (int i = 0; i < cols.size(); i++) {
            if (cols.get(i).numeric() || cols.get(i).time()) {
                x = i;
                break;
            }
        }
        boolean bar = !cols.get(0).numeric() && !cols.get(0).time();
        int xi = bar ? 0 : x;
        List<Integer> ys = new ArrayList<>();
        for (int i = 0; i < cols.size() && ys.size() < CHART_SERIES; i++) {
            if (i != xi && cols.get(i).numeric() && !cols.get(i).time()) {
                ys.add(i);
            }
        }
        if (xi < 0 || ys.isEmpty()) {
            return new Chart(false, "", new double[0], List.of(), List.of(), false,
                    "no chart: it needs a numeric or time column and a second numeric one (or a first column of names)");
        }
        int limit = bar ? CHART_BARS : CHART_ROWS;
        int n = (int) Math.min(r.count(), limit);
        double[] xs = new double[n];
        List<String> cats = new ArrayList<>();
        double[][] y = new double[ys.size()][n];
        Column xc = cols.get(xi);
        if (r.stored()) {
            StringBuilder sel = new StringBuilder("SELECT ");
            String xq = quote(xc.name());
            if (bar) {
                sel.append(xq).append("::VARCHAR");
            } else if (xc.time() && !xc.numeric()) {
                sel.append("(epoch_us(").append(xq).append(") - min(epoch_us(").append(xq).append(")) OVER ()) / 1e6");
            } else if (xc.time()) {
                sel.append("(").append(xq).append(" - min(").append(xq).append(") OVER ())::DOUBLE / 1e9");
            } else {
                sel.append(xq).append("::DOUBLE");
            }
            for (int k : ys) {
                sel.append(", ").append(quote(cols.get(k).name())).append("::DOUBLE");
            }
            int[] i = {0};
            store.execute(sel + " FROM (SELECT * FROM " + RESULT_TABLE + " LIMIT " + n + ")", rs -> {
                while (rs.next() && i[0] < n) {
                    if (bar) {
                        cats.add(String.valueOf(rs.getString(1)));
                    } else {
                        double v = rs.getDouble(1);
                        xs[i[0]] = rs.wasNull() ? Double.NaN : v;
                    }
                    for (int k = 0; k < ys.size(); k++) {
                        double v = rs.getDouble(k + 2);
                        y[k][i[0]] = rs.wasNull() ? Double.NaN : v;
                    }
                    i[0]++;
                }
            });
        } else {
            for (int i = 0; i < n; i++) {
                List<String> row = r.rows().get(i);
                if (bar) {
                    cats.add(row.get(xi));
                } else {
                    xs[i] = number(row.get(xi));
                }
                for (int k = 0; k < ys.size(); k++) {
                    y[k][i] = number(row.get(ys.get(k)));
                }
            }
        }
        List<Series> series = new ArrayList<>();
        for (int k = 0; k < ys.size(); k++) {
            series.add(new Series(cols.get(ys.get(k)).name(), y[k]));
        }
        boolean truncated = r.count() > n;
        String xName = xc.name() + (xc.time() && !bar ? " (s from its first value)" : "");
        String note = (bar ? "bars" : "lines") + " of " + (truncated ? String.format("the first %,d of %,d rows", n, r.count())
                : String.format("all %,d rows", n));
        return new Chart(bar, xName, xs, List.copyOf(cats), List.copyOf(series), truncated, note);
    }

    private static double number(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static String quote(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    /**
     * "Show these events": the event table shows only the frames of the result's {@code frame}
     * column (under its other filters), then the table is shown.
     *
     * @return false (with an error) when the result has no {@code frame} column or is not stored
     */
    public boolean showEvents() {
        Result r = result.get();
        StoreTable t = store.table();
        if (r == null || t == null || r.frameColumn() < 0) {
            error.set("show these events: the result needs a column named frame (e.g. SELECT frame FROM sched_switch WHERE …)");
            return false;
        }
        if (!r.stored()) {
            error.set("show these events: only a query's result (a SELECT) can restrict the table");
            return false;
        }
        t.restrictToFrames("SELECT " + quote(r.columns().get(r.frameColumn()).name()) + " AS frame FROM " + RESULT_TABLE,
                String.format("frames of query %d (%,d rows)", r.seq(), r.count()));
        showTable.run();
        return true;
    }

    /** @param show switches the window to the event table (set by the main view) */
    public void setOnShowTable(Runnable show) {
        this.showTable = show == null ? () -> { } : show;
    }

    private void remember(String text) {
        history.remove(text);
        history.add(0, text);
        if (history.size() > SessionStore.MAX_QUERIES) {
            history.remove(SessionStore.MAX_QUERIES, history.size());
        }
        if (sessions != null) {
            List<String> copy = List.copyOf(history);
            store.worker().execute(() -> {
                try {
                    sessions.saveQueryHistory(copy);
                } catch (IOException e) {
                    ui.runOnUi(() -> status.set("cannot keep the query history: " + e.getMessage()));
                }
            });
        }
    }

    /** The SQL in the editor. */
    public StringProperty sqlProperty() {
        return sql;
    }

    /** True while a store is open to query. */
    public BooleanProperty availableProperty() {
        return available;
    }

    /** True while a query runs. */
    public BooleanProperty runningProperty() {
        return running;
    }

    /** What the view is doing or what the last query gave ("query 3: 1,234 rows in 56 ms"). */
    public StringProperty statusProperty() {
        return status;
    }

    /** DuckDB's error of the last query (its text), empty when it ran. */
    public StringProperty errorProperty() {
        return error;
    }

    /** The last query's result, null before one ran. */
    public ObjectProperty<Result> resultProperty() {
        return result;
    }

    /** The last result's chart, null when there is no result. */
    public ObjectProperty<Chart> chartProperty() {
        return chart;
    }

    /** The store's tables and views with their columns. */
    public ObservableList<SchemaTable> getSchema() {
        return schema;
    }

    /** The queries run, newest first. */
    public ObservableList<String> getHistory() {
        return history;
    }

    /** The virtual rows of a stored result: pages read from {@link #RESULT_TABLE} on the worker. */
    private final class Rows extends ObservableListBase<List<String>> {
        private final long gen;
        private final int size;
        private final int width;
        private final Map<Integer, List<List<String>>> pages = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Integer, List<List<String>>> e) {
                return size() > 64;
            }
        };
        private final Set<Integer> requested = new HashSet<>();

        Rows(long gen, int size, int width) {
            this.gen = gen;
            this.size = size;
            this.width = width;
        }

        @Override
        public List<String> get(int index) {
            if (index < 0 || index >= size) {
                throw new IndexOutOfBoundsException(index);
            }
            int p = index / PAGE;
            List<List<String>> page = pages.get(p);
            if (page == null && requested.add(p)) {
                fetch(p);
                page = pages.get(p); // a direct executor has it already
            }
            return page == null || index % PAGE >= page.size() ? LOADING : page.get(index % PAGE);
        }

        private void fetch(int p) {
            store.worker().execute(() -> {
                if (seq.get() != gen) {
                    return; // a newer result replaced the table
                }
                List<List<String>> page = new ArrayList<>();
                String why = null;
                try {
                    store.execute("SELECT * FROM " + RESULT_TABLE + " LIMIT " + PAGE + " OFFSET " + (long) p * PAGE, rs -> {
                        while (rs.next()) {
                            page.add(row(rs, width));
                        }
                    });
                } catch (SQLException e) {
                    why = StoreQueries.message(e);
                }
                String problem = why;
                ui.runOnUi(() -> {
                    requested.remove(p);
                    if (problem != null) {
                        error.set("cannot read the result: " + problem);
                        return;
                    }
                    pages.put(p, page);
                    beginChange();
                    for (int i = 0; i < page.size(); i++) {
                        nextUpdate(p * PAGE + i);
                    }
                    endChange();
                });
            });
        }

        @Override
        public int size() {
            return size;
        }
    }
}
