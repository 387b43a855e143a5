package org.tracewire.store;

/** SQL text helpers: identifiers and literals quoted as DuckDB reads them. */
final class Sql {
    private Sql() {
    }

    /**
     * A double-quoted identifier ({@code "a""b"} for {@code a"b}); a NUL, which no identifier may
     * hold, becomes U+FFFD, and an empty name {@code _}.
     */
    static String quote(String identifier) {
        String name = identifier.isEmpty() ? "_" : identifier.replace('\0', '\uFFFD');
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /**
     * A single-quoted string literal; a NUL (which would end DuckDB's statement text) as
     * {@code chr(0)} joined in, so any text from a file stays the value it is.
     */
    static String literal(String text) {
        String quoted = '\'' + text.replace("'", "''") + '\'';
        return text.indexOf('\0') < 0 ? quoted : "(" + quoted.replace("\0", "' || chr(0) || '") + ")";
    }
}
