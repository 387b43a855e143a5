package org.tracewire.app.iograph;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.beans.value.ObservableValue;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import org.tracewire.app.capture.StoreQueries;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.filter.FilterSyntaxException;

/**
 * The I/O graph's model (Wireshark's Statistics › I/O Graph; GUI-free): events per interval over
 * an opened capture's whole store, one line per event type (or one for all events) and one per
 * filter in the kernel's syntax (the event table's rule: {@link StoreTable#filterCondition}),
 * counted in SQL on a worker thread with a connection of its own: event types by the store's
 * {@code event_rate(interval_ns)} macro, filters by a GROUP BY over {@code events} in the same
 * intervals (they start at multiples of the interval in the {@code ts} clock, as
 * {@code event_rate}'s do). Intervals {@link #INTERVALS} (1 ms … 1 s); the default is the smallest one that
 * gives at most {@value #DEFAULT_POINTS} points. {@link #goToTime} moves the event table to the
 * first event at or after a time.
 *
 * <p>Threads: properties are read and written on the UI thread; SQL runs on the worker.
 */
public final class IoGraphViewModel {
    /** The intervals offered, ns. */
    public static final List<Long> INTERVALS = List.of(1_000_000L, 2_000_000L, 5_000_000L, 10_000_000L, 20_000_000L,
            50_000_000L, 100_000_000L, 200_000_000L, 500_000_000L, 1_000_000_000L);
    /** The default interval gives at most this many points per line. */
    public static final int DEFAULT_POINTS = 2000;
    /** Points per line at most (a smaller interval is refused for a long capture). */
    public static final int MAX_POINTS = 100_000;

    /**
     * One line.
     *
     * @param name   the event type, "all events", or the filter
     * @param filter the filter (kernel syntax), or null for an event type or all events
     * @param counts events per interval, from the graph's start
     * @param total  their sum
     */
    public record Line(String name, String filter, long[] counts, long total) {
    }

    /**
     * A computed graph.
     *
     * @param start    where interval 0 starts ({@code events.ts}, ns): the multiple of the
     *                 interval at or before the first event
     * @param end      the last event's time, ns
     * @param interval the interval used, ns
     * @param lines    the lines, each with {@code (end - start) / interval + 1} counts
     * @param note     what else to say (an interval refused), or empty
     */
    public record Graph(long start, long end, long interval, List<Line> lines, String note) {
        /** Points per line. */
        public int points() {
            return lines.isEmpty() ? 0 : lines.get(0).counts().length;
        }
    }

    private final TaskExecutor ui;
    private final StoreQueries<Connection> store;
    private final AtomicLong generation = new AtomicLong();
    private final LongProperty interval = new SimpleLongProperty(0);
    private final BooleanProperty perEvent = new SimpleBooleanProperty(true);
    private final BooleanProperty logScale = new SimpleBooleanProperty(false);
    private final StringProperty filterText = new SimpleStringProperty("");
    private final ObservableList<String> filters = FXCollections.observableArrayList();
    private final ObjectProperty<Graph> graph = new SimpleObjectProperty<>();
    private final StringProperty status = new SimpleStringProperty("open a pcapng (File › Open capture…) for its I/O graph");
    private final StringProperty error = new SimpleStringProperty("");
    private final BooleanProperty running = new SimpleBooleanProperty();
    private final LongProperty jumpedTo = new SimpleLongProperty(-1);
    private final LongProperty jumpTime = new SimpleLongProperty(-1);
    private LongConsumer goToFrame = f -> { };
    private boolean quiet;

    /**
     * @param ui     hands results to the UI thread
     * @param worker runs the SQL (one thread)
     */
    public IoGraphViewModel(TaskExecutor ui, Executor worker) {
        this.ui = ui;
        this.store = StoreQueries.connection(ui, worker);
        interval.addListener((o, a, b) -> {
            if (!quiet) {
                refresh();
            }
        });
        perEvent.addListener((o, a, b) -> refresh());
        filters.addListener((ListChangeListener<String>) c -> refresh());
    }

    /**
     * Follows the opened file's event table: the graph is of its store while there is one.
     *
     * @param table the capture view model's {@code storeTableProperty()}
     */
    public void connect(ObservableValue<StoreTable> table) {
        store.follow(table, null, this::use);
        store.onGrowth(this::refresh); // a growing store's counts again, the interval kept
        store.busyWhile(running::get);
    }

    /** Whether the view is on screen: it opens the store when first shown ({@link StoreQueries}). */
    public BooleanProperty shownProperty() {
        return store.shownProperty();
    }

