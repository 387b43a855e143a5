package org.tracewire.app.latency;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.LongConsumer;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.collections.ObservableMap;
import org.tracewire.analysis.LatencyPair;
import org.tracewire.analysis.LatencyTracker;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.StoreQueries;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.util.SerialFeeder;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.record.EventRecord;

/**
 * Latencies. Of an opened pcapng whose capture store is ready: every pair of the store, as SQL
 * ({@link StoreLatency}) on the stats query thread ({@link #setQueries}) over a connection of its
 * own, the results handed to the UI in one change: the count per kind, p50/p90/p99/max, the log2
 * histogram of every pair, and the worst pairs a page of {@value #PAGE_SIZE} at a time; selecting a
 * pair goes to its end frame ({@link #setNavigator}). While the store is built the view waits for
 * it (the rows streamed meanwhile are not counted).
 *
 * <p>Of a live capture (no store): every streamed row goes (its record, decoded from its frame)
 * through core's {@link LatencyTracker} in the background, in order; the
 * completed pairs (wakeup → switch-in, syscall enter → exit, irq and softirq entry → exit) fill a
 * table of the newest {@value #MAX_PAIRS} and a log2 histogram of all of them. Selecting a pair
 * selects its end event in the event table.
 */
public final class LatencyViewModel implements CaptureViewModel.RowSink {
    /** Pairs per page of the worst-pairs table over a store. */
    public static final int PAGE_SIZE = 200;
    /** Pairs kept in the table. */
    public static final int MAX_PAIRS = 10_000;
    /** End rows remembered, to select a pair's end event (the table keeps fewer). */
    private static final int ROWS = CaptureViewModel.WINDOW;

    /**
     * One pair as the table shows it.
     *
     * @param kind      what was measured
     * @param task      the task (comm and pid; for syscalls the call, for irqs the handler)
     * @param waker     the waking task's pid (wakeups), else empty
     * @param cpu       the CPU (see {@link LatencyPair#cpu()})
     * @param latencyNs end − start in ns
     * @param end       the end event's row, or null when it was not kept (always null over a store)
     * @param frame     the end event's frame number, -1 when unknown
     * @param pair      core's pair (null over a store)
     */
    public record LatencyRow(LatencyPair.Kind kind, String task, String waker, int cpu, long latencyNs, EventRow end, long frame,
                             LatencyPair pair) {
    }

    /** One bar of the log2 histogram: latencies in [2^k, 2^(k+1)) ns (k = 0 also holds 0). */
    public record Bucket(int log2, String label, long count) {
    }

    private final LatencyTracker tracker = new LatencyTracker();
    private final EventRow[] bySequence = new EventRow[ROWS];
    private long sequence;
    private final ObservableList<LatencyRow> pairs = FXCollections.observableArrayList();
    private final ObservableList<Bucket> histogram = FXCollections.observableArrayList();
    private final long[] counts = new long[64];
    private final ObjectProperty<LatencyPair.Kind> kind = new SimpleObjectProperty<>(null);
    private final LongProperty total = new SimpleLongProperty();
    private final StringProperty status = new SimpleStringProperty("Pairs appear while capturing sched_wakeup + sched_switch, "
            + "syscalls (raw_syscalls or syscalls:sys_enter_X/sys_exit_X), irq or softirq entry/exit");
    private final SerialFeeder<EventRow, List<LatencyRow>> feeder;
    private final List<LatencyRow> all = new ArrayList<>();
    private CaptureViewModel capture;
    private LongConsumer navigator;
    private final StoreQueries<StoreLatency> db;
    private final ObjectProperty<StoreLatency.Summary> summary = new SimpleObjectProperty<>();
    private final ObservableMap<LatencyPair.Kind, Long> kinds = FXCollections.observableMap(new LinkedHashMap<>());
    private final LongProperty pageStart = new SimpleLongProperty();
    /** Times {@link #cleared()} ran (UI thread writes, background runs read). */
    private volatile long clears;

