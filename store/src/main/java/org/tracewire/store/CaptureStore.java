package org.tracewire.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.duckdb.DuckDBConnection;
import org.tracewire.filter.Filter;
import org.tracewire.filter.SqlFilterCompiler;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.io.GrowingFile;
import org.tracewire.tracedat.TraceDatException;

/**
 * One or more captures, read, as SQL tables: the store of each source file (built on first use
 * with {@link StoreBuilder}, then reused from the {@link StoreCache} while the file is unchanged),
 * attached read-only to an in-memory DuckDB database whose views put them together, each row
 * with a {@code host} column naming the capture it comes from:
 * <ul>
 * <li>{@code events}, {@code lost}, {@code captures}, {@code sources}, and one view per typed
 *     table ({@code sched_switch}, …) over every source that has it;</li>
 * <li>derived: {@code sched_slice} (from {@code sched_switch}: what ran on each CPU from one switch
 *     to the next), {@code latency} (the pairs {@link org.tracewire.analysis.LatencyTracker} makes:
 *     wakeup → running, syscalls, irqs, softirqs) with {@code sched_latency} (its wakeup rows),
 *     {@code thread_state} (each task's Running / runnable / sleeping intervals) and the table macro
 *     {@code event_rate(interval_ns)} (events per interval, CPU and event); {@link DerivedViews}.</li>
 * </ul>
 * Hosts are the captures' host names (CAPTURE context; a trace.dat's {@code UNAME} node name, else
 * the file name); a name already taken by another capture gets {@code -2}, {@code -3}, ….
 * Schema and examples: {@code docs/store.md}. Not thread-safe (one JDBC connection).
 */
public final class CaptureStore implements AutoCloseable {
    /** DuckDB's memory limit while building a store, MiB. */
    static final int BUILD_MEMORY_MIB = 192;
    /** DuckDB's memory for queries over the stores (the views, {@code sql}, the app), MiB. */
    static final int QUERY_MEMORY_MIB = 512;

    private final DuckDBConnection db;
    /** The sources with their counts as last read (replaced whole: a followed store's grow). */
    volatile List<Source> sources;
    /** For {@link #filterQuery}: each event's table and format once found; each source's formats as last read. */
    private final Map<String, EventTable> tables = new HashMap<>();
    private final Map<Path, FormatCatalog> catalogs = new HashMap<>();
    private record EventTable(String table, EventFormat format) { }

    /**
     * One source file and its store.
     *
     * @param file      the source file as given
     * @param store     its store file
     * @param built     true when the store was built now, false when reused
     * @param events    events in the store
     * @param stoppedAt null when the store holds the whole file, else where reading stopped
     */
    public record Source(Path file, Path store, boolean built, long events, String stoppedAt) {
    }

    private volatile Map<String, String> missingViews = new LinkedHashMap<>();

    private CaptureStore(DuckDBConnection db, List<Source> sources) {
        this.db = db;
        this.sources = sources;
    }

    /**
     * Opens the stores of files, building those that are missing or stale.
     *
     * @param files    the source files (pcapng of tracewire frames, trace.dat), at least one
     * @param cache    where stores are kept
     * @param progress receives a line per store built (may be null)
     * @return the open store
     * @throws IOException  when a file cannot be read, is neither a pcapng nor a trace.dat (then an
     *                      {@link IllegalArgumentException}), or holds no tracewire context
     * @throws SQLException when DuckDB fails
     */
    public static CaptureStore open(List<Path> files, StoreCache cache, Consumer<String> progress)
            throws IOException, SQLException {
        return open(files, cache, progress, false);
    }

    /**
     * Like {@link #open(List, StoreCache, Consumer)}; with {@code follow}, each pcapng is indexed
     * while a capture still writes it ({@link PcapngInput#follow}), and the store is ready once the
     * capture has closed the file (then it equals the store of the finished file).
     *
     * @param follow read files as they grow
     */
    public static CaptureStore open(List<Path> files, StoreCache cache, Consumer<String> progress, boolean follow)
            throws IOException, SQLException {
        return open(files, cache, progress, follow, null);
    }

