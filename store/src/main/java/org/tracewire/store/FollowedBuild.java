package org.tracewire.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.duckdb.DuckDBConnection;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.store.CaptureStore.Source;

/**
 * The build of a followed store ({@link CaptureStore#following}, docs/decisions/0021): its thread
 * ({@code store-follow}), its connections (the builder's, on the growing store {@code s0}; the one
 * the views are remade on), and its state (events and last frame committed, listeners, the
 * {@link #built} future). {@link #run} reads the growing pcapng until {@code written} says false,
 * then moves the store into the cache; {@link #committed} updates the store's views and counts
 * after each commit. Errors of the build complete {@link #built} exceptionally.
 */
final class FollowedBuild {
    private final CaptureStore cs;
    final Path file;
    final Path growing;
    final StoreCache cache;
    final CountDownLatch first = new CountDownLatch(1);
    final CompletableFuture<StoreBuilder.Result> built = new CompletableFuture<>();
    final List<StoreBuilder.Committed> listeners = new CopyOnWriteArrayList<>();
    volatile boolean committedOnce;
    volatile boolean closing;
    volatile long events;
    volatile long lastFrame;
    /** Where the store is now (moved into the cache once built). */
    volatile Path store;
    long threads;
    long tables = -1;
    long captures = -1;
    Thread thread;
    DuckDBConnection builderDb;
    DuckDBConnection viewsDb;

    FollowedBuild(CaptureStore cs, Path file, Path growing, StoreCache cache) {
        this.cs = cs;
        this.file = file;
        this.growing = growing;
        this.cache = cache;
        this.store = growing;
    }

    Throwable failure() {
        try {
            built.join();
            return null;
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    /** The building thread of a followed store. */
    void run(Path real, StoreBuilder.Steps steps, BooleanSupplier written, LongConsumer counted) {
        FollowedBuild f = this;
        StoreBuilder.Result r = null;
        Throwable failed = null;
        try (RecordInput in = PcapngInput.follow(real, () -> {
            steps.idle();
            return !f.closing && written.getAsBoolean();
        })) {
            r = StoreBuilder.build(in, f.builderDb, f.file.toAbsolutePath().toString(), counted, steps);
            try (Statement st = f.builderDb.createStatement()) {
                // FORCE: waits for readers; a plain CHECKPOINT fails while a reader's snapshot keeps an
                // earlier step's transaction alive (DuckDB keeps its checkpoint lock until cleaned up)
                st.execute("FORCE CHECKPOINT");
                st.execute("SET threads = " + f.threads);
            }
            if (!f.closing && r.stoppedAt() == null) {
                // readers keep the attached database; its open file moves into the cache (decision 0021)
                Path store = f.cache.storeFor(f.file);
                Files.move(f.growing, store, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                f.store = store;
                List<Source> now = new ArrayList<>(cs.sources);
                Source s = now.get(0);
                now.set(0, new Source(s.file(), store, s.built(), s.events(), s.stoppedAt()));
                cs.sources = List.copyOf(now);
                f.cache.evict(List.of(store));
            }
        } catch (IOException | SQLException | RuntimeException e) {
            failed = e;
        } finally {
            try {
                f.builderDb.close();
            } catch (SQLException e) {
                // closing
            }
        }
        if (failed != null) {
            f.built.completeExceptionally(failed);
        } else {
            f.built.complete(r);
        }
        f.first.countDown();
    }

    /** After each commit of a followed store's build (building thread): views, counts, listeners. */
    void committed(long events, long lastFrame, boolean last) {
        FollowedBuild f = this;
        try {
            long tables;
            long captures;
            try (Statement st = f.viewsDb.createStatement();
                 ResultSet rs = st.executeQuery("SELECT (SELECT count(*) FROM s0.event_tables), (SELECT count(*) FROM s0.captures)")) {
                rs.next();
                tables = rs.getLong(1);
                captures = rs.getLong(2);
            }
            if (tables != f.tables || captures != f.captures || last) {
                cs.views(f.viewsDb); // new tables or hosts, or the final counts
                f.tables = tables;
                f.captures = captures;
            } else {
                List<Source> now = new ArrayList<>(cs.sources);
                Source s = now.get(0);
                now.set(0, new Source(s.file(), s.store(), s.built(), events, s.stoppedAt()));
                cs.sources = List.copyOf(now);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot update the views of " + f.file + ": " + e.getMessage(), e);
        }
        f.events = events;
        f.lastFrame = lastFrame;
        f.committedOnce = true;
        f.first.countDown();
        for (StoreBuilder.Committed l : f.listeners) {
            l.committed(events, lastFrame, last);
        }
    }

    /** Stops the build (its input ends at its next look for the writer) and waits for it, up to 10 s. */
    void stop() {
        FollowedBuild f = this;
        if (f.thread != null && f.thread.isAlive()) {
            f.closing = true;
            try {
                f.thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** After the store's connection closed: closes the views' connection, deletes a store not built to its end. */
    void closed() {
        FollowedBuild f = this;
        try {
            if (f.viewsDb != null) {
                f.viewsDb.close();
            }
        } catch (SQLException | RuntimeException e) {
            // closing
        }
        if (f.store.equals(f.growing)) { // not built to its end: not kept
            try {
                Files.deleteIfExists(f.growing);
                Files.deleteIfExists(f.growing.resolveSibling(f.growing.getFileName() + ".wal"));
            } catch (IOException e) {
                // left for the cache's eviction
            }
        }
    }
}
