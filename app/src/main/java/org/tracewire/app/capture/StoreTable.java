package org.tracewire.app.capture;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.duckdb.DuckDBConnection;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.filter.FilterSyntaxException;
import org.tracewire.store.CaptureStore;
import org.tracewire.store.StoreCache;

/**
 * The event table of an opened pcapng over its capture store ({@link CaptureStore}): every event
 * of the file, not a window of them. Unfiltered in frame order (either direction), a row's number
 * is its event's rank in frame order, mapped to its frame through the runs of consecutive frames
 * ({@link FrameRuns}, a few hundred numbers): nothing is materialised. Any other view (filtered, sorted otherwise) keeps only its frames, in order, in
 * a table whose {@code rowid} is the row number ({@link StoreRows}).
 * {@link #rowsProperty()} is a virtual list of that many rows whose pages of {@value #PAGE} are
 * fetched on demand ({@code events} by frame) and re-read from the file at the event's
 * {@code file_offset} ({@link FrameReader}), so a row is what a whole read of the file gives (the
 * kernel's text, fields, record); the task name is the store's ({@code events.comm}).
 *
 * <p>The filters ({@link StoreFilters}): the filter box takes the kernel's filter syntax, with the
 * rule of the live table ({@link EventTableViewModel}) computed in SQL: for each event of the file
 * (or the one of the event restriction) the filter is compiled to SQL over its typed table
 * ({@link CaptureStore#filterQuery}); a row passes when its event takes the filter and the filter
 * holds. A filter that does not parse, or that no event takes, is an error shown with its
 * position, and the table keeps the last valid filter. Sorting is an ORDER BY (frame, time, CPU,
 * pid, comm, event; ties in frame order). A live capture's store grows: {@link StoreGrowth}.
 *
 * <p>Threads: every query runs on {@code queries} (one thread: the connection's owner) but go to
 * frame's, which runs on {@code lookups} over a connection of its own ({@link #setLookups});
 * results reach the properties through {@link TaskExecutor#runOnUi}; properties are read and
 * written on the UI thread. Queued work of an older view is dropped.
 */
public final class StoreTable extends StoreFilters implements AutoCloseable {
    /** Rows per page fetched. */
    public static final int PAGE = StoreRows.PAGE;
    /** DuckDB's buffer pool in the app, MiB, beside 384 MiB of heap; more spills (256: peak RSS < 1 GB, decision 0027). */
    static final int APP_DUCKDB_MIB = 256;
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
    /** The view's SQL conditions, and the store's events they go over. */
    private final StoreConditions conditions;
    /** The store's growth with a live capture: its commits, and how the view follows them. */
    private final StoreGrowth growth;
    private final AtomicLong generation = new AtomicLong();

    private final ObjectProperty<ObservableList<EventRow>> rows = new SimpleObjectProperty<>(FXCollections.emptyObservableList());
    private final LongProperty shown = new SimpleLongProperty();
    private final StringProperty message = new SimpleStringProperty("");
    private Column sortColumn = Column.FRAME;
    private boolean ascending = true;

    /** How views number their rows, their pages (made again once a growing store is built). */
    private volatile StoreRows numbering;
    /** The current view, once numbered (written on the query thread). */
    private volatile StoreRows.View view;
    /** Go to frame's thread (the query thread until {@link #setLookups}) and its connection. */
    private final FrameLookup lookup;

    private StoreTable(Path file, CaptureStore store, FrameReader frames, Executor queries, TaskExecutor ui) throws SQLException {
        this.file = file;
        this.store = store;
        this.db = store.connection();
        this.frames = frames;
        this.queries = queries;
        this.ui = ui;
        this.conditions = new StoreConditions(store);
        try (Statement s = db.createStatement()) {
            s.execute("SET memory_limit = '" + APP_DUCKDB_MIB + "MB'");
        }
        readCatalog();
        FrameRuns r;
        try {
            r = FrameRuns.of(db, total);
        } catch (SQLException e) {
            r = null; // a store without s0.frame_runs: every view numbers its rows in view_rows
        }
        this.numbering = new StoreRows(frames, r);
        this.lookup = new FrameLookup(newConnection(), queries);
        this.growth = new StoreGrowth(growthHooks(), message, ui, System::nanoTime);
        growth.committedProperty().set(total);
    }