    /**
     * Like {@link #open(List, StoreCache, Consumer, boolean)}, telling {@code counted} the events
     * stored so far while a store is built (every {@value StoreBuilder#PROGRESS_EVERY} events, from
     * the calling thread; the count starts afresh for each file built).
     *
     * @param counted receives the running count (may be null)
     */
    public static CaptureStore open(List<Path> files, StoreCache cache, Consumer<String> progress, boolean follow,
                                    LongConsumer counted) throws IOException, SQLException {
        return open(files, cache, progress, follow ? FOLLOW_WRITERS : null, counted);
    }

    /**
     * Starts indexing a pcapng that a capture still writes, and returns the store as soon as its
     * first events are committed: the build runs on a thread of its own ({@code store-follow}) in
     * this store's database (the growing store attached read-write as {@code s0}), committing
     * about every {@value #FOLLOW_STEP_MS} ms ({@link StoreBuilder.Steps}), so every connection of
     * this store (its own, {@code DuckDBConnection.duplicate()}s of it) reads a consistent prefix
     * of the capture: the tables and views hold the events committed so far, {@code meta.complete}
     * is false until the build ends, and the views grow with the tables (a new event type, a new
     * capture). {@link #addCommitListener} tells each commit; {@link #built()} completes when the
     * file is read to its end once {@code written} says false. The store then equals the one
     * built from the finished file; it is moved into the cache under the finished file's identity
     * (docs/decisions/0021). Closing the store before stops the build (what was committed is
     * dropped).
     *
     * @param pcapng  the growing pcapng (its writer has at least started it)
     * @param cache   where stores are kept
     * @param written true while the capture may still write the file; null: while a process of
     *                this host holds it open for writing
     * @param counted receives the running count every {@value StoreBuilder#PROGRESS_EVERY} events
     *                (building thread; may be null)
     * @return the store, holding at least its first commit (or the whole file, when it ended first)
     * @throws IOException  when the file cannot be read or holds no tracewire context
     * @throws SQLException when DuckDB fails
     */
    public static CaptureStore following(Path pcapng, StoreCache cache, BooleanSupplier written, LongConsumer counted)
            throws IOException, SQLException {
        Path dir = cache.dir();
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Path growing = dir.resolve("following-" + ProcessHandle.current().pid() + "-" + FOLLOWED.incrementAndGet() + ".duckdb");
        Files.deleteIfExists(growing);
        Files.deleteIfExists(growing.resolveSibling(growing.getFileName() + ".wal"));
        DuckDBConnection db = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:");
        CaptureStore cs = new CaptureStore(db, new ArrayList<>(List.of(new Source(pcapng, growing, true, 0, null))));
        FollowedBuild f = new FollowedBuild(cs, pcapng, growing, cache);
        cs.follow = f;
        try {
            Path tmp = dir.resolve("query-tmp-" + ProcessHandle.current().pid());
            try (Statement st = db.createStatement()) {
                st.execute("SET memory_limit = '" + QUERY_MEMORY_MIB + "MB'");
                st.execute("SET temp_directory = " + Sql.literal(tmp.toString()));
                // the build's INSERTs on its own thread (docs/decisions/0018); each reader's query
                // runs on its caller's thread meanwhile, and on DuckDB's workers again afterwards
                try (ResultSet rs = st.executeQuery("SELECT current_setting('threads')")) {
                    rs.next();
                    f.threads = rs.getLong(1);
                }
                st.execute("SET threads = 1");
                st.execute("ATTACH " + Sql.literal(growing.toString()) + " AS s0");
            }
            cs.queryTmp = tmp;
            f.builderDb = db.duplicate();
            f.viewsDb = db.duplicate();
            try (Statement st = f.builderDb.createStatement()) {
                st.execute("USE s0"); // the builder's tables and appenders go to the growing store
            }
            Path real = pcapng.toRealPath();
            StoreBuilder.Steps steps = new StoreBuilder.Steps(FOLLOW_STEP_MS * 1_000_000L, f::committed);
            BooleanSupplier stillWritten = written != null ? written : () -> GrowingFile.openForWriting(real);
            f.thread = new Thread(() -> f.run(real, steps, stillWritten, counted), "store-follow");
            f.thread.setDaemon(true);
            f.thread.start();
            f.first.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cs.close();
            throw new IOException("interrupted while the store of " + pcapng + " started");
        } catch (IOException | SQLException | RuntimeException e) {
            cs.close();
            throw e;
        }
        if (f.built.isCompletedExceptionally() && !f.committedOnce) {
            Throwable t = f.failure();
            cs.close();
            if (t instanceof IOException io) {
                throw io;
            }
            if (t instanceof SQLException sql) {
                throw sql;
            }
            throw new IOException(pcapng + ": " + t.getMessage(), t);
        }
        return cs;
    }

