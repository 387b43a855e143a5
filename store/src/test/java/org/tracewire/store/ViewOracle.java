package org.tracewire.store;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.tracewire.analysis.LatencyPair;
import org.tracewire.analysis.LatencyTracker;
import org.tracewire.input.RecordInput;

/**
 * The independent computations the derived views are checked against, from the records a file's
 * reader yields: {@link LatencyTracker}'s pairs fed in file order, as rows of {@code latency}.
 */
final class ViewOracle {
    private ViewOracle() {
    }

    /** The columns compared, in {@code latency}'s order. */
    static final String LATENCY_ROW = "kind, pid, comm, waker_pid, cpu, id, name, result, start_frame, start_ts, frame,"
            + " ts, latency";

    /**
     * The tracker's pairs of a file as {@code latency} rows ({@link #LATENCY_ROW}, {@code |}-joined),
     * in frame order of their end records: waker_pid and a wakeup's id NULL where the tracker has -1,
     * times in the events' {@code ts} clock.
     *
     * @throws IOException when the file cannot be read
     */
    static List<String> trackerPairs(Path file) throws IOException {
        LatencyTracker tracker = new LatencyTracker();
        Map<Long, Long> ts = new HashMap<>();
        List<LatencyPair> pairs = new ArrayList<>();
        try (RecordInput in = RecordInput.open(file, null)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                ts.put(e.frame(), e.timeNs());
                tracker.feed(e.frame(), e.record()).ifPresent(pairs::add);
            }
        }
        List<String> out = new ArrayList<>();
        for (LatencyPair p : pairs) {
            boolean sched = p.kind() == LatencyPair.Kind.SCHED_WAKEUP;
            long start = ts.get(p.start().sequence());
            long end = ts.get(p.end().sequence());
            out.add(String.join("|", kind(p.kind()), Integer.toString(p.pid()), String.valueOf(p.comm()),
                    p.wakerPid() == -1 ? "null" : Integer.toString(p.wakerPid()), Integer.toString(p.cpu()),
                    sched ? "null" : Long.toString(p.id()), String.valueOf(p.name()), Long.toString(p.result()),
                    Long.toString(p.start().sequence()), Long.toString(start), Long.toString(p.end().sequence()),
                    Long.toString(end), Long.toString(p.latencyNs())));
        }
        return out;
    }

    /** The view's rows in the same form, ordered by frame. */
    static List<String> latencyRows(Statement s) throws SQLException {
        return rows(s, "SELECT " + LATENCY_ROW + " FROM latency ORDER BY frame");
    }

    /** A query's rows, each column's text (null as {@code null}) joined by {@code |}. */
    static List<String> rows(Statement s, String q) throws SQLException {
        List<String> l = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(q)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder sb = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    sb.append(i == 1 ? "" : "|").append(rs.getString(i));
                }
                l.add(sb.toString());
            }
        }
        return l;
    }

    /** The view's name of a kind. */
    static String kind(LatencyPair.Kind k) {
        return switch (k) {
            case SCHED_WAKEUP -> "sched_wakeup";
            case SYSCALL -> "syscall";
            case IRQ -> "irq";
            case SOFTIRQ -> "softirq";
        };
    }
}
