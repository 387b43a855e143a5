package org.tracewire.app.capture;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The unfiltered frame order of source 0 without a table: the event of rank {@code i} (its
 * position in frame order) has frame {@code i + delta}, where {@code delta} is constant over a
 * run of consecutive frames and grows by the frames between runs (context and lost-event frames,
 * which are no events). The builder writes where each run starts ({@code frame_runs}: rank and
 * frame, a few hundred rows); they are used only when they prove the order (ranks from 0 up,
 * deltas increasing, every event of the {@code events} view counted), else the table numbers its
 * rows in a table as for any other view ({@link StoreRows}).
 */
final class FrameRuns {
    /** Rank of each run's first row; ascending, never empty (the first run starts at rank 0). */
    private final long[] first;
    /** Frame minus rank over each run. */
    private final long[] delta;
    private final long rows;

    private FrameRuns(long[] first, long[] delta, long rows) {
        this.first = first;
        this.delta = delta;
        this.rows = rows;
    }

    /**
     * Reads the runs of a store's source 0.
     *
     * @param db    the store's connection
     * @param total the events the store says it holds
     * @return the runs, or null when they do not prove the frame order or do not count
     *         {@code total} rows (then the caller materialises the order)
     * @throws SQLException when DuckDB fails
     */
    static FrameRuns of(Connection db, long total) throws SQLException {
        List<long[]> runs = new ArrayList<>();
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT rank, frame FROM s0.frame_runs ORDER BY rank")) {
            while (rs.next()) {
                runs.add(new long[] {rs.getLong(1), rs.getLong(2) - rs.getLong(1)});
            }
        }
        if (total == 0 || runs.isEmpty() || runs.get(0)[0] != 0 || !ascending(runs, Long.MIN_VALUE, total)) {
            return null;
        }
        // the events view must show every stored row (its joins drop or repeat none)
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM events")) {
            rs.next();
            if (rs.getLong(1) != total) {
                return null;
            }
        }
        return of(runs, total);
    }

    /** True when each run starts after the one before, below {@code total}, its delta above the one before. */
    private static boolean ascending(List<long[]> runs, long lastDelta, long total) {
        long lastRank = -1;
        for (long[] x : runs) {
            if (x[0] <= lastRank || x[0] >= total || x[1] <= lastDelta) {
                return false;
            }
            lastRank = x[0];
            lastDelta = x[1];
        }
        return true;
    }

    private static FrameRuns of(List<long[]> runs, long total) {
        long[] f = new long[runs.size()];
        long[] d = new long[runs.size()];
        for (int k = 0; k < f.length; k++) {
            f[k] = runs.get(k)[0];
            d[k] = runs.get(k)[1];
        }
        return new FrameRuns(f, d, total);
    }

    /**
     * The runs of a store that grew since these were read ({@code CaptureStore.following}): only
     * the runs from {@link #rows()} on are read, with the store's event count of the same snapshot.
     *
     * @param db the store's connection
     * @return the runs of every row the store holds now, or null when the new runs do not prove
     *         the frame order (then the caller materialises the order)
     * @throws SQLException when DuckDB fails
     */
    FrameRuns grown(Connection db) throws SQLException {
        List<long[]> added = new ArrayList<>();
        long total = -1;
        try (PreparedStatement ps = db.prepareStatement("SELECT m.n, r.rank, r.frame FROM (SELECT value::BIGINT AS n"
                + " FROM s0.meta WHERE key = 'events') m LEFT JOIN (SELECT rank, frame FROM s0.frame_runs WHERE rank >= ?) r"
                + " ON true ORDER BY r.rank")) {
            ps.setLong(1, rows);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    total = rs.getLong(1);
                    long rank = rs.getLong(2);
                    if (!rs.wasNull()) {
                        added.add(new long[] {rank, rs.getLong(3) - rank});
                    }
                }
            }
        }
        if (total < rows || !ascending(added, delta[delta.length - 1], total)) {
            return null;
        }
        List<long[]> runs = new ArrayList<>();
        for (int k = 0; k < first.length; k++) {
            runs.add(new long[] {first[k], delta[k]});
        }
        runs.addAll(added);
        return of(runs, total);
    }

    /** Rows (events) in frame order. */
    long rows() {
        return rows;
    }

    /** The frame of the row of rank {@code i} (0 ≤ i < {@link #rows()}). */
    long frameAt(long i) {
        int k = Arrays.binarySearch(first, i);
        k = k >= 0 ? k : -k - 2;
        return i + delta[k];
    }

    /** The rank of a frame's row, or -1 when the frame is no event. */
    long rowOf(long frame) {
        int lo = 0;
        int hi = first.length - 1;
        int k = -1;
        while (lo <= hi) { // the last run whose first frame is ≤ frame
            int mid = (lo + hi) >>> 1;
            if (first[mid] + delta[mid] <= frame) {
                k = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (k < 0) {
            return -1;
        }
        long i = frame - delta[k];
        long end = k + 1 < first.length ? first[k + 1] : rows;
        return i < end ? i : -1;
    }
}
