package org.tracewire.app.query;

import java.util.List;
import java.util.Locale;
import javafx.collections.ObservableList;

/**
 * The result of a query.
 *
 * @param seq     the query's number in this session (1, 2, …)
 * @param sql     the query
 * @param columns the columns
 * @param count   rows in the result (all of them, not only those read)
 * @param stored  kept in {@link #TABLE} (read by pages), else read into memory
 * @param note    what else to say ("first 10,000 rows", "3 rows changed"), or empty
 * @param ms      time the query took, ms
 * @param rows    the rows: a virtual list of {@code count} rows ({@link ResultRows}; at most
 *                {@value QueryViewModel#RAW_ROWS} when not stored), a row not fetched yet
 *                {@link ResultRows#LOADING}
 */
public record QueryResult(long seq, String sql, List<Column> columns, long count, boolean stored, String note, long ms,
                          ObservableList<List<String>> rows) {
    /** The table a stored result is kept in (the store's in-memory database, so every connection reads it). */
    public static final String TABLE = "app_query.result";

    /**
     * A column of a result or of a table in the schema.
     *
     * @param name    its name
     * @param type    DuckDB's type name
     * @param numeric an integer, decimal or floating-point type
     * @param time    a point in time: a TIMESTAMP/DATE type, or an integer named {@code ts} or {@code *_ts} (ns)
     */
    public record Column(String name, String type, boolean numeric, boolean time) {
        /** A column of DuckDB's type name {@code type} (null: unknown). */
        static Column of(String name, String type) {
            String t = type == null ? "" : type.toUpperCase(Locale.ROOT);
            boolean numeric = t.matches("(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|DOUBLE|FLOAT|REAL|DECIMAL.*|NUMERIC.*)");
            boolean time = t.startsWith("TIMESTAMP") || t.equals("DATE")
                    || (numeric && !t.startsWith("D") && (name.equalsIgnoreCase("ts") || name.toLowerCase(Locale.ROOT).endsWith("_ts")));
            return new Column(name, type, numeric, time);
        }
    }

    /** The index of the column named {@code frame}, or -1. */
    public int frameColumn() {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equalsIgnoreCase("frame")) {
                return i;
            }
        }
        return -1;
    }
}
