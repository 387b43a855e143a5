package org.tracewire.store;

/** SQL text helpers: identifiers and literals quoted as DuckDB reads them. */
final class Sql {
    private Sql() {
    }

    /** A double-quoted identifier ({@code "a""b"} for {@code a"b}). */
    static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /** A single-quoted string literal. */
    static String literal(String text) {
        return '\'' + text.replace("'", "''") + '\'';
    }
}
