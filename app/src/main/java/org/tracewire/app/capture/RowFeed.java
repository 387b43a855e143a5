package org.tracewire.app.capture;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The rows of an opened file's first screen (or a trace.dat, which has no store) on their way to
 * the views: readers queue them on their own threads ({@link RowQueue}, bounded), and once per UI
 * pulse {@link #drain} moves them into the window of rows ({@link RingObservableList}, the newest
 * {@value CaptureViewModel#WINDOW}) in one change and hands the batch to every
 * {@link CaptureViewModel.RowSink}.
 */
final class RowFeed {
    private final RingObservableList<EventRow> rows = new RingObservableList<>(CaptureViewModel.WINDOW);
    private final RowQueue queue = new RowQueue(CaptureViewModel.WINDOW);
    private final List<CaptureViewModel.RowSink> sinks = new CopyOnWriteArrayList<>();
    /** The rows' time base, set off the UI thread; drain hands it to the table first. */
    private volatile Boolean pendingWallClock;

    RingObservableList<EventRow> rows() {
        return rows;
    }

    void addSink(CaptureViewModel.RowSink sink) {
        sinks.add(sink);
    }

    /** Queues rows from a file reader, waiting while {@code limit} are queued ({@link RowQueue#offer}). */
    void offer(List<EventRow> batch, int limit, long generation, LongSupplier current, Runnable wakeUi) {
        queue.offer(batch, limit, generation, current, wakeUi);
    }

    /** Queues rows (any thread); beyond the window the oldest are dropped. */
    void accept(List<EventRow> batch) {
        queue.accept(batch);
    }

    void wallClock(boolean wall) {
        pendingWallClock = wall;
    }

    /** Wakes a reader waiting to queue (a cancel). */
    void wake() {
        queue.wake();
    }

    /** Drops the queued and shown rows (a new capture or file); the sinks hear it. */
    void clear() {
        queue.clear();
        rows.clear();
        sinks.forEach(CaptureViewModel.RowSink::cleared);
    }

    /**
     * Moves the queued rows into the window, the table and the sinks (UI thread).
     *
     * @param table the event table
     * @param read  hears the rows read since the last drain (what the readers counted, kept or
     *              not), before the table and the sinks see the batch
     */
    void drain(EventTableViewModel table, LongConsumer read) {
        Boolean wall = pendingWallClock;
        if (wall != null) {
            pendingWallClock = null;
            table.wallClockProperty().set(wall);
        }
        RowQueue.Drained drained = queue.drain();
        List<EventRow> batch = drained.rows();
        if (batch.isEmpty()) {
            return;
        }
        rows.append(batch);
        read.accept(drained.received());
        List<EventRow> shared = Collections.unmodifiableList(batch);
        table.appended(shared);
        for (CaptureViewModel.RowSink sink : sinks) {
            sink.appended(shared);
        }
    }
}
