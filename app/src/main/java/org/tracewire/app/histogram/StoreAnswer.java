package org.tracewire.app.histogram;

import java.sql.SQLException;
import org.tracewire.analysis.HistSpec;
import org.tracewire.analysis.HistSpecException;
import org.tracewire.analysis.HistTable;

/**
 * What a query of a spec over a capture store gives, and how the view says it: the table, and the
 * folded stacks of the events the filter passes (null when the capture recorded no stacks).
 */
record StoreAnswer(StoreHistogram.Result result, StoreHistogram.Folded folded) {
    /**
     * Runs the spec's queries (on the thread that owns the store's connection).
     *
     * @throws SQLException when DuckDB fails; a {@link HistSpecException}
     *                      when the spec does not fit the event
     */
    static StoreAnswer of(StoreHistogram h, String ev, HistSpec s) throws SQLException {
        return new StoreAnswer(h.aggregate(ev, s), h.hasStacks() ? h.folded(ev, s.filter()) : null);
    }

    /** The table's status: hits of the events in the store, entries, how many are shown. */
    String status(String ev, HistSpec s) {
        HistTable t = result.table();
        return String.format("%,d hits of %,d %s events in the store%s; %,d entries%s", t.hits(),
                result.events(), ev,
                s.filter() == null ? "" : String.format(" (the filter passes %,d)", t.hits()), t.entryCount(),
                t.entryCount() > t.entries().size() ? String.format(", the first %,d shown (size=%d)", t.entries().size(), s.size())
                        : ", all shown");
    }

    /** The flame graph, or null without stacks. */
    FlameGraph.Node flame() {
        return folded == null ? null : FlameGraph.of(folded.folded());
    }

    /** What the flame graph counts, in a sentence. */
    String flameStatus(String ev, HistSpec s) {
        StoreHistogram.Folded fl = folded;
        return fl == null ? "this capture recorded no stacks (capture with -e EVENT --stack)"
                : String.format("stacks of %,d %s events%s: %,d with a stack, %,d without; %,d distinct stacks",
                fl.matched(), ev, s.filter() == null ? "" : " that the filter passes", fl.matched() - fl.noStack(), fl.noStack(),
                fl.folded().size());
    }
}
