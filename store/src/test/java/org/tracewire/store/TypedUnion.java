package org.tracewire.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Tests' view of a built database without {@link CaptureStore}'s views: its typed tables' rows together. */
final class TypedUnion {
    private TypedUnion() {
    }

    /**
     * A subquery (in parentheses) of every event's {@code frame} and {@code table_name} over the
     * typed tables of {@code schema} ({@code ""}: the connection's own, else e.g. {@code "s0."}).
     */
    static String frames(Connection c, String schema) throws SQLException {
        List<String> parts = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT table_name FROM " + schema + "event_tables ORDER BY kind")) {
            while (rs.next()) {
                parts.add("SELECT frame, capture, common_pid AS pid, " + Sql.literal(rs.getString(1)) + " AS table_name FROM "
                        + schema + Sql.quote(rs.getString(1)));
            }
        }
        return parts.isEmpty() ? "(SELECT 0::BIGINT AS frame, 0 AS capture, 0 AS pid, '' AS table_name WHERE false)"
                : "(" + String.join(" UNION ALL ", parts) + ")";
    }
}
