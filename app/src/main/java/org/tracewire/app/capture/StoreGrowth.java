package org.tracewire.app.capture;

import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.StringProperty;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.store.CaptureStore;

/**
 * A {@link StoreTable}'s store growing with a live capture: the commits it hears of (coalesced
 * into one catalog re-read queued at a time on the query thread), the events committed, whether
 * the store still grows, the end of the build, and how the table's view follows a commit:
 * <ul>
 * <li>in frame order (filtered or not, either direction) the view is extended: the rows of the
 * frames committed since are added at its end (ascending) or its top (descending), the rows before
 * keep their frames, and the table's window moves with them ({@link StoreRows.View#addedAtTop()}),
 * so a paused table holds still;</li>
 * <li>sorted otherwise, new rows may fall anywhere: the view is rebuilt at most every
 * {@value #SORTED_REBUILD_MS} ms (the table's message says so), and not at all while the table is
 * paused ({@link #pausedProperty()}): it holds still until Follow newest resumes or the capture
 * stops.</li>
 * </ul>
 * Properties: UI thread.
 */
final class StoreGrowth {
    /** At most one rebuild of a view sorted other than by frame this often while the store grows, ms. */
    static final long SORTED_REBUILD_MS = 5_000;

    /** What the growth asks of its table. */
    interface Table {
        /** Re-reads the store's catalog and extends its frame order to the rows committed (query thread). */
        void grew() throws SQLException;

        /**
         * The store holds the whole file: its catalog and frame order read again (query thread).
         *
         * @return what went wrong, or null
         */
        String whole();

        /** The store's events as the table last read them (query thread). */
        long total();

        /** True when the view is in frame order, either direction (UI thread). */
        boolean frameOrder();

        /** Extends the view with the frames committed since ({@code extend}), or makes it again (UI thread). */
        void rebuild(boolean extend);
    }

    private final Table table;
    /** The table's message: what this class says about a growing store's view. */
    private final StringProperty message;
    private final TaskExecutor ui;
    private final LongSupplier clock;
    /** Events committed so far while the store grows; its whole count once built (UI thread). */
    private final LongProperty committed = new SimpleLongProperty();
    /** True while the store is built from a live capture's growing file (UI thread). */
    private final BooleanProperty growing = new SimpleBooleanProperty();
    /** True while the table is paused (Follow newest off): a sorted view holds still (UI thread). */
    private final BooleanProperty paused = new SimpleBooleanProperty();
    /** Completes once the store holds the whole file and the table knows it. */
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    /** A catalog re-read is queued on the query thread (coalesces commits). */
    private final AtomicBoolean catalogQueued = new AtomicBoolean();
    /** When a sorted view was last rebuilt while growing (clock ns; UI thread). */
    private long sortedRebuiltAt = Long.MIN_VALUE / 2;
    /** A sorted view left as it was at a commit (UI thread): rebuilt on resume. */
    private boolean behind;
    /** The last note put in {@link #message}, or null. */
    private String note;

    /**
     * @param table   the table whose store grows
     * @param message the table's message (UI thread)
     * @param ui      hands the commits' counts to the UI thread
     * @param clock   a monotonic clock in ns ({@code System::nanoTime})
     */
    StoreGrowth(Table table, StringProperty message, TaskExecutor ui, LongSupplier clock) {
        this.table = table;
        this.message = message;
        this.ui = ui;
        this.clock = clock;
        paused.addListener((o, a, p) -> {
            if (!p && behind) {
                table.rebuild(false); // resumed: the sorted view left as it was catches up
            }
        });
    }

    /**
     * Subscribes to a growing store's commits (call before the table is handed out): once per
     * burst of commits the table's catalog is read again on the query thread, then its view
     * follows on the UI thread ({@link #grown}); once the store holds the whole file, the same
     * with every event, then {@link #ready()} completes and {@link #growingProperty()} is false.
     *
     * @param store   the store
     * @param queries the table's query thread
     */
    void follow(CaptureStore store, Executor queries) {
        committed.set(table.total());
        growing.set(true);
        store.addCommitListener((n, frame, last) -> {
            ui.runOnUi(() -> committed.set(n));
            if (catalogQueued.compareAndSet(false, true)) {
                queries.execute(() -> {
                    catalogQueued.set(false);
                    try {
                        table.grew();
                    } catch (SQLException e) {
                        return; // the store closed meanwhile
                    }
                    ui.runOnUi(this::grown);
                });
            }
        });
        store.built().whenComplete((r, e) -> queries.execute(() -> {
            String why = table.whole();
            long n = table.total();
            ready.complete(null);
            String problem = e != null ? "the store stopped growing: " + LiveCapture.rootMessage(e) : why;
            ui.runOnUi(() -> {
                committed.set(n);
                growing.set(false);
                if (problem != null) {
                    message.set(problem);
                }
                grown(); // every event now
            });
        }));
    }

    /**
     * The view follows a commit (UI thread): extended in frame order (the rows shown keep their
     * frames); sorted otherwise, rebuilt at most every {@value #SORTED_REBUILD_MS} ms and not while
     * paused (once the store is built, at once).
     */
    private void grown() {
        if (table.frameOrder()) {
            table.rebuild(true);
        } else if (!growing.get() || !paused.get()
                && clock.getAsLong() - sortedRebuiltAt >= TimeUnit.MILLISECONDS.toNanos(SORTED_REBUILD_MS)) {
            table.rebuild(false);
        } else {
            behind = true;
            if (paused.get()) {
                say("paused: sorted other than by frame, the table holds still until Follow newest resumes");
            }
        }
    }

    /**
     * A view reached the table (UI thread): a sorted one's next rebuild is timed from now, and the
     * table's message says how it follows the store while it grows.
     *
     * @param frameOrder the view is in frame order
     */
    void rebuilt(boolean frameOrder) {
        behind = false;
        if (frameOrder || !growing.get()) {
            say(null);
            return;
        }
        sortedRebuiltAt = clock.getAsLong();
        say(String.format("live: sorted other than by frame, the table is rebuilt every %d s (in frame order it grows"
                + " at each commit)", TimeUnit.MILLISECONDS.toSeconds(SORTED_REBUILD_MS)));
    }

    /** Shows a note about the view in the table's message (null: takes back the last one). */
    private void say(String text) {
        if (text != null) {
            message.set(text);
        } else if (note != null && note.equals(message.get())) {
            message.set("");
        }
        note = text;
    }

    /** Completes once the store holds the whole file (at once for a finished file's store). */
    CompletableFuture<Void> ready() {
        return ready;
    }

    /** Events the store holds: committed so far while it grows, all once built (UI thread). */
    LongProperty committedProperty() {
        return committed;
    }

    /** True while the store grows (UI thread). */
    BooleanProperty growingProperty() {
        return growing;
    }

    /** True while the table is paused: a view sorted other than by frame is not rebuilt at commits. */
    BooleanProperty pausedProperty() {
        return paused;
    }
}
