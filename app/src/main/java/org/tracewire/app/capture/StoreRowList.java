package org.tracewire.app.capture;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import javafx.collections.ObservableListBase;
import org.tracewire.app.util.TaskExecutor;

/**
 * The virtual list of one view: {@link StoreRows.View#size()} rows, a row not fetched yet is
 * {@link StoreTable#LOADING} until its page arrives (then the list reports an update of those
 * rows). Pages are fetched on the query thread; a page no longer near the rows shown
 * ({@link #showing}) when its turn comes is not fetched. UI thread.
 */
final class StoreRowList extends ObservableListBase<EventRow> {
    private final StoreRows numbering;
    private final StoreRows.View view;
    private final int size;
    private final Connection db;
    private final Executor queries;
    private final TaskExecutor ui;
    private final LongSupplier generation;
    private final Consumer<String> problem;
    private final Map<Integer, EventRow[]> pages = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, EventRow[]> e) {
            return size() > StoreRows.CACHED_PAGES;
        }
    };
    private final Set<Integer> requested = new HashSet<>();
    /** The rows shown, [from, to): pages near them are fetched, others skipped. */
    private volatile long shownFrom;
    private volatile long shownTo = Long.MAX_VALUE;

    /**
     * @param numbering  the rows of the table's views (reads the pages)
     * @param view       the view
     * @param db         the query thread's connection
     * @param queries    the query thread
     * @param ui         hands pages to the UI thread
     * @param generation the table's current generation (a page of an older view is not fetched)
     * @param problem    told (UI thread) when a page cannot be read
     */
    StoreRowList(StoreRows numbering, StoreRows.View view, Connection db, Executor queries, TaskExecutor ui,
            LongSupplier generation, Consumer<String> problem) {
        this.numbering = numbering;
        this.view = view;
        this.size = (int) Math.min(view.size(), Integer.MAX_VALUE);
        this.db = db;
        this.queries = queries;
        this.ui = ui;
        this.generation = generation;
        this.problem = problem;
    }

    StoreRows.View view() {
        return view;
    }

    /**
     * Keeps the rows of the list this one replaces when this one's view was extended from its
     * ({@link StoreRows#grow}: each row keeps its frame, {@link #shiftFrom} rows lower): no row shown
     * goes back to "loading" while a live capture's store grows. Only whole pages are kept.
     */
    void keepPagesOf(StoreRowList older) {
        long shift = shiftFrom(older);
        if (shift < 0) {
            return;
        }
        Map<Integer, EventRow[]> moved = new HashMap<>();
        older.pages.forEach((p, page) -> {
            if (Arrays.asList(page).contains(null)) {
                return;
            }
            for (int i = 0; i < page.length; i++) {
                long row = (long) p * StoreRows.PAGE + i + shift;
                if (row < size) {
                    moved.computeIfAbsent((int) (row / StoreRows.PAGE),
                            q -> new EventRow[(int) Math.min(StoreRows.PAGE, size - (long) q * StoreRows.PAGE)])
                            [(int) (row % StoreRows.PAGE)] = page[i];
                }
            }
        });
        moved.forEach((q, page) -> {
            if (!Arrays.asList(page).contains(null)) {
                pages.put(q, page);
            }
        });
    }

    /**
     * Rows added above the rows of the list this one replaces when its view was extended from
     * that one's (the row of a frame there is this many rows lower here), else -1.
     */
    long shiftFrom(StoreRowList older) {
        return view.shiftFrom(older.view);
    }

    @Override
    public EventRow get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException(index);
        }
        int p = index / StoreRows.PAGE;
        EventRow[] page = pages.get(p);
        if (page == null && requested.add(p)) {
            fetch(p, false);
            page = pages.get(p); // a direct executor has it already
        }
        EventRow r = page == null ? null : page[index % StoreRows.PAGE];
        return r == null ? StoreTable.LOADING : r;
    }

    /**
     * Says which rows are shown, [from, to): their pages and those within {@value #AHEAD} rows
     * are fetched now; such pages still queued when the rows shown have moved far from them
     * are skipped (pages asked for by {@link #get} are always fetched).
     */
    void showing(int from, int to) {
        shownFrom = from;
        shownTo = to;
        int first = Math.max(0, from - StoreRows.AHEAD) / StoreRows.PAGE;
        int last = Math.min(size - 1, to + StoreRows.AHEAD) / StoreRows.PAGE;
        for (int p = first; p <= last && size > 0; p++) {
            if (!pages.containsKey(p) && requested.add(p)) {
                fetch(p, true);
            }
        }
    }

    private boolean wanted(int p) {
        long from = (long) p * StoreRows.PAGE;
        return from < shownTo + StoreRows.AHEAD && from + StoreRows.PAGE > shownFrom - StoreRows.AHEAD;
    }

    /** Fetches a page on the query thread; one asked for by {@link #showing} only while still near the rows shown. */
    private void fetch(int p, boolean ahead) {
        try {
            queries.execute(() -> fetchNow(p, ahead));
        } catch (RejectedExecutionException closing) {
            // the query thread has ended (the app or view is closing): no page is wanted any more
            requested.remove(p);
        }
    }

    /** {@link #fetch}'s work, on the query thread. */
    private void fetchNow(int p, boolean ahead) {
        if (generation.getAsLong() != view.gen()) {
            return;
        }
        if (ahead && !wanted(p)) {
            ui.runOnUi(() -> {
                requested.remove(p);
                if (wanted(p) && !pages.containsKey(p) && requested.add(p)) {
                    fetch(p, true); // shown again meanwhile
                }
            });
            return;
        }
        EventRow[] page;
        try {
            page = numbering.page(db, view, p);
        } catch (SQLException e) {
            String why = "cannot query the store: " + e.getMessage();
            ui.runOnUi(() -> problem.accept(why));
            return;
        }
        ui.runOnUi(() -> put(p, page));
    }

    /** Keeps a page fetched elsewhere (go to frame) and reports its rows updated. */
    void put(int p, EventRow[] page) {
        requested.remove(p);
        if (generation.getAsLong() != view.gen()) {
            return;
        }
        pages.put(p, page);
        beginChange();
        for (int i = 0; i < page.length; i++) {
            nextUpdate(p * StoreRows.PAGE + i);
        }
        endChange();
    }

    @Override
    public int size() {
        return size;
    }

    /**
     * Identity: a property holding the rows compares the list it replaces with the new one
     * ({@code ObjectProperty.set} tells its change listeners only of a value not equal to the
     * old), and a list's equality by content would read every row of both, asking for every
     * page of the store on the UI thread (seconds at each commit of a live capture's store).
     */
    @Override
    public boolean equals(Object o) {
        return o == this;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