    /** Least time between two commits of a followed store, ms. */
    static final int FOLLOW_STEP_MS = 1000;
    private static final AtomicInteger FOLLOWED = new AtomicInteger();

    /** Set while this store follows a growing file ({@link #following}). */
    private FollowedBuild follow;

    /**
     * Tells {@code listener} after each commit of a followed store ({@link #following}), on the
     * building thread once the views show that commit: the events committed, the last frame, and
     * whether it was the final commit. Added after the final commit, it is never called.
     *
     * @param listener what to tell (keep it short: the build waits for it)
     */
    public void addCommitListener(StoreBuilder.Committed listener) {
        if (follow != null) {
            follow.listeners.add(listener);
        }
    }

    /** Removes a listener added by {@link #addCommitListener}. */
    public void removeCommitListener(StoreBuilder.Committed listener) {
        if (follow != null) {
            follow.listeners.remove(listener);
        }
    }

    /**
     * The build of a followed store: completes with what was stored once the file is read to its
     * end (or exceptionally when the build failed); already complete for a store opened otherwise.
     */
    public CompletableFuture<StoreBuilder.Result> built() {
        return follow != null ? follow.built.copy()
                : CompletableFuture.completedFuture(null);
    }

    /** Events committed so far by a followed store's build (all events of any other store's source 0). */
    public long committedEvents() {
        return follow != null ? follow.events : sources.get(0).events();
    }

    /** Follows a file while a process of this host holds it open for writing ({@link PcapngInput#follow(Path)}). */
    private static final BooleanSupplier FOLLOW_WRITERS = () -> true;

