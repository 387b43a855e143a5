package org.tracewire.app.capture;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.duckdb.DuckDBConnection;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.filter.Filter;
import org.tracewire.filter.FilterSyntaxException;
import org.tracewire.store.CaptureStore;
import org.tracewire.store.StoreCache;

/**
 * The event table of an opened pcapng over its capture store ({@link CaptureStore}): every event
 * of the file, not a window of them. Unfiltered in frame order (either direction), a row's number
 * is its event's rank in the store's {@code event_rows} (stored in frame order), mapped to its
 * frame through the runs of consecutive frames ({@link FrameRuns}, a few hundred numbers): nothing
 * is materialised. Any other view (filtered, sorted otherwise) keeps only its frames, in order, in
 * a table whose {@code rowid} is the row number ({@link StoreRows}).
 * {@link #rowsProperty()} is a virtual list of that many rows whose pages of {@value #PAGE} are
 * fetched on demand ({@code events} by frame) and re-read from the file at the event's
 * {@code file_offset} ({@link FrameReader}), so a row is what a whole read of the file gives (the
 * kernel's text, fields, record); the task name is the store's ({@code events.comm}).
 *
 * <p>The filter box takes the kernel's filter syntax, with the rule of the live table
 * ({@link EventTableViewModel}) computed in SQL: for each event of the file (or the one of the
 * event restriction) the filter is compiled to SQL over its typed table
 * ({@link CaptureStore#filterQuery}); a row passes when its event takes the filter and the filter
 * holds. A filter that does not parse, or that no event takes, is an error shown with its
 * position, and the table keeps the last valid filter. Sorting is an ORDER BY (frame, time, CPU,
 * pid, comm, event; ties in frame order).
 *
 * <p>Threads: every query runs on {@code queries} (one thread: the connection's owner) but go to
 * frame's, which runs on {@code lookups} over a connection of its own ({@link #setLookups});
 * results reach the properties through {@link TaskExecutor#runOnUi}; properties are read and
 * written on the UI thread. Queued work of an older view is dropped.
 */
public final class StoreTable extends TableFilters implements AutoCloseable {
    /** Rows per page fetched. */
    public static final int PAGE = StoreRows.PAGE;
    /**
     * DuckDB's buffer pool in the app, MiB (the store's own default is for the {@code sql} command):
     * with the app's 384 MiB of Java heap ({@code scripts/jvm-opts.sh}) and the JVM's and JavaFX's
     * own memory, the app stays under 1 GB of RSS on a 10 M-event capture; larger queries spill to
     * the store's temporary folder.
     */
    static final int APP_DUCKDB_MIB = 320;
    /** What a row not fetched yet shows. */
    public static final EventRow LOADING = new EventRow(0, 0, 0, "", "", "loading…", Map.of(), 0, null);

    /** Sortable columns and their SQL. */
    public enum Column {
        FRAME("frame"), TIME("ts"), CPU("cpu"), PID("pid"), COMM("comm"), EVENT("event");

        private final String sql;

        Column(String sql) {
            this.sql = sql;
        }
    }

    private final Path file;
    private final CaptureStore store;
    private final Connection db;
    private final FrameReader frames;
    private final Executor queries;
    private final TaskExecutor ui;
    /** Events of the store: all of them, or those committed so far while it grows (query thread writes). */
    private volatile long total;
    private final List<String> events = new CopyOnWriteArrayList<>();
    /** Typed tables (views) naming a task by pid: table → its pid columns. */
    private final Map<String, List<String>> pidColumns = new ConcurrentSkipListMap<>();
    /** Events committed so far while the store grows; its whole count once built (UI thread). */
    private final LongProperty committed = new SimpleLongProperty();
    /** True while the store is built from a live capture's growing file (UI thread). */
    private final BooleanProperty growing = new SimpleBooleanProperty();
    /** Completes once the store holds the whole file and the table knows it ({@link #built()}). */
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    /** A catalog re-read is queued on the query thread (coalesces commits). */
    private final AtomicBoolean catalogQueued = new AtomicBoolean();
    private final AtomicLong generation = new AtomicLong();

