package org.tracewire.app.latency;

import java.util.ArrayList;
import java.util.List;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.tracewire.analysis.LatencyPair;
import org.tracewire.analysis.LatencyTracker;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.RowRecords;
import org.tracewire.app.util.SerialFeeder;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.record.EventRecord;

/**
 * Latencies of the streamed rows: every row goes (as a record of its format, {@link RowRecords})
 * through core's {@link LatencyTracker} in the background, in order; the completed pairs (wakeup →
 * switch-in, syscall enter → exit, irq and softirq entry → exit) fill a table of the newest
 * {@value #MAX_PAIRS} and a log2 histogram of all of them. Selecting a pair selects its end event in
 * the event table.
 */
public final class LatencyViewModel implements CaptureViewModel.RowSink {
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
     * @param end       the end event's row, or null when it was not kept
     * @param pair      core's pair
     */
    public record LatencyRow(LatencyPair.Kind kind, String task, String waker, int cpu, long latencyNs, EventRow end,
                             LatencyPair pair) {
    }

    /** One bar of the log2 histogram: latencies in [2^k, 2^(k+1)) ns (k = 0 also holds 0). */
    public record Bucket(int log2, String label, long count) {
    }

    private final RowRecords records;
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
    /** Times {@link #cleared()} ran (UI thread writes, background runs read). */
    private volatile long clears;

    /**
     * @param executor background work
     * @param records  rows as records
     */
    public LatencyViewModel(TaskExecutor executor, RowRecords records) {
        this.records = records;
        // a run handed out before cleared() that starts after it must not feed the old rows into the
        // cleared tracker (they would pair with the new ones): it checks the clear count it began with
        this.feeder = new SerialFeeder<EventRow, List<LatencyRow>>(executor, () -> {
            long clearsAtStart = clears;
            return rows -> clearsAtStart == clears ? track(rows) : List.of();
        }, this::add, e -> status.set("latency: " + e.getMessage()));
        kind.addListener((o, a, b) -> refilter());
    }

    /** Feeds on the capture's rows; selecting a pair selects its end row there. */
    public void connect(CaptureViewModel capture) {
        this.capture = capture;
        capture.addRowSink(this);
    }

    @Override
    public void appended(List<EventRow> batch) {
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
        java.util.Arrays.fill(counts, 0);
        total.set(0);
        histogram.clear();
    }

    /** Background: rows through the tracker. */
    private List<LatencyRow> track(List<EventRow> rows) {
        List<LatencyRow> out = new ArrayList<>();
        synchronized (tracker) {
            for (EventRow r : rows) {
                EventRecord rec = records.record(r);
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
        return new LatencyRow(p.kind(), task, p.wakerPid() >= 0 ? Integer.toString(p.wakerPid()) : "", p.cpu(), p.latencyNs(), end, p);
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
        java.util.Arrays.fill(counts, 0);
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

    /** Selects a pair's end event in the event table. */
    public void select(LatencyRow r) {
        if (r == null || capture == null) {
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

    /** A one-line status. */
    public StringProperty statusProperty() {
        return status;
    }
}
