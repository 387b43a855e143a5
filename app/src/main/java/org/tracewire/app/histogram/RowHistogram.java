package org.tracewire.app.histogram;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.tracewire.analysis.HistAggregator;
import org.tracewire.analysis.HistLabels;
import org.tracewire.analysis.HistSpec;
import org.tracewire.analysis.HistSpecException;
import org.tracewire.analysis.HistTable;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.util.SerialFeeder;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.format.EventFormat;
import org.tracewire.record.EventRecord;

/**
 * A histogram aggregated by tracewire over rows (captured or opened): the newest
 * {@value #HISTORY} rows are kept to aggregate again when the spec changes, and rows are fed in
 * order, in the background, into the current {@link HistAggregator} (one {@link SerialFeeder}
 * run at a time). The tasks' names ({@code .execname}) come from the rows' pid and comm.
 */
final class RowHistogram {
    /** Rows kept to re-aggregate after the spec changes. */
    static final int HISTORY = 200_000;

    private final ArrayDeque<EventRow> history = new ArrayDeque<>();
    private final Map<Integer, String> comms = new ConcurrentHashMap<>();
    private final SerialFeeder<EventRow, HistTable> feeder;
    private volatile HistAggregator aggregator;

    /**
     * @param event   the histogram's event ("system:event"), read when a run starts (UI thread)
     * @param publish the table after each run (UI thread)
     * @param failed  a run's failure (UI thread)
     */
    RowHistogram(TaskExecutor executor, Supplier<String> event, Consumer<HistTable> publish,
                 Consumer<Throwable> failed) {
        // each run aggregates into the aggregator and for the event current when it starts: a run
        // of an older spec that starts late must not add its rows to the newer aggregate too
        this.feeder = new SerialFeeder<EventRow, HistTable>(executor, () -> {
            HistAggregator agg = aggregator;
            String ev = event.get();
            return rows -> aggregate(agg, ev, rows);
        }, publish, failed);
    }

    /** Keeps a row (call {@link #appended} after the batch). */
    void keep(EventRow r) {
        history.addLast(r);
    }

    /** After a batch was kept: the oldest beyond {@link #HISTORY} go, the batch feeds the aggregator, if any. */
    void appended(List<EventRow> batch) {
        while (history.size() > HISTORY) {
            history.pollFirst();
        }
        if (aggregator != null) {
            feeder.feed(batch);
        }
    }

    /** The capture was cleared: no rows, no names; the aggregator stays, fed from now on. */
    void cleared() {
        history.clear();
        comms.clear();
        feeder.reset();
    }

    /** Over a store: the rows and the aggregator go. */
    void drop() {
        history.clear();
        stop();
    }

    /** No aggregate any more: pending runs are dropped. */
    void stop() {
        feeder.reset();
        aggregator = null;
    }

    /** No aggregate (the event's format is unknown); runs started meanwhile finish. */
    void forget() {
        aggregator = null;
    }

    /**
     * A new aggregate of {@code s} over the event of format {@code f}, not yet fed.
     *
     * @throws HistSpecException when the spec does not fit the format
     */
    HistAggregator aggregator(HistSpec s, EventFormat f) {
        return new HistAggregator(s, f, labels());
    }

    /** Aggregates into {@code agg} from now on: pending runs are dropped. */
    void use(HistAggregator agg) {
        feeder.reset();
        aggregator = agg;
    }

    /** Feeds the rows kept to the current aggregator. */
    void feedKept() {
        feeder.feed(new ArrayList<>(history));
    }

    /** True while rows go into an aggregate. */
    boolean aggregating() {
        return aggregator != null;
    }

    private HistLabels labels() {
        return new HistLabels() {
            @Override
            public String execname(int pid) {
                return comms.get(pid);
            }
        };
    }

    /** Background: rows of event {@code ev} into {@code agg} (the aggregator of the run's spec). */
    private HistTable aggregate(HistAggregator agg, String ev, List<EventRow> rows) {
        if (agg == null) {
            return null;
        }
        for (EventRow r : rows) {
            if (r.pid() != 0 && r.comm() != null && !r.comm().startsWith("<")) {
                comms.put(r.pid(), r.comm());
            }
            if (!r.event().equals(ev)) {
                continue;
            }
            EventRecord rec = r.record();
            if (rec != null) {
                try {
                    agg.add(rec);
                } catch (RuntimeException ignored) {
                    // a field outside a truncated record: not counted
                }
            }
        }
        return agg.table();
    }
}
