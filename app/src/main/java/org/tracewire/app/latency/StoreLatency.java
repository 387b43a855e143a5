package org.tracewire.app.latency;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.tracewire.analysis.LatencyPair;

/**
 * Latency over every pair of a capture store, as SQL (no JavaFX; call it off the UI thread, on the
 * thread that owns the connection). The pairs come from the store's {@code latency} view (every
 * {@link org.tracewire.analysis.LatencyTracker} pair: wakeup → running, syscall, irq, softirq) when
 * the store has it, else from {@code sched_latency} (wakeups only); either is evaluated once per
 * store into the connection's temporary table {@code app_pairs(host, kind, pid, comm, waker_pid,
 * cpu, id, name, start_frame, start_ts, frame, ts, latency)}, latencies in ns, that the counts,
 * percentiles, buckets and pages of worst pairs read. (With the view evaluated again for a page's
 * details, a page took 7.1 s of a 10 M-event capture's 4.7 M pairs; with every column kept, the
 * table took 8.5 s instead of 7.8 and a page 18 ms, in DuckDB's 256 MiB of the app: BENCHMARKS.md.)
 */
public final class StoreLatency {
    /** The pairs, evaluated once by {@link #open}: every column. */
    static final String PAIRS = "app_pairs";

    private final Connection db;
    private final String source;

    /**
     * Totals of the pairs of one kind (or all).
     *
     * @param count pairs
     * @param p50   the median latency, ns (DuckDB {@code quantile_cont}: interpolated); NaN without pairs
     * @param p90   the 90th percentile, ns
     * @param p99   the 99th percentile, ns
     * @param max   the largest latency, ns; 0 without pairs
     * @param log2  pairs per log2 bucket: index k counts latencies in [2^k, 2^(k+1)) ns (k = 0 also 0 ns)
     */
    public record Summary(long count, double p50, double p90, double p99, long max, long[] log2) {
    }

    /**
     * One pair as the worst-pairs table shows it.
     *
     * @param kind       what was measured
     * @param pid        the task (wakeups, syscalls); -1 when none
     * @param comm       the task's name (the pair's, else the store's name of the pid), or null
     * @param wakerPid   the waking task's pid (wakeups), else -1
     * @param wakerComm  the waking task's name (the store's name of the pid: its last in the capture), or null
     * @param cpu        the CPU of the end event
     * @param what       the syscall's or irq's name or number, else empty
     * @param startFrame the start event's frame number
     * @param frame      the end event's frame number
     * @param startNs    the start event's time, ns
     * @param latencyNs  end − start, ns
     */
    public record Pair(LatencyPair.Kind kind, int pid, String comm, int wakerPid, String wakerComm, int cpu, String what,
                       long startFrame, long frame, long startNs, long latencyNs) {
    }

    private StoreLatency(Connection db, String source) {
        this.db = db;
        this.source = source;
    }

