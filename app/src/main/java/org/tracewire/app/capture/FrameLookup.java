package org.tracewire.app.capture;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Go to frame's thread and DuckDB connection, apart from the store table's query thread so that a
 * lookup never waits behind the pages being fetched: the row of a frame in a view and that row's
 * page, read there ({@link StoreRows#rowOf}, {@link StoreRows#page}); also where a plain view's
 * direct page reading is made ready ({@link StoreRows#warm}) before the first go to frame.
 *
 * <p>Order on the thread: a lookup queued runs before a warm-up that has not started (the warm-up
 * waits for the lookups; a lookup before it reads its page by a query), so a go to frame is never
 * queued behind the warm-up; one already running is finished first (reading ~20,000 offsets).
 */
final class FrameLookup {
    /**
     * What a lookup found.
     *
     * @param row  the frame's row in the view, or -1
     * @param why  why it has none ("" when found)
     * @param page the row's page (null when not found)
     */
    record Found(long row, String why, EventRow[] page) {
    }

    private final Connection db;
    private volatile Executor thread;
    /** Lookups (and the close) not run yet, first queued first. */
    private final Queue<Runnable> lookups = new ConcurrentLinkedQueue<>();
    /** The warm-up not started yet, run once no lookup waits. */
    private final AtomicReference<Runnable> warmUp = new AtomicReference<>();

    /**
     * @param db     the lookups' own connection (closed by {@link #close})
     * @param thread runs the lookups until {@link #setThread}
     */
    FrameLookup(Connection db, Executor thread) {
        this.db = db;
        this.thread = thread;
    }

    /** Runs the lookups on this executor (one thread) from now on. */
    void setThread(Executor thread) {
        this.thread = thread;
    }

    /** Runs a task on the lookup thread. */
    void execute(Runnable task) {
        lookups.add(task);
        thread.execute(this::next);
    }

    /** Makes a numbering's direct page reading ready, on the lookup thread once no lookup waits. */
    void warm(StoreRows numbering) {
        warmUp.set(() -> numbering.warm(db));
        thread.execute(this::next);
    }

    /** One step on the thread (one per task queued): the oldest lookup, else the warm-up. */
    private void next() {
        Runnable task = lookups.poll();
        if (task == null) {
            task = warmUp.getAndSet(null);
        }
        if (task != null) {
            task.run();
        }
    }

    /**
     * The row of a frame in a view and its page (call on the lookup thread).
     *
     * @param say with a reason when the frame is not in the view (filtered out, or no event)
     */
    Found find(StoreRows numbering, StoreRows.View v, long frame, boolean say) {
        try {
            long i = numbering.rowOf(db, v, frame);
            if (i < 0) {
                return new Found(-1, say ? StoreRows.notShown(db, frame) : "", null);
            }
            return new Found(i, "", numbering.page(db, v, (int) (i / StoreRows.PAGE)));
        } catch (SQLException e) {
            return new Found(-1, "cannot query the store: " + e.getMessage(), null);
        }
    }

    /**
     * Closes the connection on the lookup thread, after the lookups queued, then hands {@code then}
     * to {@code next}; runs it there on the lookup thread when {@code next} was shut down meanwhile
     * (its owner let it go: what it would close is closed anyway).
     */
    void close(Executor next, Runnable then) {
        execute(() -> {
            warmUp.set(null); // not warmed over a closed connection
            try {
                db.close();
            } catch (SQLException e) {
                // closing: nothing left to tell
            }
            try {
                next.execute(then);
            } catch (RejectedExecutionException e) {
                then.run();
            }
        });
    }
}
