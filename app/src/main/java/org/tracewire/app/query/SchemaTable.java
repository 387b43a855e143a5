package org.tracewire.app.query;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.tracewire.app.capture.StoreQueries;
import org.tracewire.app.query.QueryResult.Column;

/**
 * A table or view of the store, for the schema beside the editor.
 *
 * @param name    its name
 * @param view    a view (else a table)
 * @param columns its columns in order
 */
public record SchemaTable(String name, boolean view, List<Column> columns) {
    /**
     * The tables and views of the store's main schema, by name (worker thread).
     *
     * @throws SQLException when DuckDB fails
     */
    static List<SchemaTable> read(StoreQueries<Connection> store) throws SQLException {
        Map<String, SchemaTable> out = new LinkedHashMap<>();
        store.execute("SELECT c.table_name, t.table_type = 'VIEW', c.column_name, c.data_type"
                + " FROM information_schema.columns c JOIN information_schema.tables t"
                + " ON t.table_catalog = c.table_catalog AND t.table_schema = c.table_schema AND t.table_name = c.table_name"
                + " WHERE c.table_catalog = current_database() AND c.table_schema = 'main'"
                + " ORDER BY c.table_name, c.ordinal_position", rs -> {
                    while (rs.next()) {
                        String name = rs.getString(1);
                        SchemaTable st = out.computeIfAbsent(name, k -> {
                            try {
                                return new SchemaTable(k, rs.getBoolean(2), new ArrayList<>());
                            } catch (SQLException e) {
                                throw new IllegalStateException(e);
                            }
                        });
                        st.columns().add(Column.of(rs.getString(3), rs.getString(4)));
                    }
                });
        List<SchemaTable> list = new ArrayList<>();
        for (SchemaTable t : out.values()) {
            list.add(new SchemaTable(t.name(), t.view(), List.copyOf(t.columns())));
        }
        return list;
    }
}