    private final ObjectProperty<ObservableList<EventRow>> rows = new SimpleObjectProperty<>(FXCollections.emptyObservableList());
    private final LongProperty shown = new SimpleLongProperty();
    private final StringProperty message = new SimpleStringProperty("");
    private Column sortColumn = Column.FRAME;
    private boolean ascending = true;

    private final StringProperty frameRestriction = new SimpleStringProperty(null);
    private volatile String restrictQuery;
    private final AtomicLong restrictVersion = new AtomicLong();

    /** How views number their rows, their pages (made again once a growing store is built). */
    private volatile StoreRows numbering;
    /** The current view, once numbered (written on the query thread). */
    private volatile StoreRows.View view;
    /** Go to frame's thread (the query thread until {@link #setLookups}) and its connection. */
    private volatile Executor lookups;
    private final Connection lookupDb;

    // owned by the query thread
    private long copiedVersion;
    private String validCondition;
    private String validText = "";

    private StoreTable(Path file, CaptureStore store, FrameReader frames, Executor queries, TaskExecutor ui) throws SQLException {
        this.file = file;
        this.store = store;
        this.db = store.connection();
        this.frames = frames;
        this.queries = queries;
        this.ui = ui;
        this.total = store.sources().get(0).events();
        try (Statement s = db.createStatement()) {
            s.execute("SET memory_limit = '" + APP_DUCKDB_MIB + "MB'");
        }
        readCatalog();
        FrameRuns r;
        try {
            r = FrameRuns.of(db, total);
        } catch (SQLException e) {
            r = null; // a store without s0.event_rows: every view numbers its rows in view_rows
        }
        this.numbering = new StoreRows(frames, r);
        this.lookups = queries;
        this.lookupDb = newConnection();
        this.committed.set(total);
        filterText.addListener((o, a, b) -> refresh());
        eventRestriction.addListener((o, a, b) -> refresh());
        thread.addListener((o, a, b) -> refresh());
    }

