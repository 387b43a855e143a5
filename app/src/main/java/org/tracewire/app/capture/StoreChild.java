package org.tracewire.app.capture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.tracewire.store.StoreBuildProcess;
import org.tracewire.store.StoreCache;

/**
 * The child JVMs that build opened files' stores ({@link StoreBuildProcess}; docs/decisions/0027):
 * the one building the current file's store, and one {@linkplain #prepare prepared} ahead for a
 * file about to be opened (docs/decisions/0035). Thread-safe.
 */
final class StoreChild {
    /** The child building the current file's store, while it runs. */
    private final AtomicReference<StoreBuildProcess> running = new AtomicReference<>();
    /** A child started ahead for a file about to be opened; null when none. */
    private final AtomicReference<Prepared> prepared = new AtomicReference<>();

    private record Prepared(Path file, StoreBuildProcess child) { }

    /**
     * Starts the child that builds {@code file}'s store before the file is opened (the app's start
     * with {@code --open}): it starts its JVM and loads DuckDB while the window is made, and
     * builds once {@link #build} lets it, at the file's first rows. Nothing when the store is in
     * the cache; a child prepared before for another file is stopped.
     *
     * @param file  a pcapng
     * @param cache the stores' cache
     */
    void prepare(Path file, StoreCache cache) {
        try {
            if (!Files.isRegularFile(cache.storeFor(file))) {
                drop(prepared.getAndSet(new Prepared(file, StoreBuildProcess.prepare(file, cache))));
            }
        } catch (IOException e) {
            // the read starts a child of its own, which then says what is wrong
        }
    }

    /**
     * Builds a file's store into the cache in a child JVM, the one prepared for it if any; blocks
     * until it ends (store thread). Meanwhile {@link #loadDriver} loads DuckDB's driver, which
     * opening the store then needs.
     *
     * @param stale   true once a newer read came (the child is then stopped)
     * @param counted hears the events stored so far
     * @throws IOException the child's refusal, its death, or its stop by a newer read
     * @throws InterruptedException when this thread is interrupted (the child is then stopped)
     */
    void build(Path file, StoreCache cache, BooleanSupplier stale, LongConsumer counted)
            throws IOException, InterruptedException {
        StoreBuildProcess c = takePrepared(file);
        if (c != null) {
            try {
                c.go();
            } catch (IOException e) {
                c.close(); // gone meanwhile: a child of its own instead
                c = null;
            }
        }
        if (c == null) {
            c = StoreBuildProcess.start(file, cache);
        }
        running.set(c);
        CompletableFuture<Void> driver = loadDriver();
        try {
            if (stale.getAsBoolean()) {
                c.close(); // a newer read came while it started
            }
            c.await(counted);
            driver.get();
        } catch (ExecutionException e) {
            throw new IOException(e.getCause()); // DuckDB's driver did not load
        } finally {
            running.compareAndSet(c, null);
            c.close();
        }
    }

    /** Stops the child building a store, if one runs (any thread; its build then fails). */
    void stop() {
        StoreBuildProcess c = running.getAndSet(null);
        if (c != null) {
            c.close();
        }
    }

    /** Stops the prepared child, if any (app exit). */
    void dropPrepared() {
        drop(prepared.getAndSet(null));
    }

    /** Stops a child prepared for another file than {@code file} (a read of {@code file} starts). */
    void keepPreparedOnlyFor(Path file) {
        Prepared p = prepared.get();
        if (p != null && !same(p, file) && prepared.compareAndSet(p, null)) {
            drop(p);
        }
    }

    /** The child prepared for {@code file}, else null; a child prepared for another file is stopped. */
    private StoreBuildProcess takePrepared(Path file) {
        Prepared p = prepared.getAndSet(null);
        if (p != null && same(p, file)) {
            return p.child();
        }
        drop(p);
        return null;
    }

    private static boolean same(Prepared p, Path file) {
        return p.file().toAbsolutePath().normalize().equals(file.toAbsolutePath().normalize());
    }

    private static void drop(Prepared p) {
        if (p != null) {
            p.child().close();
        }
    }

    /**
     * Loads DuckDB's driver ({@link StoreBuildProcess#loadDriver()}: 0.6 s after the child, on the
     * app's C1 code) on a thread of its own while the child builds the store. The file's context is then
     * learnt from the store's {@code context_offsets} ({@link FrameReader#open(Path, long[])}),
     * not by a pass of the app's over the file (~1 CPU-s of the 10 M-event capture, taken from the
     * child's two cores: BENCHMARKS.md).
     */
    private static CompletableFuture<Void> loadDriver() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                StoreBuildProcess.loadDriver();
                f.complete(null);
            } catch (SQLException | RuntimeException | LinkageError e) {
                f.completeExceptionally(e);
            }
        }, "tracewire-duckdb-driver");
        t.setDaemon(true);
        t.start();
        return f;
    }
}
