package org.tracewire.app.capture;

import java.util.concurrent.atomic.AtomicLong;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

/**
 * What a {@link StoreTable}'s view is filtered by: the filters of every event table
 * ({@link TableFilters}: the filter box, the event and thread restrictions) and the query and I/O
 * graph views' restriction to the frames of a query. Each change rebuilds the view
 * ({@link #rebuild}). UI thread, but {@link #restrictQuery()} and {@link #restrictVersion()}
 * (any thread).
 */
public abstract class StoreFilters extends TableFilters {
    private final StringProperty frameRestriction = new SimpleStringProperty(null);
    private volatile String restrictQuery;
    private final AtomicLong restrictVersion = new AtomicLong();

    StoreFilters() {
        filterText.addListener((o, a, b) -> rebuild(false));
        eventRestriction.addListener((o, a, b) -> rebuild(false));
        thread.addListener((o, a, b) -> rebuild(false));
    }

    /**
     * Makes the view again with the filters as they are now (UI thread); {@code extend} only for
     * a growing store's commit ({@link StoreGrowth}).
     */
    abstract void rebuild(boolean extend);

    /** The query whose frames the view is restricted to, or null. */
    String restrictQuery() {
        return restrictQuery;
    }

    /** The restriction's version: a new one is copied again ({@link StoreConditions#where}). */
    long restrictVersion() {
        return restrictVersion.get();
    }

    /**
     * Shows only the frames a query yields (its column {@code frame}; the query view's "show these
     * events"), under the filter box, event and thread restrictions. The frames are copied into a
     * temporary table ({@code restricted_frames}, on the query thread, at the next rebuild of the
     * view), so the table holds still when the query's source changes afterwards;
     * {@link #clearFilters()} lifts it.
     *
     * @param query a SELECT over the store's database (any connection's tables in {@code main} or
     *              another schema; not a temporary table of another connection) with a column
     *              {@code frame}, or null to lift the restriction
     * @param label what the table says it shows (e.g. "frames of query 3"); null with a null query
     */
    public void restrictToFrames(String query, String label) {
        restrictQuery = query;
        restrictVersion.incrementAndGet();
        frameRestriction.set(query == null ? null : label);
        rebuild(false);
    }

    /** What {@link #restrictToFrames} restricts the table to (its label), or null. */
    public StringProperty frameRestrictionProperty() {
        return frameRestriction;
    }

    /** {@inheritDoc} Also lifts the restriction to frames. */
    @Override
    public void clearFilters() {
        if (restrictQuery != null) {
            restrictQuery = null;
            restrictVersion.incrementAndGet();
            frameRestriction.set(null);
            rebuild(false);
        }
        super.clearFilters();
    }

}
