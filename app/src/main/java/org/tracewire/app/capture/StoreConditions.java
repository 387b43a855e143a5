package org.tracewire.app.capture;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.tracewire.filter.Filter;
import org.tracewire.filter.FilterSyntaxException;
import org.tracewire.store.CaptureStore;

/**
 * The SQL conditions of a {@link StoreTable}'s view over {@code events}: the filter box in the
 * kernel's syntax by the live table's rule (for each event of the file, or the one of the event
 * restriction, the filter compiled over its typed table by {@link CaptureStore#filterQuery}; a row
 * passes when its event takes the filter and it holds), the last valid filter kept when a new one
 * is wrong, the event and thread restrictions, and a restriction to the frames of a query (copied
 * into a temporary table once per restriction). Knows the store's events and the typed tables
 * naming a task by pid ({@link #readCatalog}). Used on the table's query thread (the owner of its
 * connection); the catalog may be read by any thread.
 */
final class StoreConditions {
    /**
     * The conditions of a view.
     *
     * @param where   conditions over {@code events}, joined by AND (empty: every event)
     * @param error   what is wrong with the filter or the restriction ("" for nothing)
     * @param errorAt the position of a filter's syntax error in its text, or -1
     */
    record Where(List<String> where, String error, int errorAt) {
    }

    private final CaptureStore store;
    private final List<String> events = new CopyOnWriteArrayList<>();
    /** Typed tables (views) naming a task by pid: table → its pid columns. */
    private final Map<String, List<String>> pidColumns = new ConcurrentSkipListMap<>();
    // owned by the query thread
    private long copiedVersion;
    private String validCondition;
    private String validText = "";

    /** @param store the store the conditions are over */
    StoreConditions(CaptureStore store) {
        this.store = store;
    }

    /** Reads the store's events and their tables' pid columns (again as a growing store commits). */
    void readCatalog(Connection db) throws SQLException {
        Map<String, String> tables = new LinkedHashMap<>();
        List<String> found = new ArrayList<>();
        Map<String, List<String>> pids = new LinkedHashMap<>();
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT event, table_name FROM s0.event_tables ORDER BY event")) {
            while (rs.next()) {
                found.add(rs.getString(1));
                tables.put(rs.getString(2), rs.getString(1));
            }
        }
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT table_name, column_name FROM information_schema.columns"
                     + " WHERE table_catalog = current_database() AND table_schema = 'main'"
                     + " AND column_name IN ('pid', 'prev_pid', 'next_pid') ORDER BY table_name, column_name")) {
            while (rs.next()) {
                if (tables.containsKey(rs.getString(1))) {
                    pids.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getString(2));
                }
            }
        }
        events.retainAll(found);
        found.stream().filter(e -> !events.contains(e)).forEach(events::add);
        pidColumns.keySet().retainAll(pids.keySet());
        pidColumns.putAll(pids);
    }

    /**
     * The conditions of a view (query thread).
     *
     * @param db              the table's connection
     * @param text            the filter box's text, stripped ("" for none)
     * @param event           the event restriction, or null
     * @param thread          the thread restriction (a pid), or null
     * @param frames          the query whose frames the view is restricted to, or null
     * @param restrictVersion the restriction's version: a new one is copied again
     */
    Where where(Connection db, String text, String event, Integer thread, String frames, long restrictVersion) {
        String error = "";
        int errorAt = -1;
        try {
            validCondition = compile(text, event);
            validText = text;
        } catch (FilterSyntaxException e) {
            error = e.pointer(text) + "\n" + e.detail() + "\n" + (validText.isEmpty()
                    ? "(the table is not filtered meanwhile)" : "(the table keeps the last valid filter: " + validText + ")");
            errorAt = e.position();
        } catch (SQLException e) {
            error = "the filter cannot be run: " + e.getMessage();
        }
        List<String> where = new ArrayList<>();
        if (validCondition != null) {
            where.add(validCondition);
        }
        if (event != null) {
            where.add("event = " + literal(event));
        }
        if (thread != null) {
            where.add(threadCondition(thread));
        }
        if (frames != null) {
            try {
                where.add(restrictedFrames(db, frames, restrictVersion));
            } catch (SQLException e) {
                error = "cannot restrict to those frames: " + e.getMessage().lines().findFirst().orElse("");
            }
        }
        return new Where(where, error, errorAt);
    }

    /**
     * The SQL condition of a filter over {@code events} (null for none), per the rule above.
     *
     * @param text  the filter, stripped
     * @param event the one event it applies to, or null for every event of the file
     * @throws FilterSyntaxException when it does not parse, or no event takes it
     * @throws SQLException          when DuckDB fails
     */
    String compile(String text, String event) throws FilterSyntaxException, SQLException {
        if (text.isEmpty()) {
            return null;
        }
        Filter.parse(text); // a syntax error before anything else, with its position
        List<String> parts = new ArrayList<>();
        FilterSyntaxException first = null;
        for (String e : event != null ? List.of(event) : events) {
            try {
                parts.add("SELECT frame FROM (" + store.filterQuery(e, text) + ")");
            } catch (FilterSyntaxException x) {
                if (first == null) {
                    first = new FilterSyntaxException(x.position(), x.detail() + (x.detail().contains(e) ? "" : " [" + e + "]"));
                }
            } catch (IllegalArgumentException x) {
                // no events of that kind in the file
            }
        }
        if (parts.isEmpty()) {
            if (first == null) {
                throw new FilterSyntaxException(0, "no event of this file takes this filter");
            }
            int n = event != null ? 1 : events.size();
            throw n > 1 ? new FilterSyntaxException(first.position(), first.detail()
                    + String.format(" (and no other of the file's %d events takes this filter)", n - 1)) : first;
        }
        return "frame IN (" + String.join(" UNION ALL ", parts) + ")";
    }

    /** Rows of the task or naming it ({@code pid}, {@code prev_pid}, {@code next_pid} of a typed table). */
    private String threadCondition(int pid) {
        StringBuilder sb = new StringBuilder("(pid = " + pid);
        for (Map.Entry<String, List<String>> t : pidColumns.entrySet()) {
            List<String> or = new ArrayList<>();
            for (String c : t.getValue()) {
                or.add("\"" + c + "\" = " + pid);
            }
            sb.append(" OR frame IN (SELECT frame FROM \"").append(t.getKey().replace("\"", "\"\"")).append("\" WHERE ")
                    .append(String.join(" OR ", or)).append(")");
        }
        return sb.append(")").toString();
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    /** The condition of the restriction to frames, copying them first when the restriction is new. */
    private String restrictedFrames(Connection db, String query, long version) throws SQLException {
        if (version != copiedVersion) {
            try (Statement s = db.createStatement()) {
                s.execute("CREATE OR REPLACE TEMP TABLE restricted_frames AS SELECT DISTINCT TRY_CAST(frame AS BIGINT) AS frame"
                        + " FROM (" + query + ") WHERE frame IS NOT NULL");
            }
            copiedVersion = version;
        }
        return "frame IN (SELECT frame FROM restricted_frames)";
    }
}
