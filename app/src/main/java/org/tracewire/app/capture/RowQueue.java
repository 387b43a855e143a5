package org.tracewire.app.capture;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Rows on their way from a reader thread to the views: queued by {@link #accept} (bounded, the
 * oldest dropped: a live capture's newest rows, which never hold its reader back) or
 * {@link #offer} (the reader waits while the views are behind), taken by the UI pulse with
 * {@link #drain}, which tells how many were queued in all, the dropped ones included. Thread-safe.
 */
final class RowQueue {
    private final Object lock = new Object();
    private final ArrayDeque<EventRow> pending = new ArrayDeque<>();
    private final int bound;
    private long received;

    /** @param bound rows {@link #accept} keeps, the newest */
    RowQueue(int bound) {
        this.bound = bound;
    }

    /**
     * Queues rows, dropping the oldest beyond the bound (they would leave the window anyway): those
     * are counted as received.
     *
     * @param batch rows, oldest first
     */
    void accept(List<EventRow> batch) {
        synchronized (lock) {
            received += batch.size();
            int from = Math.max(0, batch.size() - bound);
            for (EventRow r : batch.subList(from, batch.size())) {
                if (pending.size() >= bound) {
                    pending.pollFirst();
                }
                pending.addLast(r);
            }
        }
    }

    /**
     * Queues rows, waiting while {@code limit} rows are queued; asks for a drain meanwhile.
     *
     * @param batch      rows, oldest first
     * @param limit      rows queued at most before the reader waits
     * @param generation the read's generation now: when it changes ({@code current}), the wait ends
     * @param current    the current generation
     * @param drainSoon  asks the UI thread to drain
     */
    void offer(List<EventRow> batch, int limit, long generation, LongSupplier current, Runnable drainSoon) {
        while (true) {
            synchronized (lock) {
                if (pending.size() < limit || current.getAsLong() != generation) {
                    received += batch.size();
                    pending.addAll(batch);
                    return;
                }
            }
            drainSoon.run();
            synchronized (lock) {
                if (pending.size() >= limit && current.getAsLong() == generation) {
                    try {
                        lock.wait(50);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }
    }

    /** Wakes a waiting reader (its read was cancelled). */
    void wake() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    /** Drops what is queued. */
    void clear() {
        synchronized (lock) {
            pending.clear();
            received = 0;
            lock.notifyAll();
        }
    }

    /** The rows queued, oldest first, and how many were queued in all since the last drain. */
    record Drained(List<EventRow> rows, long received) {
    }

    /** Takes what is queued, waking a waiting reader. */
    Drained drain() {
        synchronized (lock) {
            List<EventRow> batch = pending.isEmpty() ? List.of() : new ArrayList<>(pending);
            long n = received;
            pending.clear();
            received = 0;
            lock.notifyAll();
            return new Drained(batch, n);
        }
    }
}
