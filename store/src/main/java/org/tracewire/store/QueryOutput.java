package org.tracewire.store;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Array;
import java.sql.Blob;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Prints a query's result, streaming: an aligned text table (numbers right-aligned, NULL as {@code NULL},
 * widths from the first {@value #WIDTH_ROWS} rows,
 * control characters escaped as {@code \xNN} so no text reaches a terminal raw), CSV (RFC 4180,
 * a header line, NULL as an empty field) or JSON lines (one object per row; integers as numbers,
 * lists as arrays, BLOBs as hex strings).
 */
public final class QueryOutput {
    /** The output forms. */
    public enum Form { TABLE, CSV, JSON }

    private QueryOutput() {
    }

    /**
     * Prints every row of a result.
     *
     * @param rs   the result (read to its end)
     * @param form the form
     * @param out  where it goes
     * @return the number of rows printed
     * @throws SQLException when reading the result fails
     * @throws IOException  when writing fails
     */
    public static long print(ResultSet rs, Form form, PrintWriter out) throws SQLException, IOException {
        ResultSetMetaData md = rs.getMetaData();
        int n = md.getColumnCount();
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            names.add(md.getColumnLabel(i));
        }
        long rows = switch (form) {
            case CSV -> printCsv(rs, n, names, out);
            case JSON -> printJson(rs, n, names, out);
            default -> printTable(rs, md, n, names, out);
        };
        out.flush();
        return rows;
    }

    /** CSV: a header line of the column labels, then one line per row (NULL empty); returns the rows. */
    private static long printCsv(ResultSet rs, int n, List<String> names, PrintWriter out) throws SQLException {
        long rows = 0;
        out.println(csvLine(names));
        List<String> line = new ArrayList<>();
        while (rs.next()) {
            line.clear();
            for (int i = 1; i <= n; i++) {
                line.add(text(rs.getObject(i), ""));
            }
            out.println(csvLine(line));
            rows++;
        }
        return rows;
    }

    /** JSON Lines: one object per row, fields named by the column labels; returns the rows. */
    private static long printJson(ResultSet rs, int n, List<String> names, PrintWriter out)
            throws SQLException, IOException {
        long rows = 0;
        JsonGenerator g = new JsonFactory().disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET).createGenerator(out);
        g.setRootValueSeparator(new SerializedString("\n"));
        while (rs.next()) {
            g.writeStartObject();
            for (int i = 1; i <= n; i++) {
                g.writeFieldName(names.get(i - 1));
                json(g, rs.getObject(i));
            }
            g.writeEndObject();
            rows++;
        }
        g.flush();
        if (rows > 0) {
            out.println();
        }
        return rows;
    }

    /**
     * An aligned table (numbers right-aligned), widths from the first {@value #WIDTH_ROWS} rows,
     * then a {@code (N rows)} line; returns the rows.
     */
    private static long printTable(ResultSet rs, ResultSetMetaData md, int n, List<String> names, PrintWriter out)
            throws SQLException {
        long rows;
        // widths from the first WIDTH_ROWS rows; later rows stream (wider cells then overflow)
        List<String[]> cells = new ArrayList<>();
        boolean[] numeric = new boolean[n];
        int[] width = new int[n];
        for (int i = 0; i < n; i++) {
            numeric[i] = isNumeric(md.getColumnType(i + 1));
            width[i] = escape(names.get(i)).length();
        }
        boolean more = rs.next();
        while (more && cells.size() < WIDTH_ROWS) {
            cells.add(row(rs, n, width));
            more = rs.next();
        }
        String[] head = new String[n];
        String[] rule = new String[n];
        for (int i = 0; i < n; i++) {
            head[i] = escape(names.get(i));
            rule[i] = "-".repeat(width[i]);
        }
        out.println(line(head, width, numeric));
        out.println(line(rule, width, numeric));
        for (String[] row : cells) {
            out.println(line(row, width, numeric));
        }
        rows = cells.size();
        int[] ignored = new int[n];
        while (more) {
            out.println(line(row(rs, n, ignored), width, numeric));
            rows++;
            more = rs.next();
        }
        out.println("(" + rows + (rows == 1 ? " row)" : " rows)"));
        return rows;
    }

    /** Rows read before the table form's column widths are fixed. */
    static final int WIDTH_ROWS = 1000;

    private static String[] row(ResultSet rs, int n, int[] width) throws SQLException {
        String[] row = new String[n];
        for (int i = 0; i < n; i++) {
            row[i] = escape(text(rs.getObject(i + 1), "NULL"));
            width[i] = Math.max(width[i], row[i].length());
        }
        return row;
    }

    private static boolean isNumeric(int sqlType) {
        return switch (sqlType) {
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT,
                 Types.DECIMAL, Types.NUMERIC, Types.DOUBLE, Types.FLOAT,
                 Types.REAL -> true;
            default -> false;
        };
    }

    private static String line(String[] cells, int[] width, boolean[] numeric) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                sb.append("  ");
            }
            String pad = " ".repeat(Math.max(0, width[i] - cells[i].length()));
            if (numeric[i]) {
                sb.append(pad).append(cells[i]);
            } else if (i < cells.length - 1) {
                sb.append(cells[i]).append(pad);
            } else {
                sb.append(cells[i]);
            }
        }
        return sb.toString();
    }

    /** A value as text: lists as {@code [a, b]}, BLOBs as hex, NULL as {@code nullText}. */
    /**
     * A value as the table form prints it: NULL as {@code NULL}, lists as {@code [a, b]}, BLOBs as
     * hex, control characters as {@code \\xNN}.
     *
     * @param v a value of {@link ResultSet#getObject(int)}
     * @return its text
     * @throws SQLException when a list or BLOB cannot be read
     */
    public static String cell(Object v) throws SQLException {
        return escape(text(v, "NULL"));
    }

    static String text(Object v, String nullText) throws SQLException {
        if (v == null) {
            return nullText;
        }
        if (v instanceof byte[] b) {
            return HexFormat.of().formatHex(b);
        }
        if (v instanceof Blob b) {
            return HexFormat.of().formatHex(b.getBytes(1, (int) b.length()));
        }
        if (v instanceof Array a) {
            Object[] items = (Object[]) a.getArray();
            StringBuilder sb = new StringBuilder("[");
            for (int i = 0; i < items.length; i++) {
                sb.append(i == 0 ? "" : ", ").append(text(items[i], "NULL"));
            }
            return sb.append(']').toString();
        }
        return v.toString();
    }

    private static void json(JsonGenerator g, Object v) throws IOException, SQLException {
        if (v == null) {
            g.writeNull();
        } else if (v instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
            g.writeNumber(((Number) v).longValue());
        } else if (v instanceof BigInteger b) {
            g.writeNumber(b);
        } else if (v instanceof BigDecimal b) {
            g.writeNumber(b);
        } else if (v instanceof Float || v instanceof Double) {
            double d = ((Number) v).doubleValue();
            if (Double.isFinite(d)) {
                g.writeNumber(d);
            } else {
                g.writeString(Double.toString(d));
            }
        } else if (v instanceof Array a) {
            g.writeStartArray();
            for (Object o : (Object[]) a.getArray()) {
                json(g, o);
            }
            g.writeEndArray();
        } else {
            g.writeString(text(v, ""));
        }
    }

    private static String csvLine(List<String> cells) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            String c = cells.get(i);
            if (i > 0) {
                sb.append(',');
            }
            if (c.indexOf(',') >= 0 || c.indexOf('"') >= 0 || c.indexOf('\n') >= 0 || c.indexOf('\r') >= 0) {
                sb.append('"').append(c.replace("\"", "\"\"")).append('"');
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /** Control characters (C0, DEL, C1) as {@code \xNN}, backslashes doubled: safe on a terminal. */
    static String escape(String s) {
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean bad = c < 0x20 || (c >= 0x7f && c < 0xa0) || c == '\\';
            if (bad && sb == null) {
                sb = new StringBuilder(s.substring(0, i));
            }
            if (sb != null) {
                if (c == '\\') {
                    sb.append("\\\\");
                } else if (bad) {
                    sb.append(String.format("\\x%02x", (int) c));
                } else {
                    sb.append(c);
                }
            }
        }
        return sb == null ? s : sb.toString();
    }
}