    /**
     * @param executor background work
     */
    public LatencyViewModel(TaskExecutor executor) {
        this.db = new StoreQueries<>(executor, (c, t) -> StoreLatency.open(c));
        // a run handed out before cleared() that starts after it must not feed the old rows into the
        // cleared tracker (they would pair with the new ones): it checks the clear count it began with
        this.feeder = new SerialFeeder<EventRow, List<LatencyRow>>(executor, () -> {
            long clearsAtStart = clears;
            return rows -> clearsAtStart == clears ? track(rows) : List.of();
        }, this::add, e -> status.set("latency: " + e.getMessage()));
        kind.addListener((o, a, b) -> {
            if (db.over()) {
                pageStart.set(0);
                query();
            } else {
                refilter();
            }
        });
    }

    /**
     * Feeds on the capture's rows; selecting a pair selects its end row there. An opened file's
     * store, once ready, takes over ({@link #setQueries} given).
     */
    public void connect(CaptureViewModel capture) {
        this.capture = capture;
        capture.addRowSink(this);
        db.follow(capture, this::storeChanged);
        db.onGrowth(this::query);
    }

    /**
     * Lets the view go over an opened file's capture store: its queries run on {@code queries}
     * (one thread, which owns the view model's own connection). Without it the view stays on rows.
     *
     * @param queries runs the store queries, one at a time
     */
    public void setQueries(Executor queries) {
        db.setQueries(queries);
    }

    /** Whether the latency view is on screen: it queries a store when first shown ({@link StoreQueries}). */
    public BooleanProperty shownProperty() {
        return db.shownProperty();
    }

    /**
     * What selecting a pair does over a store: goes to its end frame in the event table.
     *
     * @param goToFrame receives the end frame's number (UI thread)
     */
    public void setNavigator(LongConsumer goToFrame) {
        this.navigator = goToFrame;
    }

    /** The store mode or the store changed (UI thread): the rows' pairs go, the store's are asked for. */
    private void storeChanged(StoreTable t) {
        summary.set(null);
        kinds.clear();
        pageStart.set(0);
        if (!db.over()) {
            return;
        }
        cleared();
        if (t == null) {
            status.set("indexing the file: latency over every pair once its store is ready");
            return;
        }
        status.set("querying every pair of the store…");
        query();
    }

    /** What a query over the store gives: the counts per kind, the summary and a page of worst pairs. */
    private record Answer(Map<LatencyPair.Kind, Long> byKind, StoreLatency.Summary sum, List<LatencyRow> rows, String source) {
    }

    /** Over a store: the counts, summary and the current page of the chosen kind, handed to the UI in one change. */
    private void query() {
        LatencyPair.Kind k = kind.get();
        long offset = pageStart.get();
        db.query(l -> new Answer(l.counts(), l.summary(k), l.worst(k, offset, PAGE_SIZE).stream().map(LatencyViewModel::row).toList(),
                l.source()), a -> {
                    if (kind.get() != k || pageStart.get() != offset) {
                        return;
                    }
                    kinds.clear();
                    kinds.putAll(a.byKind());
                    summary.set(a.sum());
                    System.arraycopy(a.sum().log2(), 0, counts, 0, 64);
                    total.set(a.sum().count());
                    publishHistogram();
                    pairs.setAll(a.rows());
                    status.set(db.notePrefix() + storeStatus(a.byKind(), a.sum(), a.source(), offset, a.rows().size()));
                }, why -> status.set(why.isEmpty() ? "no latency pairs in this store: it has no sched_switch (nor a latency view)"
                        : "latency: " + why));
    }

    /** The status line over a store: every count said. */
    private static String storeStatus(Map<LatencyPair.Kind, Long> byKind, StoreLatency.Summary sum, String source, long offset, int shown) {
        long all = byKind.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder sb = new StringBuilder(String.format("%,d pairs in all (", all));
        List<String> parts = new ArrayList<>();
        byKind.forEach((k, n) -> parts.add(String.format("%,d %s", n, kindName(k))));
        sb.append(parts.isEmpty() ? "none" : String.join(", ", parts)).append("; every event of the store, view ").append(source)
                .append(")");
        if (shown > 0) {
            sb.append(String.format(" — worst %,d–%,d of %,d shown", offset + 1, offset + shown, sum.count()));
        }
        return sb.toString();
    }