    private void use(StoreTable t) {
        graph.set(null);
        error.set("");
        status.set(t == null ? "open a pcapng (File › Open capture…) for its I/O graph" : "opening the store…");
        if (t != null) {
            quiet = true;
            interval.set(0); // the default for this capture
            quiet = false;
            refresh();
        }
    }

    /** Adds a line for the filter box's text (kernel syntax), unless it is empty or there already. */
    public void addFilter() {
        String f = filterText.get() == null ? "" : filterText.get().strip();
        if (!f.isEmpty() && !filters.contains(f)) {
            filters.add(f);
        }
        filterText.set("");
    }

    /** Recomputes the graph (the interval, the lines). */
    public void refresh() {
        StoreTable t = store.table();
        if (t == null) {
            return;
        }
        long gen = generation.incrementAndGet();
        store.cancel(); // a count still running for an older setup
        long asked = interval.get();
        boolean byEvent = perEvent.get();
        List<String> lines = List.copyOf(filters);
        running.set(true);
        status.set("counting…");
        store.worker().execute(() -> {
            if (generation.get() != gen) {
                return;
            }
            Graph g = null;
            String why = null;
            StringBuilder filterErrors = new StringBuilder();
            try {
                g = compute(t, asked, byEvent, lines, filterErrors);
            } catch (SQLException e) {
                why = StoreQueries.message(e);
            }
            Graph done = g;
            String problem = why;
            ui.runOnUi(() -> {
                if (generation.get() != gen) {
                    return;
                }
                running.set(false);
                error.set(filterErrors.toString().strip());
                if (problem != null) {
                    status.set("cannot count: " + problem);
                    return;
                }
                if (done == null) {
                    status.set("no events");
                    return;
                }
                quiet = true;
                interval.set(done.interval());
                quiet = false;
                graph.set(done);
                status.set(store.notePrefix() + String.format("%,d points of %s over %.3f s%s", done.points(), intervalText(done.interval()),
                        (done.end() - done.start()) / 1e9, done.note().isEmpty() ? "" : " (" + done.note() + ")"));
            });
        });
    }

