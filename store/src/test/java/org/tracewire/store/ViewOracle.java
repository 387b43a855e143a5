package org.tracewire.store;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Assertions;
import org.tracewire.analysis.LatencyPair;
import org.tracewire.analysis.LatencyTracker;
import org.tracewire.format.EventFormat;
import org.tracewire.input.RecordInput;
import org.tracewire.record.EventRecord;

/**
 * The independent computations the derived views are checked against, from the records a file's
 * reader yields: {@link LatencyTracker}'s pairs fed in file order, as rows of {@code latency};
 * {@code thread_state} as a state machine per task; events per interval for {@code event_rate}.
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

    /**
     * {@code thread_state} computed from a file's records as a state machine per task (pid, idle
     * excluded): transitions in time order (ts, frame; at one switch the task switched out before the
     * one switched in); switched in → Running on that CPU, switched out → R (runnable) or the sleep
     * state its {@code prev_state} prints, a wakeup → R when the task sleeps or nothing is known of
     * it yet (else nothing). Rows {@code host|ts|dur|pid|comm|state|cpu}, sorted as text.
     *
     * @param host the host name the store gives the file
     * @throws IOException when the file cannot be read
     */
    static List<String> threadStates(Path file, String host) throws IOException {
        record T(long ts, long frame, int o, int pid, String comm, String state, Integer cpu) {
        }
        Map<Integer, List<T>> byTask = new HashMap<>();
        try (RecordInput in = RecordInput.open(file, null)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                EventRecord r = e.record();
                EventFormat f = r.format();
                if (!f.system().equals("sched")) {
                    continue;
                }
                List<T> add = new ArrayList<>();
                if (f.name().equals("sched_switch")) {
                    long ps = r.integer(f.field("prev_state"));
                    add.add(new T(e.timeNs(), e.frame(), 0, (int) r.integer(f.field("prev_pid")),
                            r.string(f.field("prev_comm")), (ps & 255) == 0 ? "R" : state(ps), null));
                    add.add(new T(e.timeNs(), e.frame(), 1, (int) r.integer(f.field("next_pid")),
                            r.string(f.field("next_comm")), "Running", r.cpu()));
                } else if (f.name().equals("sched_wakeup") || f.name().equals("sched_wakeup_new")) {
                    add.add(new T(e.timeNs(), e.frame(), 2, (int) r.integer(f.field("pid")), r.string(f.field("comm")),
                            null, null));
                }
                for (T t : add) {
                    if (t.pid != 0) {
                        byTask.computeIfAbsent(t.pid, k -> new ArrayList<>()).add(t);
                    }
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (List<T> l : byTask.values()) {
            l.sort(Comparator.comparingLong(T::ts).thenComparingLong(T::frame).thenComparingInt(T::o));
            List<T> kept = new ArrayList<>();
            String cur = null;
            for (T t : l) {
                if (t.o == 2) {
                    if (cur != null && (cur.equals("Running") || cur.equals("R"))) {
                        continue;
                    }
                    t = new T(t.ts, t.frame, t.o, t.pid, t.comm, "R", null);
                }
                cur = t.state;
                kept.add(t);
            }
            for (int i = 0; i < kept.size(); i++) {
                T t = kept.get(i);
                String dur = i + 1 < kept.size() ? Long.toString(kept.get(i + 1).ts - t.ts) : "null";
                out.add(String.join("|", host, Long.toString(t.ts), dur, Integer.toString(t.pid), t.comm, t.state,
                        String.valueOf(t.cpu)));
            }
        }
        out.sort(null);
        return out;
    }

    /** {@code sched_switch}'s prev_state as the 6.x print fmt prints it. */
    static String state(long s) {
        StringBuilder sb = new StringBuilder();
        String[] names = {"S", "D", "T", "t", "X", "Z", "P", "I"};
        for (int i = 0; i < names.length; i++) {
            if ((s & (1L << i)) != 0) {
                sb.append(sb.length() == 0 ? "" : "|").append(names[i]);
            }
        }
        return (sb.length() == 0 ? "R" : sb.toString()) + ((s & 256) != 0 ? "+" : "");
    }

    /**
     * Events per {@code interval} ns bucket (floor of the event's {@code ts}), CPU and event, from
     * a file's records: rows {@code ts|cpu|event|count}, sorted as text.
     *
     * @throws IOException when the file cannot be read
     */
    static List<String> eventRate(Path file, long interval) throws IOException {
        Map<String, Long> n = new HashMap<>();
        try (RecordInput in = RecordInput.open(file, null)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                n.merge(Math.floorDiv(e.timeNs(), interval) * interval + "|" + e.record().cpu() + "|"
                        + e.record().format().fullName(), 1L, Long::sum);
            }
        }
        List<String> out = new ArrayList<>();
        n.forEach((k, v) -> out.add(k + "|" + v));
        out.sort(null);
        return out;
    }

    /** A query's rows as {@link #rows}, sorted as text. */
    static List<String> sortedRows(Statement s, String q) throws SQLException {
        List<String> l = rows(s, q);
        l.sort(null);
        return l;
    }

    /**
     * Checks the derived views of a store holding one file against the computations above:
     * {@code latency} row for row; {@code thread_state} row for row, each task's intervals tiling
     * its span from first to last transition, its Running intervals those of {@code sched_slice};
     * {@code event_rate} for two interval sizes bucket for bucket, and its sums per event the
     * counts of {@code events}.
     *
     * @return pairs per kind and thread states per state, for the test's output
     */
    static String assertViews(Statement s, Path file) throws Exception {
        String host = rows(s, "SELECT DISTINCT host FROM events").get(0);
        List<String> want = trackerPairs(file);
        Assertions.assertEquals(want, latencyRows(s), "latency");
        Map<String, Integer> kinds = new TreeMap<>();
        want.forEach(r -> kinds.merge(r.substring(0, r.indexOf('|')), 1, Integer::sum));

        List<String> states = threadStates(file, host);
        Assertions.assertEquals(states, sortedRows(s, "SELECT host, ts, dur, pid, comm, state, cpu FROM thread_state"),
                "thread_state");
        Assertions.assertEquals(List.of(), rows(s, "SELECT * FROM (SELECT pid, ts, dur, lead(ts) OVER w - ts AS gap"
                + " FROM thread_state WINDOW w AS (PARTITION BY host, pid ORDER BY ts, dur NULLS LAST))"
                + " WHERE dur IS DISTINCT FROM gap OR dur < 0"), "each task's intervals follow one another");
        Assertions.assertEquals(List.of(), rows(s, "SELECT pid FROM thread_state GROUP BY host, pid"
                + " HAVING coalesce(sum(dur), 0) <> max(ts) - min(ts) OR count(*) FILTER (WHERE dur IS NULL) <> 1"),
                "each task's intervals tile its span, the last one open");
        String running = "SELECT host, pid, cpu, ts, dur FROM thread_state WHERE state = 'Running'";
        String slices = "SELECT host, pid, cpu, ts, dur FROM sched_slice WHERE pid <> 0";
        Assertions.assertEquals(List.of(), rows(s, running + " EXCEPT ALL " + slices), "Running intervals not slices");
        Assertions.assertEquals(List.of(), rows(s, slices + " EXCEPT ALL " + running), "slices not Running intervals");
        Map<String, Integer> byState = new TreeMap<>();
        states.forEach(r -> byState.merge(r.split("\\|", -1)[5], 1, Integer::sum));

        List<String> counts = sortedRows(s, "SELECT event, count(*) FROM events GROUP BY event");
        for (long interval : new long[] {1_000_000L, 100_000_000L}) {
            Assertions.assertEquals(eventRate(file, interval),
                    sortedRows(s, "SELECT ts, cpu, event, count FROM event_rate(" + interval + ")"), "event_rate " + interval);
            Assertions.assertEquals(counts, sortedRows(s, "SELECT event, sum(count) FROM event_rate(" + interval + ")"
                    + " GROUP BY event"), "event_rate sums " + interval);
        }
        return "latency pairs " + kinds + ", thread states " + byState;
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
