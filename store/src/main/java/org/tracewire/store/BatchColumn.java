package org.tracewire.store;

import org.duckdb.DuckDBColumnType;

/**
 * How a {@link TableBatch} column's values are held and handed to DuckDB: its type in the batch's
 * table function, and the bytes of a value in a vector.
 */
enum BatchColumn {
    TINYINT(DuckDBColumnType.TINYINT, 1), UTINYINT(DuckDBColumnType.UTINYINT, 1),
    SMALLINT(DuckDBColumnType.SMALLINT, 2), USMALLINT(DuckDBColumnType.USMALLINT, 2),
    INTEGER(DuckDBColumnType.INTEGER, 4), UINTEGER(DuckDBColumnType.UINTEGER, 4),
    BIGINT(DuckDBColumnType.BIGINT, 8), UBIGINT(DuckDBColumnType.UBIGINT, 8), BOOLEAN(DuckDBColumnType.BOOLEAN, 1),
    VARCHAR(DuckDBColumnType.VARCHAR, 0), LIST_TEXT(DuckDBColumnType.VARCHAR, 0),
    BLOB_HEX(DuckDBColumnType.VARCHAR, 0);

    /** The type of the table function's column. */
    final DuckDBColumnType passed;
    /** Bytes of a value in a vector (integers, booleans; 0: text). */
    final int width;

    BatchColumn(DuckDBColumnType passed, int width) {
        this.passed = passed;
        this.width = width;
    }

    /** Bytes a batch holds per value: its width, 0 for a boolean (one byte), -1 for text. */
    int held() {
        return text() ? -1 : this == BOOLEAN ? 0 : width;
    }

    /** True when the values are held as text. */
    boolean text() {
        return passed == DuckDBColumnType.VARCHAR;
    }

    /** The kind of a column of SQL type {@code sqlType}: a list ({@code T[]}) as text, {@code BLOB} as hex. */
    static BatchColumn of(String sqlType) {
        if (sqlType.endsWith("[]")) {
            return LIST_TEXT;
        }
        if (sqlType.equals("BLOB")) {
            return BLOB_HEX;
        }
        return valueOf(sqlType);
    }
}
