package org.tracewire.app.query;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
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
import org.tracewire.app.capture.StoreQueries;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.session.SessionStore;
import org.tracewire.app.query.QueryResult.Column;
import org.tracewire.app.util.TaskExecutor;

/**
 * The query view's model (Perfetto's query page; GUI-free): SQL over an opened capture's store
 * ({@link org.tracewire.store.CaptureStore}, schema in {@code docs/store.md}) on a worker thread
 * with a connection of its own ({@link StoreQueries}), cancellable.
 *
 * <p>A query's result is kept in DuckDB, not in the JVM: a SELECT (or WITH, FROM, VALUES, …) is
 * run as {@code CREATE OR REPLACE TABLE app_query.result AS <query>} in the store's in-memory
 * database, counted, and read by pages of {@value ResultRows#PAGE} rows as the table scrolls
 * ({@link QueryResult#rows()} is a virtual list). A statement DuckDB does not take after
 * {@code CREATE TABLE … AS} (DESCRIBE, SHOW, SET, PRAGMA, …) runs as it is, its result read into
 * memory up to {@value #RAW_ROWS} rows. DuckDB's errors are shown as its text (line numbers those
 * of the user's query). The chart takes the first {@value QueryChart#ROWS} rows. "Show these events"
 * restricts the event table to the result's {@code frame} column
 * ({@link StoreTable#restrictToFrames}). The queries run are kept as a history in the
 * {@link SessionStore} (newest first).
 *
 * <p>Threads: properties are read and written on the UI thread; SQL runs on the worker.
 */
public final class QueryViewModel {
    /** Rows read of a result that is not stored (DESCRIBE, SHOW, PRAGMA, …). */
    public static final int RAW_ROWS = 10_000;
    private static final Pattern LINE = Pattern.compile("(?m)^LINE (\\d+):");
    private static final String WRAP = "CREATE OR REPLACE TABLE " + QueryResult.TABLE + " AS\n";

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
    private final ObjectProperty<QueryResult> result = new SimpleObjectProperty<>();
    private final ObjectProperty<QueryChart> chart = new SimpleObjectProperty<>();
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
                tables = SchemaTable.read(store);
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
                tables = SchemaTable.read(store);
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
            QueryResult r = null;
            QueryChart c = null;
            String why = null;
            try {
                r = execute(n, text, t0);
                c = r.columns().isEmpty() ? null : QueryChart.of(r, store);
            } catch (SQLException e) {
                why = StoreQueries.message(e);
                if (why.startsWith("INTERRUPT")) {
                    why = "cancelled: " + why;
                }
            }
            QueryResult done = r;
            QueryChart drawn = c;
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
    private QueryResult execute(long n, String text, long t0) throws SQLException {
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
                        cols.add(Column.of(rs.getString(1), rs.getString(2)));
                    }
                });
        long[] count = {0};
        store.execute("SELECT count(*) FROM " + QueryResult.TABLE, rs -> {
            rs.next();
            count[0] = rs.getLong(1);
        });
        long ms = (System.nanoTime() - t0) / 1_000_000;
        return new QueryResult(n, text, List.copyOf(cols), count[0], true, "", ms,
                new ResultRows(store, ui, seq::get, why -> error.set("cannot read the result: " + why), n,
                        (int) Math.min(count[0], Integer.MAX_VALUE), cols.size()));
    }

    /** A statement run as it is; its result (if any) read up to {@value #RAW_ROWS} rows. */
    private QueryResult raw(long n, String text, long t0) throws SQLException {
        List<Column> cols = new ArrayList<>();
        List<List<String>> rows = new ArrayList<>();
        boolean[] more = {false};
        store.execute(text, rs -> {
            if (rs == null) {
                return;
            }
            ResultSetMetaData md = rs.getMetaData();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                cols.add(Column.of(md.getColumnLabel(i), md.getColumnTypeName(i)));
            }
            while (rs.next()) {
                if (rows.size() == RAW_ROWS) {
                    more[0] = true;
                    break;
                }
                rows.add(ResultRows.row(rs, cols.size()));
            }
        });
        long ms = (System.nanoTime() - t0) / 1_000_000;
        String note = cols.isEmpty() ? "a statement without rows" : more[0] ? String.format("the first %,d rows", RAW_ROWS) : "";
        return new QueryResult(n, text, List.copyOf(cols), rows.size(), false, note, ms, FXCollections.observableArrayList(rows));
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

    /**
     * "Show these events": the event table shows only the frames of the result's {@code frame}
     * column (under its other filters), then the table is shown.
     *
     * @return false (with an error) when the result has no {@code frame} column or is not stored
     */
    public boolean showEvents() {
        QueryResult r = result.get();
        StoreTable t = store.table();
        if (r == null || t == null || r.frameColumn() < 0) {
            error.set("show these events: the result needs a column named frame (e.g. SELECT frame FROM sched_switch WHERE …)");
            return false;
        }
        if (!r.stored()) {
            error.set("show these events: only a query's result (a SELECT) can restrict the table");
            return false;
        }
        t.restrictToFrames("SELECT " + QueryChart.quote(r.columns().get(r.frameColumn()).name()) + " AS frame FROM " + QueryResult.TABLE,
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
    public ObjectProperty<QueryResult> resultProperty() {
        return result;
    }

    /** The last result's chart, null when there is no result. */
    public ObjectProperty<QueryChart> chartProperty() {
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
}