    /** Reads the store's events and their tables' pid columns (constructor, then the query thread). */
    private void readCatalog() throws SQLException {
        Map<String, String> tables = new LinkedHashMap<>();
        List<String> events = new ArrayList<>();
        Map<String, List<String>> pids = new LinkedHashMap<>();
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT event, table_name FROM s0.event_tables ORDER BY event")) {
            while (rs.next()) {
                events.add(rs.getString(1));
                tables.put(rs.getString(2), rs.getString(1));
            }
        }
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT table_name, column_name FROM information_schema.columns"
                     + " WHERE table_catalog = current_database() AND table_schema = 'main'"
                     + " AND column_name IN ('pid', 'prev_pid', 'next_pid') ORDER BY table_name, column_name")) {
            while (rs.next()) {
                if (tables.containsKey(rs.getString(1))) {
                    pids.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getString(2));
                }
            }
        }
        this.events.retainAll(events);
        events.stream().filter(e -> !this.events.contains(e)).forEach(this.events::add);
        pidColumns.keySet().retainAll(pids.keySet());
        pidColumns.putAll(pids);
        total = store.sources().get(0).events();
    }

    /**
     * Builds (or reuses) the store of a pcapng and opens it; blocks (call it in the background).
     *
     * @param file    a pcapng of tracewire frames
     * @param cache   where stores are kept
     * @param counted receives the events stored so far while the store is built (building thread)
     * @param queries runs every query afterwards, one at a time (one thread)
     * @param ui      hands results to the UI thread
     * @return the table, its first view being built on {@code queries}
     * @throws IOException  when the file cannot be read or is no pcapng of tracewire frames
     * @throws SQLException when DuckDB fails
     */
    public static StoreTable open(Path file, StoreCache cache, LongConsumer counted, Executor queries, TaskExecutor ui)
            throws IOException, SQLException {
        return open(file, cache, null, counted, queries, ui);
    }

    /**
     * Like {@link #open(Path, StoreCache, LongConsumer, Executor, TaskExecutor)}; with
     * {@code writing}, the pcapng of a live capture is indexed as it grows
     * ({@link CaptureStore#following}): the table opens with the store's first commit (a second or
     * so of the capture), {@link #committedProperty()} then follows each commit and
     * {@link #growingProperty()} is true until {@code writing} says false and the file is read to
     * its end ({@link #built()}). The table's own rows are those of its last rebuild; the views
     * re-query as the store grows ({@link StoreQueries}).
     *
     * @param writing null for a finished file, else true while the capture may still write it
     */
    public static StoreTable open(Path file, StoreCache cache, BooleanSupplier writing,
                                  LongConsumer counted, Executor queries, TaskExecutor ui) throws IOException, SQLException {
        CaptureStore store = writing == null ? CaptureStore.open(List.of(file), cache, null, false, counted)
                : CaptureStore.following(file, cache, writing, counted);
        try {
            FrameReader frames = FrameReader.open(file);
            StoreTable t = new StoreTable(file, store, frames, queries, ui);
            if (writing != null) {
                t.follow();
            } else {
                t.ready.complete(null);
            }
            t.refresh();
            return t;
        } catch (IOException | SQLException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** The file. */
    public Path file() {
        return file;
    }

    /** Subscribes to the store's commits while it grows (the store's building thread calls). */
    private void follow() {
        growing.set(true);
        store.addCommitListener((n, frame, last) -> {
            ui.runOnUi(() -> committed.set(n));
            if (catalogQueued.compareAndSet(false, true)) {
                queries.execute(() -> {
                    catalogQueued.set(false);
                    try {
                        readCatalog(); // new events, the count
                    } catch (SQLException e) {
                        // the store closed meanwhile
                    }
                });
            }
        });
        store.built().whenComplete((r, e) -> queries.execute(() -> {
            String why = null;
            try {
                readCatalog();
                numbering = new StoreRows(frames, FrameRuns.of(db, total));
                StoreRows n = numbering;
                lookups.execute(() -> n.warm(lookupDb));
            } catch (SQLException x) {
                numbering = new StoreRows(frames, null);
                why = "cannot query the store: " + x.getMessage();
            }
            long n = total;
            ready.complete(null);
            String problem = e != null ? "the store stopped growing: " + LiveCapture.rootMessage(e) : why;
            ui.runOnUi(() -> {
                committed.set(n);
                growing.set(false);
                if (problem != null) {
                    message.set(problem);
                }
                refresh(); // every event now
            });
        }));
    }

    /**
     * Events the store holds: those committed so far while it grows (UI thread), all once built.
     * The views re-query when it changes.
     */
    public LongProperty committedProperty() {
        return committed;
    }

    /** True while the store grows with a live capture's file (UI thread). */
    public ReadOnlyBooleanProperty growingProperty() {
        return growing;
    }

    /**
     * Completes (on the query thread, the table's counts and frame order then those of every
     * event) once the store holds the whole file; at once for a finished file's store.
     */
    public CompletableFuture<Void> built() {
        return ready.copy();
    }

    /**
     * The capture store under this table. Its connection belongs to the table's query thread:
     * another thread duplicates it ({@code DuckDBConnection.duplicate()}) and closes its duplicate.
     */
    public CaptureStore store() {
        return store;
    }

    /**
     * A new connection to the store's database, for queries on another thread than the table's:
     * the same views and attached stores; its temporary tables and views are its own. The caller
     * closes it before the table closes.
     *
     * @throws SQLException when DuckDB fails (the store is closed, say)
     */
    public Connection newConnection() throws SQLException {
        return store.connection().unwrap(DuckDBConnection.class).duplicate();
    }

    /** Events in the store (the file's event count; while it grows, those committed at the table's last look). */
    public long total() {
        return total;
    }

    /** Where reading the file stopped (a cut or damaged file), or null when the store holds all of it. */
    public String stoppedAt() {
        return store.sources().get(0).stoppedAt();
    }

    /**
     * Sorts the rows (ties in frame order) and rebuilds the view.
     *
     * @param column    the column
     * @param ascending the direction
     */
    public void sort(Column column, boolean ascending) {
        this.sortColumn = column;
        this.ascending = ascending;
        refresh();
    }

    /** Rebuilds the view: the filter box, the event and thread restrictions, the order. */
    private void refresh() {
        long gen = generation.incrementAndGet();
        String text = filterText.get() == null ? "" : filterText.get().strip();
        String ev = eventRestriction.get();
        Integer tid = thread.get();
        String frames = restrictQuery;
        String order = sortColumn == Column.FRAME ? "frame" + (ascending ? "" : " DESC")
                : sortColumn.sql + (ascending ? "" : " DESC") + ", frame";
        queries.execute(() -> {
            if (generation.get() != gen) {
                return; // a newer view is queued
            }
            String error = "";
            int errorAt = -1;
            try {
                validCondition = compile(text, ev);
                validText = text;
            } catch (FilterSyntaxException e) {
                error = e.pointer(text) + "\n" + e.detail() + "\n" + (validText.isEmpty()
                        ? "(the table is not filtered meanwhile)" : "(the table keeps the last valid filter: " + validText + ")");
                errorAt = e.position();
            } catch (SQLException e) {
                error = "the filter cannot be run: " + e.getMessage();
            }
            List<String> where = new ArrayList<>();
            if (validCondition != null) {
                where.add(validCondition);
            }
            if (ev != null) {
                where.add("event = " + literal(ev));
            }
            if (tid != null) {
                where.add(threadCondition(tid));
            }
            if (frames != null) {
                try {
                    where.add(restrictedFrames(frames));
                } catch (SQLException e) {
                    error = "cannot restrict to those frames: " + e.getMessage().lines().findFirst().orElse("");
                }
            }
            StoreRows.View v;
            try {
                v = numbering.number(db, gen, where, order, view);
                view = v;
            } catch (SQLException e) {
                String why = "cannot query the store: " + e.getMessage();
                ui.runOnUi(() -> message.set(why));
                return;
            }
            String err = error;
            int at = errorAt;
            ui.runOnUi(() -> {
                if (generation.get() != gen) {
                    return;
                }
                filterError.set(err);
                filterErrorPosition.set(at);
                shown.set(v.size());
                rows.set(numbering.new Rows(v, db, queries, ui, generation::get, message::set));
            });
        });
    }

    /** The SQL condition of a filter over {@code events} (null for none), per the rule above. */
    private String compile(String text, String ev) throws FilterSyntaxException, SQLException {
        if (text.isEmpty()) {
            return null;
        }
        Filter.parse(text); // a syntax error before anything else, with its position
        List<String> parts = new ArrayList<>();
        FilterSyntaxException first = null;
        for (String e : ev != null ? List.of(ev) : events) {
            try {
                parts.add("SELECT frame FROM (" + store.filterQuery(e, text) + ")");
            } catch (FilterSyntaxException x) {
                if (first == null) {
                    first = new FilterSyntaxException(x.position(), x.detail() + (x.detail().contains(e) ? "" : " [" + e + "]"));
                }
            } catch (IllegalArgumentException x) {
                // no events of that kind in the file
            }
        }
        if (parts.isEmpty()) {
            if (first == null) {
                throw new FilterSyntaxException(0, "no event of this file takes this filter");
            }
            int n = ev != null ? 1 : events.size();
            throw n > 1 ? new FilterSyntaxException(first.position(), first.detail()
                    + String.format(" (and no other of the file's %d events takes this filter)", n - 1)) : first;
        }
        return "frame IN (" + String.join(" UNION ALL ", parts) + ")";
    }

    /** Rows of the task or naming it ({@code pid}, {@code prev_pid}, {@code next_pid} of a typed table). */
    private String threadCondition(int pid) {
        StringBuilder sb = new StringBuilder("(pid = " + pid);
        for (Map.Entry<String, List<String>> t : pidColumns.entrySet()) {
            List<String> or = new ArrayList<>();
            for (String c : t.getValue()) {
                or.add("\"" + c + "\" = " + pid);
            }
            sb.append(" OR frame IN (SELECT frame FROM \"").append(t.getKey().replace("\"", "\"\"")).append("\" WHERE ")
                    .append(String.join(" OR ", or)).append(")");
        }
        return sb.append(")").toString();
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    /**
     * Finds the row of a frame in the rows shown, on the lookup thread and its own connection
     * ({@link #setLookups}), so it does not wait behind the pages the table is fetching; the
     * frame's page is fetched there too before {@code found} hears of the row. A view still being
     * built is waited for (the lookup is queued behind it on the query thread).
     *
     * @param frame the packet number (Wireshark's {@code frame.number})
     * @param found receives the row index on the UI thread, or -1 (then {@link #messageProperty()}
     *              says why)
     */
    public void goToFrame(long frame, IntConsumer found) {
        find(frame, true, found);
    }

    /**
     * Like {@link #goToFrame} without a message: the row of a frame in the rows shown (a table
     * finding its selected frame again in a new view).
     *
     * @param found receives the row index on the UI thread, or -1
     */
    public void rowOf(long frame, IntConsumer found) {
        find(frame, false, found);
    }

    private void find(long frame, boolean say, IntConsumer found) {
        long gen = generation.get();
        Runnable lookup = () -> {
            StoreRows.View v = view;
            if (v == null || v.gen() != gen || generation.get() != gen) {
                return; // a newer view: its own go-to comes with it
            }
            long i = -1;
            String why = "";
            EventRow[] page = null;
            try {
                i = numbering.rowOf(lookupDb, v, frame);
                if (i < 0 && say) {
                    why = StoreRows.notShown(lookupDb, frame);
                } else if (i >= 0) {
                    page = numbering.page(lookupDb, v, (int) (i / PAGE));
                }
            } catch (SQLException e) {
                why = "cannot query the store: " + e.getMessage();
            }
            int row = (int) Math.min(i, Integer.MAX_VALUE);
            String msg = why;
            EventRow[] loaded = page;
            ui.runOnUi(() -> {
                if (generation.get() != gen) {
                    return;
                }
                if (row >= 0 && rows.get() instanceof StoreRows.Rows r && r.view() == v && loaded != null) {
                    r.put(row / PAGE, loaded);
                }
                if (say) {
                    message.set(row >= 0 ? String.format("frame %,d: row %,d", frame, row + 1) : msg);
                }
                found.accept(row);
            });
        };
        StoreRows.View v = view;
        if (v != null && v.gen() == gen) {
            lookups.execute(lookup);
        } else {
            queries.execute(() -> lookups.execute(lookup)); // after the view being built
        }
    }

    /**
     * Frames of a stack record that can lie between an event and its stack: the kernel writes the
     * stack right after its event on the same CPU, with the same time stamp, so only other CPUs'
     * events of that instant and context frames come between (a bound on the scan, not a cut).
     */
    static final int STACK_REACH = 4096;

    /**
     * The stack traces recorded with the event of a frame ({@code capture --stack}): the store's
     * {@code stack_of} for that event (its {@code stack} view's rows without joining every event),
     * kernel stack first, innermost call first.
     *
     * @param frame the event's packet number
     * @param done  receives the frames on the UI thread (empty when the event has no stack or the
     *              store cannot say)
     */
    public void stacksOf(long frame, Consumer<List<EventDetailTree.StackFrame>> done) {
        queries.execute(() -> {
            List<EventDetailTree.StackFrame> out = new ArrayList<>();
            try (PreparedStatement ps = db.prepareStatement("SELECT kind, depth, address, func, module"
                    + " FROM stack_of(?, ?) ORDER BY kind, depth")) {
                ps.setLong(1, frame);
                ps.setLong(2, STACK_REACH);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new EventDetailTree.StackFrame(rs.getString(1), rs.getInt(2), rs.getLong(3),
                                rs.getString(4), rs.getString(5)));
                    }
                }
            } catch (SQLException e) {
                out.clear(); // a store without stack records: no stack to show
            }
            ui.runOnUi(() -> done.accept(out));
        });
    }

    /**
     * The rows shown: a virtual list of {@link #shownProperty()} rows; a row not fetched yet is
     * {@link #LOADING} until its page arrives (then the list reports an update of those rows). A
     * new list replaces it whenever the view changes.
     */
    public ObjectProperty<ObservableList<EventRow>> rowsProperty() {
        return rows;
    }

    /** Rows in the current view. */
    public LongProperty shownProperty() {
        return shown;
    }

    /** The last go-to or query message. */
    public StringProperty messageProperty() {
        return message;
    }

    /**
     * Says which rows the table shows, [from, to): their pages (and a few around) are fetched now,
     * queued pages far from them are skipped (UI thread).
     */
    public void showing(int from, int to) {
        if (rows.get() instanceof StoreRows.Rows r) {
            r.showing(from, to);
        }
    }

    /**
     * Runs go to frame's lookups on this executor (one thread, not the query thread), so a lookup
     * never waits behind the pages being fetched; call it before the table is shown.
     *
     * @param lookups runs one task at a time
     */
    public void setLookups(Executor lookups) {
        this.lookups = lookups;
        StoreRows n = numbering;
        lookups.execute(() -> n.warm(lookupDb));
    }

    /** Closes the store (after the queries and lookups queued before). */
    @Override
    public void close() {
        generation.incrementAndGet();
        lookups.execute(() -> {
            try {
                lookupDb.close();
            } catch (SQLException e) {
                // closing: nothing left to tell
            }
            queries.execute(() -> {
                try {
                    frames.close();
                    store.close();
                } catch (IOException | SQLException e) {
                    // closing: nothing left to tell
                }
            });
        });
    }

    // ---- what the query and I/O graph views use: a restriction to frames, the filter rule

    /**
     * Shows only the frames a query yields (its column {@code frame}; the query view's "show these
     * events"), under the filter box, event and thread restrictions. The frames are copied into a
     * temporary table ({@code restricted_frames}, on the query thread, at the next rebuild of the
     * view), so the table holds still when the query's source changes afterwards;
     * {@link #clearFilters()} lifts it.
     *
     * @param query a SELECT over the store's database (any connection's tables in {@code main} or
     *              another schema; not a temporary table of another connection) with a column
     *              {@code frame}, or null to lift the restriction
     * @param label what the table says it shows (e.g. "frames of query 3"); null with a null query
     */
    public void restrictToFrames(String query, String label) {
        restrictQuery = query;
        restrictVersion.incrementAndGet();
        frameRestriction.set(query == null ? null : label);
        refresh();
    }

    /** What {@link #restrictToFrames} restricts the table to (its label), or null. */
    public StringProperty frameRestrictionProperty() {
        return frameRestriction;
    }

    /** {@inheritDoc} Also lifts the restriction to frames. */
    @Override
    public void clearFilters() {
        if (restrictQuery != null) {
            restrictQuery = null;
            restrictVersion.incrementAndGet();
            frameRestriction.set(null);
            refresh();
        }
        super.clearFilters();
    }

    /** The condition of the restriction to frames, copying them first when the restriction is new (query thread). */
    private String restrictedFrames(String query) throws SQLException {
        long v = restrictVersion.get();
        if (v != copiedVersion) {
            try (Statement s = db.createStatement()) {
                s.execute("CREATE OR REPLACE TEMP TABLE restricted_frames AS SELECT DISTINCT TRY_CAST(frame AS BIGINT) AS frame"
                        + " FROM (" + query + ") WHERE frame IS NOT NULL");
            }
            copiedVersion = v;
        }
        return "frame IN (SELECT frame FROM restricted_frames)";
    }

    /**
     * Compiles a filter in the kernel's syntax by this table's rule (see the class comment: for
     * each event of the file that takes it, over its typed table) to a condition over
     * {@code events}, on the query thread (where the store's connection is used).
     *
     * @param filter the filter text
     * @return completes with the condition ({@code frame IN (...)}; null for an empty filter), or
     *         exceptionally with a {@link FilterSyntaxException} (with its position) or an
     *         {@link SQLException}
     */
    public CompletableFuture<String> filterCondition(String filter) {
        CompletableFuture<String> f = new CompletableFuture<>();
        String text = filter == null ? "" : filter.strip();
        queries.execute(() -> {
            try {
                f.complete(compile(text, null));
            } catch (SQLException | RuntimeException e) { // a FilterSyntaxException among them
                f.completeExceptionally(e);
            }
        });
        return f;
    }
}
