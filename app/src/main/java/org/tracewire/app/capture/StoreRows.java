package org.tracewire.app.capture;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rows of a {@link StoreTable}'s views: how a view numbers its rows, the row of a frame, and
 * pages of {@value #PAGE} rows read from the store ({@code events} by frame) and decoded from the
 * file at each event's {@code file_offset} ({@link FrameReader}).
 *
 * <p>Unfiltered in frame order a row's number is its event's rank in the store ({@link FrameRuns}:
 * nothing is materialised); any other view keeps its frames, in order, in a table
 * {@code tracewire_table.rows_GEN(frame)} of the store's in-memory database whose {@code rowid} is
 * the row number. Not a temporary table: those are their connection's own, and the row of a frame
 * is looked up on a connection of its own ({@code DuckDBConnection.duplicate()}), so that it never
 * waits behind the pages being fetched on the table's query thread. The schema is not
 * {@code main}, so the query view's schema does not list it.
 *
 * <p>Threads: {@link #number}, {@link #rowOf}, {@link #notShown} and {@link #page} run on the
 * thread that owns the connection they are given; the file is read under a lock (a
 * {@link FrameReader} is not thread-safe).
 */
final class StoreRows {
    /** Rows per page fetched. */
    static final int PAGE = 512;
    /** Pages kept per view (least recently used dropped). */
    static final int CACHED_PAGES = 64;
    /** Rows around the rows shown whose pages are fetched ahead ({@link StoreRowList#showing}). */
    static final int AHEAD = 128;
    private static final String SCHEMA = "tracewire_table";

    /**
     * How one view numbers its rows.
     *
     * @param gen        the table's generation of the view
     * @param plain      rows are the store's frame order ({@link FrameRuns}), else {@code table}'s rowids
     * @param ascending  for a plain view, frame order ascending
     * @param table      the view's table of frames (null for a plain view)
     * @param size       rows in the view
     * @param query      its conditions and order (what a view extended from it must have)
     * @param lineage    the generation of the view it was extended from, and so on back to one
     *                   numbered whole ({@link #grow}); its own generation for that one
     * @param addedAtTop rows added before the first row of the lineage's first view: a row of an
     *                   earlier view of the lineage is this many rows lower minus that view's
     * @param lastFrame  the last frame of the store's frame order the view went over, -1 when the
     *                   store's rows are not in frame order
     */
    record View(long gen, boolean plain, boolean ascending, String table, long size, String query, long lineage,
                long addedAtTop, long lastFrame) {
        /** Rows added above the rows of an earlier view of the same lineage, or -1 for another view. */
        long shiftFrom(View earlier) {
            return earlier.lineage == lineage && earlier.gen <= gen ? addedAtTop - earlier.addedAtTop : -1;
        }
    }

    private final FrameReader frames;
    private final FrameRuns runs;
    /** A plain view's pages read from the file without a query, once {@link #warm} has read them. */
    private volatile FrameOffsets direct;
    /** {@link #warm} has run (once is enough: a store FrameOffsets cannot serve is not scanned again). */
    private volatile boolean tried;

    /**
     * @param frames reads the rows' frames again from the file
     * @param runs   the store's frame order, or null when the store's rows are not in frame order
     */
    StoreRows(FrameReader frames, FrameRuns runs) {
        this.frames = frames;
        this.runs = runs;
    }

    /** The store's frame order, or null when its rows are not in frame order. */
    FrameRuns runs() {
        return runs;
    }

    /**
     * Reads what a plain view's pages need to be read from the file alone ({@link FrameOffsets}),
     * and reads one page that way (the decoding code compiled before the first go to frame); a
     * store whose rows are not in frame order, or that {@link FrameOffsets} cannot serve, keeps
     * reading its pages by a query. Run it on the thread that owns {@code db}, off the UI thread;
     * a second call does nothing.
     *
     * @param db a connection to the store's database
     */
    void warm(Connection db) {
        if (runs == null || tried) {
            return;
        }
        tried = true;
        try {
            FrameOffsets d = FrameOffsets.of(db, runs, frames.size());
            if (d != null) {
                synchronized (frames) {
                    d.rows(frames, 0, Math.min(PAGE, runs.rows()) - 1);
                }
            }
            direct = d;
        } catch (SQLException | IOException | RuntimeException e) {
            direct = null; // pages by query, as before
        }
    }

    /** True once {@link #warm} made a plain view's pages read from the file alone. */
    boolean readsFromFile() {
        return direct != null;
    }

    /**
     * Numbers a view's rows: plain when it has no condition and is in frame order (and the store's
     * rows are), else its frames in a table of the generation; the table of the view before
     * ({@code previous}) is dropped.
     *
     * @param db       the table's connection (its query thread)
     * @param gen      the view's generation
     * @param where    conditions over {@code events}, joined by AND (empty: every event)
     * @param order    the ORDER BY of the view ({@code frame} or {@code frame DESC} for frame order)
     * @param previous the view before, or null
     * @return the view
     * @throws SQLException when DuckDB fails
     */
    View number(Connection db, long gen, List<String> where, String order, View previous) throws SQLException {
        View v;
        String query = query(where, order);
        try (Statement s = db.createStatement()) {
            if (where.isEmpty() && byFrame(order) && runs != null) {
                v = new View(gen, true, order.equals("frame"), null, runs.rows(), query, gen, 0, lastFrame());
            } else {
                String table = SCHEMA + ".rows_" + gen;
                s.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
                // only the frames, in order: a row's number is its rowid (insertion order kept)
                s.execute("CREATE OR REPLACE TABLE " + table + " AS SELECT frame FROM events"
                        + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where)) + " ORDER BY " + order);
                v = new View(gen, false, true, table, count(s, table), query, gen, 0, lastFrame());
            }
            if (previous != null && previous.table() != null && !previous.table().equals(v.table())) {
                s.execute("DROP TABLE IF EXISTS " + previous.table());
            }
        }
        return v;
    }

    /**
     * A view of a grown store extended from the one before ({@code previous}, of an earlier
     * numbering of the same store) when both are in frame order with the same conditions: the
     * frames committed since are added at its end (ascending) or before its rows (descending;
     * the frames of {@code previous} copied after them, not filtered again), so each of its rows
     * keeps its frame, {@link View#addedAtTop()} rows lower. Otherwise (another order or other
     * conditions, a store not in frame order) numbered whole ({@link #number}).
     *
     * @throws SQLException when DuckDB fails
     */
    View grow(Connection db, long gen, List<String> where, String order, View previous) throws SQLException {
        String query = query(where, order);
        if (previous == null || runs == null || previous.lastFrame() < 0 || !byFrame(order) || !previous.query().equals(query)) {
            return number(db, gen, where, order, previous);
        }
        boolean up = order.equals("frame");
        long last = lastFrame();
        if (previous.plain()) {
            long added = up ? 0 : runs.rows() - previous.size();
            return new View(gen, true, up, null, runs.rows(), query, previous.lineage(), previous.addedAtTop() + added, last);
        }
        String conditions = " WHERE frame > " + previous.lastFrame() + (where.isEmpty() ? "" : " AND " + String.join(" AND ", where));
        try (Statement s = db.createStatement()) {
            String table = previous.table();
            if (up) {
                s.execute("INSERT INTO " + table + " SELECT frame FROM events" + conditions + " ORDER BY frame");
            } else {
                table = SCHEMA + ".rows_" + gen;
                s.execute("CREATE OR REPLACE TABLE " + table + " AS SELECT frame FROM events" + conditions + " ORDER BY frame DESC");
                s.execute("INSERT INTO " + table + " SELECT frame FROM " + previous.table() + " ORDER BY rowid");
                s.execute("DROP TABLE IF EXISTS " + previous.table());
            }
            long size = count(s, table);
            return new View(gen, false, true, table, size, query, previous.lineage(),
                    previous.addedAtTop() + (up ? 0 : size - previous.size()), last);
        }
    }

    private static boolean byFrame(String order) {
        return order.equals("frame") || order.equals("frame DESC");
    }

    private static String query(List<String> where, String order) {
        return String.join(" AND ", where) + " ORDER BY " + order;
    }

    /** The last frame of the store's frame order, -1 without one (or no row). */
    private long lastFrame() {
        return runs == null || runs.rows() == 0 ? -1 : runs.frameAt(runs.rows() - 1);
    }

    private static long count(Statement s, String table) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * The row of a frame in a view.
     *
     * @param db any connection to the store's database
     * @return the row (0-based), or -1 when the frame is not in the view
     * @throws SQLException when DuckDB fails (the view's table dropped meanwhile, say)
     */
    long rowOf(Connection db, View v, long frame) throws SQLException {
        if (v.plain()) {
            long k = runs.rowOf(frame);
            return k < 0 ? -1 : v.ascending() ? k : runs.rows() - 1 - k;
        }
        try (PreparedStatement ps = db.prepareStatement("SELECT rowid FROM " + v.table() + " WHERE frame = ?")) {
            ps.setLong(1, frame);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }

    /** Why a frame is not in a view: filtered out, or no event of the file. */
    static String notShown(Connection db, long frame) throws SQLException {
        try (PreparedStatement q = db.prepareStatement("SELECT count(*) FROM events WHERE frame = ?")) {
            q.setLong(1, frame);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(1) > 0 ? String.format("frame %,d is filtered out", frame)
                        : String.format("frame %,d is no event of this file", frame);
            }
        }
    }

    /**
     * One page of a view: its rows read from the store and decoded from the file (a plain view's,
     * once {@link #warm}, from the file alone).
     *
     * @param db   any connection to the store's database
     * @param page the page (rows {@code page * PAGE} on)
     * @return the page's rows (a row whose event is missing is null)
     * @throws SQLException when DuckDB fails
     */
    EventRow[] page(Connection db, View v, int page) throws SQLException {
        long from = (long) page * PAGE;
        int n = (int) Math.max(0, Math.min(PAGE, v.size() - from));
        FrameOffsets d = direct;
        if (v.plain() && d != null && n > 0) {
            EventRow[] read = directPage(d, v, from, n);
            if (read != null) {
                return read;
            }
        }
        return queriedPage(db, v, from, n);
    }

    /** A plain view's page from the file alone, or null when it does not read whole that way. */
    private EventRow[] directPage(FrameOffsets d, View v, long from, int n) {
        long lo = v.ascending() ? from : runs.rows() - from - n;
        EventRow[] read;
        try {
            synchronized (frames) {
                read = d.rows(frames, lo, lo + n - 1);
            }
        } catch (IOException | RuntimeException e) {
            return null; // the query says what is wrong
        }
        if (read != null && !v.ascending()) {
            for (int i = 0, j = n - 1; i < j; i++, j--) {
                EventRow t = read[i];
                read[i] = read[j];
                read[j] = t;
            }
        }
        return read;
    }

    /** A page whose frames and events come from the store, each event decoded from the file at its offset. */
    private EventRow[] queriedPage(Connection db, View v, long from, int n) throws SQLException {
        Map<Long, Integer> at = pageFrames(db, v, from, n);
        EventRow[] out = new EventRow[n];
        if (at.isEmpty()) {
            return out;
        }
        for (EventRow r : decoded(eventsOf(db, v.plain(), at.keySet()))) {
            Integer slot = at.get(r.frame());
            if (slot != null) { // (a plain view's range holds only its page's events; never else)
                out[slot] = r;
            }
        }
        return out;
    }

    /** The frames of a page's rows, each with its slot in the page. */
    private Map<Long, Integer> pageFrames(Connection db, View v, long from, int n) throws SQLException {
        Map<Long, Integer> at = new HashMap<>();
        if (v.plain()) {
            for (int k = 0; k < n; k++) {
                at.put(runs.frameAt(v.ascending() ? from + k : runs.rows() - 1 - from - k), k);
            }
            return at;
        }
        try (PreparedStatement ps = db.prepareStatement("SELECT rowid, frame FROM " + v.table()
                + " WHERE rowid >= ? AND rowid < ?")) {
            ps.setLong(1, from);
            ps.setLong(2, from + n);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    at.put(rs.getLong(2), (int) (rs.getLong(1) - from));
                }
            }
        }
        return at;
    }

    /**
     * The store's columns of the events at these frames: {frame, ts, cpu, pid, comm, event, file
     * offset or -1}. A plain view's page is every event from its first frame to its last: the range
     * alone (zone maps skip the rest); another view's page needs its frames listed.
     */
    private static List<Object[]> eventsOf(Connection db, boolean plain, Set<Long> frames) throws SQLException {
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        StringBuilder in = plain ? null : new StringBuilder();
        for (long f : frames) {
            lo = Math.min(lo, f);
            hi = Math.max(hi, f);
            if (in != null) {
                in.append(in.length() == 0 ? "" : ",").append(f);
            }
        }
        List<Object[]> found = new ArrayList<>();
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT frame, ts, cpu, pid, comm, event, file_offset FROM events WHERE frame BETWEEN "
                     + lo + " AND " + hi + (in == null ? "" : " AND frame IN (" + in + ")"))) {
            while (rs.next()) {
                long offset = rs.getLong(7);
                offset = rs.wasNull() ? -1L : offset; // asked right after its column, not after the event name
                found.add(new Object[] {rs.getLong(1), rs.getLong(2), rs.getInt(3), rs.getInt(4), rs.getString(5), rs.getString(6),
                    offset});
            }
        }
        return found;
    }

    /**
     * The rows of {@link #eventsOf} events, each decoded from the file at its offset with the
     * store's task name; one that cannot be decoded keeps the store's columns and says why.
     */
    private EventRow[] decoded(List<Object[]> found) {
        List<Integer> withOffset = new ArrayList<>();
        for (int k = 0; k < found.size(); k++) {
            if ((long) found.get(k)[6] >= 0) {
                withOffset.add(k);
            }
        }
        long[] offsets = new long[withOffset.size()];
        long[] numbers = new long[withOffset.size()];
        for (int k = 0; k < offsets.length; k++) {
            offsets[k] = (long) found.get(withOffset.get(k))[6];
            numbers[k] = (long) found.get(withOffset.get(k))[0];
        }
        EventRow[] read = new EventRow[found.size()];
        String problem = null;
        try {
            EventRow[] decoded;
            synchronized (frames) {
                decoded = frames.rows(offsets, numbers);
            }
            for (int k = 0; k < decoded.length; k++) {
                read[withOffset.get(k)] = decoded[k];
            }
        } catch (IOException | RuntimeException e) {
            problem = e.getMessage();
        }
        for (int k = 0; k < found.size(); k++) {
            Object[] c = found.get(k);
            String comm = (String) c[4];
            EventRow r = read[k];
            if (r == null) {
                r = new EventRow((long) c[1], (int) c[2], (int) c[3], comm, (String) c[5],
                        "<" + (problem != null ? problem : "not decoded") + ">", Map.of(), (long) c[0], null);
            } else if (comm != null) {
                r = new EventRow(r.ts(), r.cpu(), r.pid(), comm, r.event(), r.text(), r.fields(), r.frame(), r.record());
            }
            read[k] = r;
        }
        return read;
    }
}