    /**
     * Evaluates the store's {@code latency} view, or its {@code sched_latency} when it has no
     * {@code latency} view, into the connection's temporary table {@code app_pairs}.
     *
     * @param db a connection to a {@link org.tracewire.store.CaptureStore}'s database
     * @return the reader, or null when the store has neither view (no sched_switch, say)
     * @throws SQLException when DuckDB fails
     */
    public static StoreLatency open(Connection db) throws SQLException {
        boolean latency = false;
        boolean sched = false;
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database()"
                     + " AND table_schema = 'main' AND table_name IN ('latency', 'sched_latency')")) {
            while (rs.next()) {
                latency |= rs.getString(1).equals("latency");
                sched |= rs.getString(1).equals("sched_latency");
            }
        }
        if (!latency && !sched) {
            return null;
        }
        String body = latency
                ? "SELECT host, kind, pid, comm, waker_pid, cpu, id, name, start_frame, start_ts, frame, ts, latency FROM latency"
                : "SELECT host, 'sched_wakeup' AS kind, pid, comm, waker_pid, cpu, NULL::BIGINT AS id, NULL::VARCHAR AS name,"
                + " wakeup_frame AS start_frame, wakeup_ts AS start_ts, frame, ts, latency FROM sched_latency";
        try (Statement s = db.createStatement()) {
            s.execute("CREATE OR REPLACE TEMP TABLE " + PAIRS + " AS " + body);
        }
        return new StoreLatency(db, latency ? "latency" : "sched_latency");
    }

    /** The store's view the pairs come from: {@code latency} (every kind) or {@code sched_latency} (wakeups). */
    public String source() {
        return source;
    }

    /** The view's name of a kind ({@code sched_wakeup}, {@code syscall}, {@code irq}, {@code softirq}). */
    static String sqlKind(LatencyPair.Kind k) {
        return k.name().toLowerCase(Locale.ROOT);
    }

    private static LatencyPair.Kind kindOf(String s) {
        return s == null ? null : LatencyPair.Kind.valueOf(s.toUpperCase(Locale.ROOT));
    }

    private static String where(LatencyPair.Kind kind) {
        return kind == null ? "" : " WHERE kind = '" + sqlKind(kind) + "'";
    }

    /**
     * Pairs per kind.
     *
     * @return kind → pairs, kinds without pairs left out
     * @throws SQLException when DuckDB fails
     */
    public Map<LatencyPair.Kind, Long> counts() throws SQLException {
        Map<LatencyPair.Kind, Long> out = new LinkedHashMap<>();
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT kind, count(*) FROM " + PAIRS + " GROUP BY kind ORDER BY kind")) {
            while (rs.next()) {
                out.put(kindOf(rs.getString(1)), rs.getLong(2));
            }
        }
        return out;
    }

    /**
     * Count, percentiles, max and the log2 histogram of every pair of a kind.
     *
     * @param kind the kind, null for all
     * @return the summary
     * @throws SQLException when DuckDB fails
     */
    public Summary summary(LatencyPair.Kind kind) throws SQLException {
        long count;
        double p50;
        double p90;
        double p99;
        long max;
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), quantile_cont(latency, [0.5, 0.9, 0.99]), max(latency) FROM "
                     + PAIRS + where(kind))) {
            rs.next();
            count = rs.getLong(1);
            Object[] q = rs.getArray(2) == null ? null : (Object[]) rs.getArray(2).getArray();
            p50 = q == null ? Double.NaN : ((Number) q[0]).doubleValue();
            p90 = q == null ? Double.NaN : ((Number) q[1]).doubleValue();
            p99 = q == null ? Double.NaN : ((Number) q[2]).doubleValue();
            max = rs.getLong(3);
        }
        long[] log2 = new long[64];
        // floor(log2(latency)), corrected where the double's log2 rounds across a power of two
        String b = "floor(log2(greatest(latency, 1)))::INTEGER";
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT k - CASE WHEN (1::HUGEINT << k) > greatest(latency, 1) THEN 1 ELSE 0 END"
                     + " + CASE WHEN (1::HUGEINT << (k + 1)) <= greatest(latency, 1) THEN 1 ELSE 0 END AS bucket, count(*)"
                     + " FROM (SELECT latency, " + b + " AS k FROM " + PAIRS + where(kind) + ") GROUP BY bucket")) {
            while (rs.next()) {
                log2[rs.getInt(1)] += rs.getLong(2);
            }
        }
        return new Summary(count, p50, p90, p99, max, log2);
    }

    /**
     * The worst pairs of a kind: longest latency first (ties in end-frame order), with the wakers'
     * names from the store's {@code tasks}.
     *
     * @param kind   the kind, null for all
     * @param offset pairs skipped
     * @param limit  pairs at most
     * @return the pairs
     * @throws SQLException when DuckDB fails
     */
    public List<Pair> worst(LatencyPair.Kind kind, long offset, int limit) throws SQLException {
        List<Pair> out = new ArrayList<>();
        try (PreparedStatement ps = db.prepareStatement("WITH top AS (SELECT * FROM " + PAIRS + where(kind)
                + " ORDER BY latency DESC, frame LIMIT ? OFFSET ?),"
                + " names AS (SELECT host, pid, arg_max(comm, capture) AS comm FROM tasks"
                + "   WHERE pid IN (SELECT waker_pid FROM top UNION SELECT pid FROM top) GROUP BY host, pid)"
                + " SELECT t.kind, t.pid, coalesce(t.comm, p.comm), t.waker_pid, n.comm, t.cpu, t.id, t.name, t.start_frame, t.frame,"
                + " t.start_ts, t.latency FROM top t LEFT JOIN names n ON n.host = t.host AND n.pid = t.waker_pid"
                + " LEFT JOIN names p ON p.host = t.host AND p.pid = t.pid"
                + " ORDER BY t.latency DESC, t.frame")) {
            ps.setInt(1, limit);
            ps.setLong(2, offset);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int pid = rs.getInt(2);
                    if (rs.wasNull()) {
                        pid = -1;
                    }
                    int waker = rs.getInt(4);
                    if (rs.wasNull()) {
                        waker = -1;
                    }
                    long id = rs.getLong(7);
                    boolean noId = rs.wasNull();
                    String name = rs.getString(8);
                    String what = name != null ? name : noId ? "" : Long.toString(id);
                    out.add(new Pair(kindOf(rs.getString(1)), pid, rs.getString(3), waker, rs.getString(5), rs.getInt(6), what,
                            rs.getLong(9), rs.getLong(10), rs.getLong(11), rs.getLong(12)));
                }
            }
        }
        return out;
    }
}
