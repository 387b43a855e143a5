package org.tracewire.app.capture;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.LongStream;
import org.tracewire.store.StoreBuilder;

/**
 * A finished store's events read straight from the file, without a query: the file offset of
 * every {@value #STEP}th event in frame order (the builder writes it as it reads the file, so the
 * event of rank {@code i} is the one of frame {@link FrameRuns#frameAt}), and the store's task
 * names. The events of ranks [lo, hi] are then the packets of the file from the offset of rank
 * {@code lo / STEP * STEP} to that of the next step after {@code hi}, numbered from that rank's
 * frame on ({@link FrameReader#rowsOfFrames}), each given the store's task name as the
 * {@code events} view gives it. About 20,000 numbers for 10 M events.
 *
 * <p>Only for a store of one capture whose every task has one row (the {@code events} view's task
 * name is then a function of the pid); {@link #of} says null otherwise. A page that does not
 * decode whole (a frame of the span holding no event) is read by a query instead (null from
 * {@link #rows}).
 */
final class FrameOffsets {
    /** Events per offset kept (one per page of {@link StoreRows#PAGE}: the store's step). */
    static final int STEP = StoreBuilder.OFFSET_STEP;

    private final FrameRuns runs;
    /** File offset of the event of rank {@code k * STEP}. */
    private final long[] offsets;
    private final long fileSize;
    /** The store's task name per pid (the events view's {@code comm}). */
    private final Map<Integer, String> comms;

    private FrameOffsets(FrameRuns runs, long[] offsets, long fileSize, Map<Integer, String> comms) {
        this.runs = runs;
        this.offsets = offsets;
        this.fileSize = fileSize;
        this.comms = comms;
    }

    /**
     * Reads the offsets and task names of a finished store (its {@code event_offsets}: about 20,000
     * rows for 10 M events; call it off the UI thread).
     *
     * @param db       a connection to the store's database
     * @param runs     the store's frame order
     * @param fileSize the file's size in bytes
     * @return the offsets, or null when the store holds more than one capture, a task twice, or an
     *         event without a file offset
     * @throws SQLException when DuckDB fails
     */
    static FrameOffsets of(Connection db, FrameRuns runs, long fileSize) throws SQLException {
        Map<Integer, String> comms = new HashMap<>();
        try (Statement s = db.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM s0.captures),"
                    + " (SELECT count(*) - count(DISTINCT (capture, pid)) FROM s0.tasks)")) {
                rs.next();
                if (rs.getLong(1) != 1 || rs.getLong(2) != 0) {
                    return null;
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT pid, comm FROM s0.tasks WHERE comm IS NOT NULL")) {
                while (rs.next()) {
                    comms.put(rs.getInt(1), rs.getString(2));
                }
            }
            int n = (int) ((runs.rows() + STEP - 1) / STEP);
            long[] offsets = new long[n];
            int got = 0;
            // the builder's sparse index (StoreBuilder.OFFSET_STEP), not a scan of the events
            try (ResultSet rs = s.executeQuery("SELECT file_offset FROM s0.event_offsets ORDER BY rowid")) {
                while (rs.next()) {
                    long off = rs.getLong(1);
                    if (rs.wasNull() || off < 0 || got >= n) {
                        return null;
                    }
                    offsets[got++] = off;
                }
            }
            return got == n ? new FrameOffsets(runs, offsets, fileSize, comms) : null;
        }
    }

    /**
     * The file offsets of the blocks a store's build read without an event (its
     * {@code context_offsets}, in file order: {@link FrameReader#open(java.nio.file.Path, long[])}).
     *
     * @param db a connection to the store's database
     * @throws SQLException when DuckDB fails
     */
    static long[] contextBlocks(Connection db) throws SQLException {
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT file_offset FROM s0.context_offsets ORDER BY file_offset")) {
            LongStream.Builder at = LongStream.builder();
            while (rs.next()) {
                at.add(rs.getLong(1));
            }
            return at.build().toArray();
        }
    }

    /**
     * The rows of ranks [lo, hi] in frame order, read from the file.
     *
     * @param frames reads the file (the caller holds its lock)
     * @param lo     the first rank
     * @param hi     the last rank (≥ lo, at most {@link StoreRows#PAGE} ranks on)
     * @return the rows, rank {@code lo} first; null when one of them does not decode from the span
     * @throws IOException when the file cannot be read
     */
    EventRow[] rows(FrameReader frames, long lo, long hi) throws IOException {
        int first = (int) (lo / STEP);
        int end = (int) (hi / STEP) + 1;
        long from = offsets[first];
        long to = end < offsets.length ? offsets[end] : fileSize;
        long[] wanted = new long[(int) (hi - lo + 1)];
        for (int k = 0; k < wanted.length; k++) {
            wanted[k] = runs.frameAt(lo + k);
        }
        EventRow[] rows = frames.rowsOfFrames(from, to, runs.frameAt((long) first * STEP), wanted);
        for (int k = 0; k < rows.length; k++) {
            EventRow r = rows[k];
            if (r == null || r.frame() != wanted[k]) {
                return null;
            }
            String comm = comms.get(r.pid());
            if (comm != null) {
                rows[k] = new EventRow(r.ts(), r.cpu(), r.pid(), comm, r.event(), r.text(), r.fields(), r.frame(), r.record());
            }
        }
        return rows;
    }
}