    /** Reads the store's events and their tables' pid columns, and its count (constructor, then the query thread). */
    private void readCatalog() throws SQLException {
        conditions.readCatalog(db);
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
     * its end ({@link #built()}). The view follows the commits ({@link StoreGrowth}); the other
     * views re-query ({@link StoreQueries}).
     *
     * @param writing null for a finished file, else true while the capture may still write it
     */
    public static StoreTable open(Path file, StoreCache cache, BooleanSupplier writing, LongConsumer counted,
                                  Executor queries, TaskExecutor ui) throws IOException, SQLException {
        CaptureStore store = writing == null ? CaptureStore.open(List.of(file), cache, null, false, counted)
                : CaptureStore.following(file, cache, writing, counted);
        try {
            // a finished file's context from its store's context_offsets: no pass over the file
            StoreTable t = new StoreTable(file, store, writing != null ? FrameReader.follow(file)
                    : FrameReader.open(file, FrameOffsets.contextBlocks(store.connection())), queries, ui);
            if (writing != null) {
                t.growth.follow(store, queries);
            } else {
                t.growth.ready().complete(null);
            }
            t.rebuild(false);
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

    /** What the store's growth asks of the table ({@link StoreGrowth}). */
    private StoreGrowth.Table growthHooks() {
        return new StoreGrowth.Table() {
            @Override
            public void grew() throws SQLException {
                readCatalog(); // new events, the count
                FrameRuns r = numbering.runs();
                numbering = new StoreRows(frames, r != null ? r.grown(db) : FrameRuns.of(db, total));
            }

            @Override
            public String whole() {
                try {
                    readCatalog();
                    numbering = new StoreRows(frames, FrameRuns.of(db, total));
                    lookup.warm(numbering);
                    return null;
                } catch (SQLException x) {
                    numbering = new StoreRows(frames, null);
                    return "cannot query the store: " + x.getMessage();
                }
            }

            @Override
            public long total() {
                return total;
            }

            @Override
            public boolean frameOrder() {
                return sortColumn == Column.FRAME;
            }

            @Override
            public void rebuild(boolean extend) {
                StoreTable.this.rebuild(extend);
            }
        };
    }

    /**
     * Events the store holds: those committed so far while it grows (UI thread), all once built.
     * The views re-query when it changes.
     */
    public LongProperty committedProperty() {
        return growth.committedProperty();
    }

    /** True while the store grows with a live capture's file (UI thread). */
    public ReadOnlyBooleanProperty growingProperty() {
        return growth.growingProperty();
    }

    /**
     * True while the live table is paused (Follow newest off; UI thread): a view in frame order
     * still grows with the store, keeping its rows' frames where they are; a view sorted otherwise
     * is not rebuilt until it is false again ({@link StoreGrowth}).
     */
    public BooleanProperty pausedProperty() {
        return growth.pausedProperty();
    }

    /**
     * Completes (on the query thread, the table's counts and frame order then those of every
     * event) once the store holds the whole file; at once for a finished file's store.
     */
    public CompletableFuture<Void> built() {
        return growth.ready().copy();
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
        rebuild(false);
    }

    /** True when the rows are in descending frame order: the newest event is the first row (UI thread). */
    public boolean newestFirst() {
        return sortColumn == Column.FRAME && !ascending;
    }

    /**
     * Makes the view again (the filter box, the event and thread restrictions, the order), or,
     * with {@code extend}, extends it with the frames committed since when its conditions and
     * frame order allow ({@link StoreRows#grow}).
     */
    @Override
    void rebuild(boolean extend) {
        long gen = generation.incrementAndGet();
        String text = filterText.get() == null ? "" : filterText.get().strip();
        String ev = eventRestriction.get();
        Integer tid = thread.get();
        String frames = restrictQuery();
        long restricted = restrictVersion();
        boolean frameOrder = sortColumn == Column.FRAME;
        String order = frameOrder ? "frame" + (ascending ? "" : " DESC")
                : sortColumn.sql + (ascending ? "" : " DESC") + ", frame";
        queries.execute(() -> {
            if (generation.get() != gen) {
                return; // a newer view is queued
            }
            StoreConditions.Where w = conditions.where(db, text, ev, tid, frames, restricted);
            StoreRows.View v;
            try {
                v = extend ? numbering.grow(db, gen, w.where(), order, view) : numbering.number(db, gen, w.where(), order, view);
                view = v;
            } catch (SQLException e) {
                String why = "cannot query the store: " + e.getMessage();
                ui.runOnUi(() -> message.set(why));
                return;
            }
            ui.runOnUi(() -> {
                if (generation.get() != gen) {
                    return;
                }
                growth.rebuilt(frameOrder);
                filterError.set(w.error());
                filterErrorPosition.set(w.errorAt());
                shown.set(v.size());
                StoreRowList fresh = new StoreRowList(numbering, v, db, queries, ui, generation::get, message::set);
                if (rows.get() instanceof StoreRowList old) {
                    fresh.keepPagesOf(old); // a grown view: the rows shown stay on screen
                }
                rows.set(fresh);
            });
        });
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
        Runnable task = () -> {
            StoreRows.View v = view;
            if (v == null || v.gen() != gen || generation.get() != gen) {
                return; // a newer view: its own go-to comes with it
            }
            FrameLookup.Found f = lookup.find(numbering, v, frame, say);
            int row = (int) Math.min(f.row(), Integer.MAX_VALUE);
            ui.runOnUi(() -> {
                if (generation.get() != gen) {
                    return;
                }
                if (row >= 0 && rows.get() instanceof StoreRowList r && r.view() == v && f.page() != null) {
                    r.put(row / PAGE, f.page());
                }
                if (say) {
                    message.set(row >= 0 ? String.format("frame %,d: row %,d", frame, row + 1) : f.why());
                }
                found.accept(row);
            });
        };
        StoreRows.View v = view;
        if (v != null && v.gen() == gen) {
            lookup.execute(task);
        } else {
            queries.execute(() -> lookup.execute(task)); // after the view being built
        }
    }

    /**
     * The stack traces recorded with the event of a frame ({@code capture --stack},
     * {@link StoreStacks}), kernel stack first, innermost call first.
     *
     * @param frame the event's packet number
     * @param done  receives the frames on the UI thread (empty when the event has no stack or the
     *              store cannot say)
     */
    public void stacksOf(long frame, Consumer<List<EventDetailTree.StackFrame>> done) {
        queries.execute(() -> {
            List<EventDetailTree.StackFrame> out = StoreStacks.of(db, frame);
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
        if (rows.get() instanceof StoreRowList r) {
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
        lookup.setThread(lookups);
        if (growth.ready().isDone()) { // a growing store's numbering is made again at each commit: warmed once built
            lookup.warm(numbering);
        }
    }

    /** Closes the store (after the queries and lookups queued before). */
    @Override
    public void close() {
        generation.incrementAndGet();
        lookup.close(queries, () -> {
            try {
                frames.close();
                store.close();
            } catch (IOException | SQLException e) {
                // closing: nothing left to tell
            }
        });
    }

    // ---- what the query and I/O graph views use: the filter rule (a restriction to frames: StoreFilters)

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
                f.complete(conditions.compile(text, null));
            } catch (SQLException | RuntimeException e) { // a FilterSyntaxException among them
                f.completeExceptionally(e);
            }
        });
        return f;
    }
}