    /**
     * Indexes one pcapng while a capture still writes it, the writer known to the caller (the app,
     * whose backend runs as root: it cannot see the backend's descriptors); ready once
     * {@code written} says false and the file is read to its end. Blocks (call in the background).
     *
     * @param pcapng  the growing pcapng
     * @param cache   where stores are kept
     * @param written true while the capture may still write the file
     * @param counted receives the running count (may be null)
     * @return the open store
     * @throws IOException  when the file cannot be read or holds no tracewire context
     * @throws SQLException when DuckDB fails
     */
    public static CaptureStore follow(Path pcapng, StoreCache cache, BooleanSupplier written,
                                      LongConsumer counted) throws IOException, SQLException {
        CaptureStore cs = following(pcapng, cache, written, counted);
        try {
            cs.built().join();
            return cs;
        } catch (CompletionException e) {
            cs.close();
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof SQLException sql) {
                throw sql;
            }
            throw e;
        }
    }

    private static CaptureStore open(List<Path> files, StoreCache cache, Consumer<String> progress,
                                     BooleanSupplier follow, LongConsumer counted)
            throws IOException, SQLException {
        if (files.isEmpty()) {
            throw new IllegalArgumentException("no file");
        }
        List<Source> sources = new ArrayList<>();
        List<Path> stores = new ArrayList<>();
        for (Path f : files) {
            boolean built = false;
            // a file the caller follows may be empty yet: its writer starts it with a pcapng header
            if (follow != null && (follow != FOLLOW_WRITERS || StoreFiles.isPcapng(f))) {
                // keyed by the file's final identity: known once the writer is done
                Path growing = cache.storeFor(f).resolveSibling("following-" + ProcessHandle.current().pid() + ".duckdb");
                StoreFiles.build(() -> follow == FOLLOW_WRITERS ? PcapngInput.follow(f) : PcapngInput.follow(f, follow),
                        f, growing, counted);
                Path store = cache.storeFor(f);
                Files.move(growing, store, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                stores.add(store);
                sources.add(new Source(f, store, true, 0, null));
                continue;
            }
            Path store = cache.storeFor(f);
            if (!Files.isRegularFile(store)) {
                StoreFiles.build(StoreFiles.opener(f), f, store, counted);
                built = true;
            } else {
                Files.setLastModifiedTime(store, FileTime.fromMillis(System.currentTimeMillis()));
            }
            stores.add(store);
            sources.add(new Source(f, store, built, 0, null));
        }
        cache.evict(stores);
        DuckDBConnection db = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:");
        try {
            Path tmp = cache.dir().resolve("query-tmp-" + ProcessHandle.current().pid());
            try (Statement st = db.createStatement()) {
                // the queries' buffer pool (its connections and their duplicates share it); beyond
                // it DuckDB spills to temporary files beside the stores, not into the process's RSS
                st.execute("SET memory_limit = '" + QUERY_MEMORY_MIB + "MB'");
                st.execute("SET temp_directory = " + Sql.literal(tmp.toString()));
            }
            CaptureStore cs = new CaptureStore(db, sources);
            cs.queryTmp = tmp;
            cs.attach();
            if (progress != null) {
                for (Source s : cs.sources) {
                    if (s.built) {
                        progress.accept(s.file + ": store built, " + s.events + " events"
                                + (s.stoppedAt == null ? "" : " (incomplete: " + s.stoppedAt + ")"));
                    } else if (s.stoppedAt != null) {
                        progress.accept(s.file + ": store incomplete: " + s.stoppedAt);
                    }
                }
            }
            return cs;
        } catch (SQLException | RuntimeException e) {
            db.close();
            throw e;
        }
    }

    /**
     * Builds the store of one source into a new DuckDB file (written under a temporary name, then
     * moved into place, so a reader never sees a half-built store).
     *
     * @return what was stored
     * @throws IOException  when the source cannot be read or opened
     * @throws SQLException when DuckDB fails
     */
    public static StoreBuilder.Result build(Path source, Path store) throws IOException, SQLException {
        return StoreFiles.build(StoreFiles.opener(source), source, store, null);
    }

    /**
     * The rows of an event's typed table that a filter in the kernel's syntax selects, as a query
     * ({@link org.tracewire.filter.SqlFilterCompiler}): the table's columns, and when the filter
     * names them {@code task_comm} ({@code COMM}), {@code common_flags} and
     * {@code common_preempt_count} joined in from {@code events}.
     *
     * @param event  {@code system:event}
     * @param filter the filter text
     * @return a SELECT (no ORDER BY)
     * @throws IllegalArgumentException when no file of the store holds the event
     * @throws org.tracewire.filter.FilterSyntaxException when the filter does not parse or fit the event
     * @throws SQLException when DuckDB fails
     */
    public String filterQuery(String event, String filter) throws SQLException {
        EventTable found = tables.get(event);
        if (found == null) { // found once per event: the app and the tests ask per filter typed
            found = eventTable(event);
            if (found.table != null && found.format != null) {
                tables.put(event, found);
            }
        }
        String table = found.table;
        EventFormat format = found.format;
        if (table == null || format == null) {
            throw new IllegalArgumentException("no file holds events of " + event);
        }
        Filter f = Filter.parse(filter);
        String cond = SqlFilterCompiler.compile(f, format);
        return "SELECT * FROM " + SqlFilterCompiler.relation(table, cond) + " WHERE " + cond;
    }

    /** The first source's table of an event and the event's format; either null when not found. */
    private EventTable eventTable(String event) throws SQLException {
        List<Source> all = sources;
        for (int i = 0; i < all.size(); i++) {
            Source src = all.get(i);
            try (PreparedStatement ps = db.prepareStatement("SELECT table_name FROM s" + i + ".event_tables WHERE event = ?")) {
                ps.setString(1, event);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        FormatCatalog c = catalogs.get(src.file);
                        if (c == null || c.byName(event) == null) { // read once per file (again when it grew)
                            try (RecordInput in = RecordInput.open(src.file, null)) {
                                c = in.catalog();
                            } catch (IOException e) {
                                throw new SQLException(src.file + ": " + e.getMessage(), e);
                            }
                            catalogs.put(src.file, c);
                        }
                        return new EventTable(rs.getString(1), c.byName(event));
                    }
                }
            }
        }
        return new EventTable(null, null);
    }

    /**
     * Writes every table and view as Parquet under {@code dir}, Hive-partitioned, so that Spark,
     * Trino or DuckDB read the dataset with no tracewire code: {@code dir/events/host=H/event=E/*.parquet}
     * (the {@code events} rows), {@code dir/<table>/host=H/*.parquet} for each typed table,
     * {@code lost}, {@code captures}, {@code tasks} and the derived views ({@code sched_slice},
     * {@code latency}, {@code sched_latency}, {@code thread_state}; not the macro {@code event_rate}).
     * The partition columns are not repeated inside the files (Hive's convention).
     *
     * @param dir an empty or missing directory
     * @return the tables written with their row counts
     * @throws IOException  when {@code dir} exists and is not empty
     * @throws SQLException when DuckDB fails
     */
    public Map<String, Long> exportParquet(Path dir) throws IOException, SQLException {
        return ParquetExport.write(db, dir);
    }

    /** The sources, in the order given, with their stores' counts. */
    public List<Source> sources() {
        return sources;
    }

    /** The connection (the views described above; the sources' stores attached read-only as {@code s0}, {@code s1}, …). */
    public Connection connection() {
        return db;
    }

    private void attach() throws SQLException {
        try (Statement s = db.createStatement()) {
            for (int i = 0; i < sources.size(); i++) {
                s.execute("ATTACH " + Sql.literal(sources.get(i).store.toString()) + " AS s" + i + " (READ_ONLY)");
            }
        }
        views(db);
    }

    /**
     * Reads the attached sources' counts and catalogs and (re)creates the views over them on a
     * connection of this store's database ({@code CREATE OR REPLACE}: a reader never finds a view
     * missing while a followed store's views grow with its tables); {@link UnionViews}.
     */
    void views(Connection db) throws SQLException {
        UnionViews made = UnionViews.create(db, this.sources);
        this.sources = List.copyOf(made.sources);
        this.missingViews = made.missingViews;
    }
    /**
     * Derived views not made, with the reason; also {@code latency pairs of EVENT} for an event left
     * out of {@code latency} (its format lacks a field the pairing reads).
     */
    public Map<String, String> missingViews() {
        return missingViews;
    }

    @Override
    public void close() throws SQLException {
        FollowedBuild f = follow;
        if (f != null) {
            f.stop();
        }
        db.close();
        if (f != null) {
            f.closed();
        }
        if (queryTmp != null) {
            try {
                Files.deleteIfExists(queryTmp); // DuckDB removed its files; the folder, when empty
            } catch (IOException e) {
                // not empty or gone: the cache's eviction does not look into folders
            }
        }
    }

    /** The queries' temporary folder ({@code temp_directory}), null when none was set. */
    private Path queryTmp;
}