    /** A kind as the view names it. */
    public static String kindName(LatencyPair.Kind k) {
        return switch (k) {
            case SCHED_WAKEUP -> "wakeup → running";
            case SYSCALL -> "syscall";
            case IRQ -> "irq";
            case SOFTIRQ -> "softirq";
        };
    }

    private static LatencyRow row(StoreLatency.Pair p) {
        String task = switch (p.kind()) {
            case SCHED_WAKEUP -> (p.comm() == null ? "" : p.comm()) + " (" + p.pid() + ")";
            case SYSCALL -> (p.what().matches("[0-9]*") ? "syscall " + p.what() : p.what()) + " by "
                    + (p.comm() == null ? "" : p.comm() + " ") + "(" + p.pid() + ")";
            case IRQ -> "irq " + p.what();
            case SOFTIRQ -> "softirq " + p.what();
        };
        String waker = p.wakerPid() < 0 ? "" : (p.wakerComm() == null ? "" : p.wakerComm() + " ") + "(" + p.wakerPid() + ")";
        return new LatencyRow(p.kind(), task, waker, p.cpu(), p.latencyNs(), null, p.frame(), null);
    }

    /** Over a store: the next page of worst pairs, if any. */
    public void nextPage() {
        if (db.over() && pageStart.get() + PAGE_SIZE < total.get()) {
            pageStart.set(pageStart.get() + PAGE_SIZE);
            query();
        }
    }

    /** Over a store: the previous page of worst pairs, if any. */
    public void previousPage() {
        if (db.over() && pageStart.get() > 0) {
            pageStart.set(Math.max(0, pageStart.get() - PAGE_SIZE));
            query();
        }
    }

    @Override
    public void appended(List<EventRow> batch) {
        if (db.over()) {
            return; // the store's pairs, not a window of rows
        }
        feeder.feed(batch);
    }

    @Override
    public void cleared() {
        clears++;
        feeder.reset();
        synchronized (tracker) {
            tracker.clearPending();
        }
        all.clear();
        pairs.clear();
        Arrays.fill(counts, 0);
        total.set(0);
        histogram.clear();
    }

    /** Background: rows through the tracker. */
    private List<LatencyRow> track(List<EventRow> rows) {
        List<LatencyRow> out = new ArrayList<>();
        synchronized (tracker) {
            for (EventRow r : rows) {
                EventRecord rec = r.record();
                long seq = sequence++;
                bySequence[(int) (seq % ROWS)] = r;
                if (rec == null) {
                    continue;
                }
                LatencyPair p = tracker.feed(seq, rec).orElse(null);
                if (p != null) {
                    out.add(row(p, seq >= 0 ? bySequence[(int) (p.end().sequence() % ROWS)] : null));
                }
            }
        }
        return out;
    }

    private static LatencyRow row(LatencyPair p, EventRow end) {
        String task = switch (p.kind()) {
            case SCHED_WAKEUP -> (p.comm() == null ? "" : p.comm()) + " (" + p.pid() + ")";
            case SYSCALL -> (p.name() == null ? "syscall " + p.id() : p.name()) + " by " + (end == null ? "" : end.comm() + " ") + "(" + p.pid() + ")";
            case IRQ -> "irq " + p.id() + (p.name() == null ? "" : " " + p.name());
            case SOFTIRQ -> "softirq " + p.name();
        };
        return new LatencyRow(p.kind(), task, p.wakerPid() >= 0 ? Integer.toString(p.wakerPid()) : "", p.cpu(), p.latencyNs(), end,
                end == null ? -1 : end.frame(), p);
    }

