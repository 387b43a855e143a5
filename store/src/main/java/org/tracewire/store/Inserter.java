package org.tracewire.store;

import java.sql.SQLException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Where a {@link StoreBuilder build}'s statements run: every statement on the build's connection
 * (the {@code CREATE TABLE}s, each batch's {@code INSERT}, {@code meta}, the context tables, the
 * commit) is handed here as {@link Work} and run in the order handed. {@link #start()} runs them
 * on a thread of its own, named {@value #THREAD_NAME} (the only one that touches the connection
 * while the build reads, so reading the next batch overlaps DuckDB's append of the last:
 * docs/decisions/0029); {@link #inline()} runs each at once on the caller's thread (the build of a
 * growing file, committed in {@link StoreBuilder.Steps}).
 *
 * <p>A failure (an {@link SQLException}, a runtime exception or an error thrown by a work) is kept,
 * the works after it are dropped, and the same exception object is thrown to the building thread
 * by its next {@link #submit}, {@link #await} or {@link #barrier}. {@link #close()} ends the thread
 * on every exit path (the work running is let finish: DuckDB's statement is not interrupted).
 * Handing over through the queue orders the reader's writes before the work that reads them.
 */
final class Inserter implements AutoCloseable {
    /** The name of the inserting thread. */
    static final String THREAD_NAME = "tracewire-store-inserter";

    /** Work on the build's connection. */
    @FunctionalInterface
    interface Work {
        /** @throws SQLException when DuckDB refuses the statement */
        void run() throws SQLException;
    }

    /** How often a waiting reader looks at the failure, ms (a work that failed never signals). */
    private static final long LOOK_MS = 20;
    private static final Work STOP = () -> { };

    /** The works handed over, in order (null: inline). Not bounded: a build bounds its batches itself. */
    private final LinkedBlockingQueue<Work> queue;
    private final Thread thread;
    private volatile Throwable failure;

    private Inserter(String threadName) {
        queue = threadName != null ? new LinkedBlockingQueue<>() : null;
        thread = threadName != null ? new Thread(this::loop, threadName) : null;
    }

    /** An inserter running the works on a thread of its own (a daemon: it never holds a JVM's exit). */
    static Inserter start() {
        return start(THREAD_NAME);
    }

    /** Likewise, its thread named {@code threadName} (a second inserter of a build). */
    static Inserter start(String threadName) {
        Inserter i = new Inserter(threadName);
        i.thread.setDaemon(true);
        i.thread.start();
        return i;
    }

    /** An inserter that runs each work at once on the caller's thread. */
    static Inserter inline() {
        return new Inserter(null);
    }

    /** True when the works run on the inserting thread. */
    boolean threaded() {
        return thread != null;
    }

    /**
     * Hands over a work, run after the works handed before it (inline: now).
     *
     * @throws SQLException the failure of an earlier work (or of this one, inline)
     */
    void submit(Work w) throws SQLException {
        if (thread == null) {
            w.run();
            return;
        }
        check();
        queue.add(w);
    }

    /**
     * Waits for every work handed over so far to have run.
     *
     * @throws SQLException the failure of one of them
     */
    void barrier() throws SQLException {
        if (thread == null) {
            return;
        }
        Semaphore done = new Semaphore(0);
        submit(done::release);
        await(done);
    }

    /**
     * Waits for a permit of {@code s} (released by a work), not interruptibly (as a build of one
     * thread is not: the interrupt is kept for the caller), looking at the failure meanwhile.
     *
     * @throws SQLException the failure of a work (the permit will then never come)
     */
    void await(Semaphore s) throws SQLException {
        boolean interrupted = false;
        try {
            while (true) {
                check();
                try {
                    if (s.tryAcquire(LOOK_MS, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Throws the failure of a work, the very object thrown (its type and message). */
    private void check() throws SQLException {
        Throwable f = failure;
        if (f instanceof SQLException e) {
            throw e;
        } else if (f instanceof RuntimeException e) {
            throw e;
        } else if (f instanceof Error e) {
            throw e;
        }
    }

    private void loop() {
        while (true) {
            Work w;
            try {
                w = queue.take();
            } catch (InterruptedException e) {
                return; // not interrupted by us: close() hands over STOP
            }
            if (w == STOP) {
                return;
            }
            if (failure != null) {
                continue; // the build stops: nothing after a failure runs
            }
            try {
                w.run();
            } catch (SQLException | RuntimeException | Error e) {
                failure = e;
            }
        }
    }

    /** Drops the works not yet run and ends the thread, once the running one is done (waited for). */
    @Override
    public void close() {
        if (thread == null) {
            return;
        }
        queue.clear();
        queue.add(STOP);
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