    /** The graph (worker thread); null when the store has no events. */
    private Graph compute(StoreTable t, long asked, boolean byEvent, List<String> filterLines, StringBuilder errors)
            throws SQLException {
        long[] span = new long[3];
        store.execute("SELECT min(ts), max(ts), count(*) FROM events", rs -> {
            rs.next();
            span[0] = rs.getLong(1);
            span[1] = rs.getLong(2);
            span[2] = rs.getLong(3);
        });
        if (span[2] == 0) {
            return null;
        }
        String note = "";
        long iv = asked > 0 ? asked : defaultInterval(span[0], span[1]);
        if (points(span[0], span[1], iv) > MAX_POINTS) {
            long fit = smallestFitting(span[0], span[1], MAX_POINTS);
            note = String.format("%s would give %,d points: %s", intervalText(iv), points(span[0], span[1], iv),
                    intervalText(fit));
            iv = fit;
        }
        // intervals start at multiples of the interval, as the store's event_rate macro counts them
        long start = span[0] - Math.floorMod(span[0], iv);
        int n = (int) ((span[1] - start) / iv + 1);
        List<Line> out = new ArrayList<>();
        String bucket = "(ts - " + start + ") // " + iv;
        String rate = "event_rate(" + iv + ")";
        if (byEvent) {
            Map<String, long[]> per = new LinkedHashMap<>();
            store.execute("SELECT event, " + bucket + " AS b, sum(count) FROM " + rate + " GROUP BY ALL ORDER BY event, b", rs -> {
                while (rs.next()) {
                    per.computeIfAbsent(rs.getString(1), k -> new long[n])[(int) rs.getLong(2)] = rs.getLong(3);
                }
            });
            per.forEach((ev, c) -> out.add(line(ev, null, c)));
        } else {
            out.add(line("all events", null, counts("SELECT " + bucket + " AS b, sum(count) FROM " + rate + " GROUP BY b", n)));
        }
        for (String f : filterLines) {
            String cond;
            try {
                cond = t.filterCondition(f).get();
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                errors.append(c instanceof FilterSyntaxException x ? f + "\n" + x.pointer(f) + "\n" + x.detail()
                        : f + ": " + c.getMessage()).append('\n');
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
            String where = cond == null ? "" : " WHERE " + cond;
            out.add(line(f, f, counts("SELECT " + bucket + " AS b, count(*) FROM events" + where + " GROUP BY b", n)));
        }
        return new Graph(start, span[1], iv, List.copyOf(out), note);
    }

    private long[] counts(String sql, int n) throws SQLException {
        long[] c = new long[n];
        store.execute(sql, rs -> {
            while (rs.next()) {
                c[(int) rs.getLong(1)] = rs.getLong(2);
            }
        });
        return c;
    }

    private static Line line(String name, String filter, long[] counts) {
        long total = 0;
        for (long c : counts) {
            total += c;
        }
        return new Line(name, filter, counts, total);
    }

    /**
     * Points per line: the intervals from the multiple of {@code interval} at or before the first
     * event to the one holding the last.
     *
     * @param first    the first event's time, ns
     * @param last     the last event's time, ns
     * @param interval ns
     * @return the count of intervals
     */
    public static long points(long first, long last, long interval) {
        return (last - (first - Math.floorMod(first, interval))) / interval + 1;
    }

    /**
     * The default interval for a capture: the smallest of {@link #INTERVALS} that gives at most
     * {@value #DEFAULT_POINTS} points, else 1 s.
     *
     * @param first the first event's time, ns
     * @param last  the last event's time, ns
     * @return the interval, ns
     */
    public static long defaultInterval(long first, long last) {
        for (long iv : INTERVALS) {
            if (points(first, last, iv) <= DEFAULT_POINTS) {
                return iv;
            }
        }
        return INTERVALS.get(INTERVALS.size() - 1);
    }

    private static long smallestFitting(long first, long last, int most) {
        for (long iv : INTERVALS) {
            if (points(first, last, iv) <= most) {
                return iv;
            }
        }
        long s = 1_000_000_000L;
        long iv = ((last - first) / (most - 2) / s + 1) * s; // whole seconds
        while (points(first, last, iv) > most) {
            iv += s;
        }
        return iv;
    }

    /**
     * An interval as the view names it.
     *
     * @param ns the interval, ns
     * @return "1 ms", "20 ms", "1 s", …
     */
    public static String intervalText(long ns) {
        return ns % 1_000_000_000L == 0 ? ns / 1_000_000_000L + " s" : ns % 1_000_000L == 0 ? ns / 1_000_000L + " ms"
                : ns / 1000 + " µs";
    }

    /**
     * Moves the event table to the first event at or after a time (by time, then frame) through
     * {@link #setGoToFrame}; {@link #jumpedToProperty()} tells the frame.
     *
     * @param ts the time, ns ({@code events.ts})
     */
    public void goToTime(long ts) {
        StoreTable t = store.table();
        if (t == null) {
            return;
        }
        store.worker().execute(() -> {
            long[] frame = {-1};
            String why = null;
            try {
                store.execute("SELECT frame FROM events WHERE ts >= " + ts + " ORDER BY ts, frame LIMIT 1", rs -> {
                    if (rs.next()) {
                        frame[0] = rs.getLong(1);
                    }
                });
            } catch (SQLException e) {
                why = StoreQueries.message(e);
            }
            String problem = why;
            ui.runOnUi(() -> {
                if (store.table() != t) {
                    return;
                }
                if (problem != null || frame[0] < 0) {
                    status.set(problem != null ? "cannot find the time: " + problem : "no event at or after that time");
                    return;
                }
                jumpTime.set(ts);
                jumpedTo.set(frame[0]);
                goToFrame.accept(frame[0]);
            });
        });
    }

    /** @param goToFrame selects a frame's row in the event table and shows the table (set by the main view) */
    public void setGoToFrame(LongConsumer goToFrame) {
        this.goToFrame = goToFrame == null ? f -> { } : goToFrame;
    }

    /** The interval asked for, ns (0: the default); the one used once the graph is computed. */
    public LongProperty intervalProperty() {
        return interval;
    }

    /** One line per event type (else one line of all events). */
    public BooleanProperty perEventProperty() {
        return perEvent;
    }

    /** A logarithmic Y axis (else linear); the view's concern, kept here with the rest of the setup. */
    public BooleanProperty logScaleProperty() {
        return logScale;
    }

    /** The filter box: the next filter line, in the kernel's syntax. */
    public StringProperty filterTextProperty() {
        return filterText;
    }

    /** The filter lines. */
    public ObservableList<String> getFilters() {
        return filters;
    }

    /** The graph, null before one is computed. */
    public ObjectProperty<Graph> graphProperty() {
        return graph;
    }

    /** What the graph shows or why there is none. */
    public StringProperty statusProperty() {
        return status;
    }

    /** Filters that could not be counted, with their errors; empty when none. */
    public StringProperty errorProperty() {
        return error;
    }

    /** True while counting. */
    public BooleanProperty runningProperty() {
        return running;
    }

    /** The time the last {@link #goToTime} went to, ns, -1 before one (set before {@link #jumpedToProperty()}). */
    public LongProperty jumpTimeProperty() {
        return jumpTime;
    }

    /** The frame the last {@link #goToTime} went to, -1 before one. */
    public LongProperty jumpedToProperty() {
        return jumpedTo;
    }
}