    /** UI thread: a run's pairs into the table and histogram. */
    private void add(List<LatencyRow> rows) {
        if (rows.isEmpty()) {
            return;
        }
        all.addAll(rows);
        if (all.size() > MAX_PAIRS) {
            all.subList(0, all.size() - MAX_PAIRS).clear();
        }
        for (LatencyRow r : rows) {
            if (kind.get() == null || kind.get() == r.kind()) {
                counts[bucket(r.latencyNs())]++;
                total.set(total.get() + 1);
            }
        }
        refilterTable();
        publishHistogram();
        status.set(String.format("%,d pairs", total.get()));
    }

    private void refilter() {
        Arrays.fill(counts, 0);
        long n = 0;
        for (LatencyRow r : all) {
            if (kind.get() == null || kind.get() == r.kind()) {
                counts[bucket(r.latencyNs())]++;
                n++;
            }
        }
        total.set(n);
        refilterTable();
        publishHistogram();
    }

    private void refilterTable() {
        List<LatencyRow> shown = new ArrayList<>();
        for (LatencyRow r : all) {
            if (kind.get() == null || kind.get() == r.kind()) {
                shown.add(r);
            }
        }
        pairs.setAll(shown);
    }

    /** The log2 bucket of a latency: floor(log2(ns)), 0 for 0 and 1. */
    public static int bucket(long ns) {
        return ns <= 1 ? 0 : 63 - Long.numberOfLeadingZeros(ns);
    }

    private void publishHistogram() {
        int lo = 64;
        int hi = -1;
        for (int k = 0; k < 64; k++) {
            if (counts[k] > 0) {
                lo = Math.min(lo, k);
                hi = k;
            }
        }
        List<Bucket> out = new ArrayList<>();
        for (int k = lo; k <= hi; k++) {
            out.add(new Bucket(k, label(1L << k), counts[k]));
        }
        histogram.setAll(out);
    }

    /** A duration in ns as text: "512 ns", "4 µs", "1 ms", "2 s". */
    static String label(long ns) {
        if (ns < 1_000) {
            return ns + " ns";
        }
        if (ns < 1_000_000) {
            return trim(ns / 1e3) + " µs";
        }
        if (ns < 1_000_000_000) {
            return trim(ns / 1e6) + " ms";
        }
        return trim(ns / 1e9) + " s";
    }

    private static String trim(double v) {
        return v >= 100 ? String.format("%.0f", v) : v >= 10 ? String.format("%.1f", v) : String.format("%.2f", v);
    }

    /** Selects a pair's end event in the event table (over a store: goes to its frame there). */
    public void select(LatencyRow r) {
        if (r == null || capture == null) {
            return;
        }
        if (db.over()) {
            if (r.frame() >= 0 && navigator != null) {
                navigator.accept(r.frame());
            }
            return;
        }
        if (r.end() == null || !capture.getRows().contains(r.end())) {
            status.set("the end event has left the table's window");
            return;
        }
        capture.table().selectedProperty().set(r.end());
    }

    /** The newest pairs (of the chosen kind), oldest first. */
    public ObservableList<LatencyRow> getPairs() {
        return pairs;
    }

    /** The log2 histogram of the pairs of the chosen kind. */
    public ObservableList<Bucket> getHistogram() {
        return histogram;
    }

    /** Only pairs of this kind (null: all). */
    public ObjectProperty<LatencyPair.Kind> kindProperty() {
        return kind;
    }

    /** Pairs counted in the histogram. */
    public LongProperty totalProperty() {
        return total;
    }

    /** True while the view goes over an opened file's store (being built or ready) instead of rows. */
    public BooleanProperty overStoreProperty() {
        return db.overStoreProperty();
    }

    /** Over a store: count, percentiles and max of the chosen kind; null otherwise (or before the first answer). */
    public ObjectProperty<StoreLatency.Summary> summaryProperty() {
        return summary;
    }

    /** Over a store: pairs per kind, of every event. */
    public ObservableMap<LatencyPair.Kind, Long> getKindCounts() {
        return kinds;
    }

    /** Over a store: the index of the first worst pair shown (0 for the worst). */
    public LongProperty pageStartProperty() {
        return pageStart;
    }

    /** A one-line status. */
    public StringProperty statusProperty() {
        return status;
    }
}
