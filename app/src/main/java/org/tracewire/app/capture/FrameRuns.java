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
 * The unfiltered frame order of source 0 without a table: {@code event_rows} is stored in frame
 * order (the builder appends events as the file yields them), so the row of rank {@code i}
 * (its {@code rowid}) has frame {@code i + delta} where {@code delta} is constant over a run of
 * consecutive frames and grows by the frames between runs (context and lost-event frames,
 * which are no events). The runs come from one GROUP BY over {@code frame - rowid}; they are
 * used only when they prove the order (contiguous rowids, deltas increasing, every event
 * counted), else the table numbers its rows in a table as for any other view ({@link StoreRows}).
 */
final class FrameRuns {
    /** Rank of each run's first row; ascending. */
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
        List<long[]> r = new ArrayList<>();
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT frame - rowid AS d, min(rowid), max(rowid), count(*) FROM s0.event_rows"
                     + " GROUP BY d ORDER BY 2")) {
            while (rs.next()) {
                r.add(new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)});
            }
        }
        long next = 0;
        long lastDelta = Long.MIN_VALUE;
        long[] first = new long[r.size()];
        long[] delta = new long[r.size()];
        for (int k = 0; k < r.size(); k++) {
            long[] x = r.get(k);
            if (x[1] != next || x[2] - x[1] + 1 != x[3] || x[0] <= lastDelta) {
                return null;
            }
            first[k] = x[1];
            delta[k] = x[0];
            lastDelta = x[0];
            next = x[2] + 1;
        }
        if (next != total || total == 0) {
            return null;
        }
        // the events view must show every stored row (its joins drop or repeat none)
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM events")) {
            rs.next();
            if (rs.getLong(1) != total) {
                return null;
            }
        }
        return new FrameRuns(first, delta, total);
    }

    /**
     * The runs of a store that grew since these were read ({@code CaptureStore.following}): only
     * the rows from {@link #rows()} on are read, the first of their runs joined to the last one
     * here when it continues it.
     *
     * @param db the store's connection
     * @return the runs of every row the store holds now, or null when the new rows do not prove the
     *         frame order (then the caller materialises the order)
     * @throws SQLException when DuckDB fails
     */
    FrameRuns grown(Connection db) throws SQLException {
        List<long[]> r = new ArrayList<>();
        try (PreparedStatement ps = db.prepareStatement("SELECT frame - rowid AS d, min(rowid), max(rowid), count(*)"
                + " FROM s0.event_rows WHERE rowid >= ? GROUP BY d ORDER BY 2")) {
            ps.setLong(1, rows);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    r.add(new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)});
                }
            }
        }
        List<long[]> runs = new ArrayList<>();
        for (int k = 0; k < first.length; k++) {
            runs.add(new long[] {first[k], delta[k]});
        }
        long next = rows;
        long lastDelta = delta.length == 0 ? Long.MIN_VALUE : delta[delta.length - 1];
        for (long[] x : r) {
            if (x[1] != next || x[2] - x[1] + 1 != x[3] || x[0] < lastDelta) {
                return null;
            }
            if (x[0] > lastDelta) { // else the last run goes on
                runs.add(new long[] {x[1], x[0]});
            }
            lastDelta = x[0];
            next = x[2] + 1;
        }
        long[] f = new long[runs.size()];
        long[] d = new long[runs.size()];
        for (int k = 0; k < f.length; k++) {
            f[k] = runs.get(k)[0];
            d[k] = runs.get(k)[1];
        }
        return new FrameRuns(f, d, next);
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
