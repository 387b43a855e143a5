package org.tracewire.app.query;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.tracewire.app.capture.StoreQueries;
import org.tracewire.app.query.QueryResult.Column;

/**
 * A chart of a query's result: a line chart over its first numeric or time column, or a bar chart
 * over a first column of text, with up to {@value #SERIES} numeric columns as series, of the
 * result's first {@value #ROWS} rows ({@value #BARS} bars).
 *
 * @param bar        a bar chart ({@code categories}), else a line chart ({@code x})
 * @param xName      what the x axis shows
 * @param x          the x values of a line chart (a time column: seconds from its smallest value)
 * @param categories the bars' names of a bar chart
 * @param series     the y columns
 * @param truncated  the result has more rows than the chart shows
 * @param note       what the chart shows, or why there is none
 */
public record QueryChart(boolean bar, String xName, double[] x, List<String> categories, List<Series> series,
                         boolean truncated, String note) {
    /** Rows of a result the chart takes at most. */
    public static final int ROWS = 10_000;
    /** Bars a bar chart shows at most. */
    public static final int BARS = 200;
    /** Series a chart draws at most (numeric columns after the first). */
    public static final int SERIES = 4;

    /**
     * One line or bar series of a chart.
     *
     * @param name the column's name
     * @param y    a value per point (NaN: NULL)
     */
    public record Series(String name, double[] y) {
    }

    /** The columns charted: x (or the bars' names) and the series. */
    private record Axes(boolean bar, int x, List<Integer> ys) {
        static Axes of(List<Column> cols) {
            int x = -1;
            for (int i = 0; i < cols.size(); i++) {
                if (cols.get(i).numeric() || cols.get(i).time()) {
                    x = i;
                    break;
                }
            }
            boolean bar = !cols.get(0).numeric() && !cols.get(0).time();
            int xi = bar ? 0 : x;
            List<Integer> ys = new ArrayList<>();
            for (int i = 0; i < cols.size() && ys.size() < SERIES; i++) {
                if (i != xi && cols.get(i).numeric() && !cols.get(i).time()) {
                    ys.add(i);
                }
            }
            return new Axes(bar, xi, ys);
        }
    }

    /** The points read: x values or bar names, and a row of values per series. */
    private record Points(double[] xs, List<String> cats, double[][] y) {
    }

    /**
     * The chart of a result (worker thread): a stored result's first rows read from
     * {@link QueryResult#TABLE} through {@code store}, else from its rows in memory.
     *
     * @throws SQLException when DuckDB fails reading a stored result
     */
    static QueryChart of(QueryResult r, StoreQueries<Connection> store) throws SQLException {
        List<Column> cols = r.columns();
        Axes a = Axes.of(cols);
        if (a.x() < 0 || a.ys().isEmpty()) {
            return new QueryChart(false, "", new double[0], List.of(), List.of(), false,
                    "no chart: it needs a numeric or time column and a second numeric one (or a first column of names)");
        }
        int n = (int) Math.min(r.count(), a.bar() ? BARS : ROWS);
        Points p = new Points(new double[n], new ArrayList<>(), new double[a.ys().size()][n]);
        Column xc = cols.get(a.x());
        if (r.stored()) {
            readStored(store, cols, a, n, p);
        } else {
            readRows(r, a, n, p);
        }
        List<Series> series = new ArrayList<>();
        for (int k = 0; k < a.ys().size(); k++) {
            series.add(new Series(cols.get(a.ys().get(k)).name(), p.y()[k]));
        }
        boolean truncated = r.count() > n;
        String xName = xc.name() + (xc.time() && !a.bar() ? " (s from its first value)" : "");
        String note = (a.bar() ? "bars" : "lines") + " of " + (truncated ? String.format("the first %,d of %,d rows", n, r.count())
                : String.format("all %,d rows", n));
        return new QueryChart(a.bar(), xName, p.xs(), List.copyOf(p.cats()), List.copyOf(series), truncated, note);
    }

    /** A stored result's first {@code n} rows, x as seconds from its first value for a time column. */
    private static void readStored(StoreQueries<Connection> store, List<Column> cols, Axes a, int n, Points p)
            throws SQLException {
        Column xc = cols.get(a.x());
        StringBuilder sel = new StringBuilder("SELECT ");
        String xq = quote(xc.name());
        if (a.bar()) {
            sel.append(xq).append("::VARCHAR");
        } else if (xc.time() && !xc.numeric()) {
            sel.append("(epoch_us(").append(xq).append(") - min(epoch_us(").append(xq).append(")) OVER ()) / 1e6");
        } else if (xc.time()) {
            sel.append("(").append(xq).append(" - min(").append(xq).append(") OVER ())::DOUBLE / 1e9");
        } else {
            sel.append(xq).append("::DOUBLE");
        }
        for (int k : a.ys()) {
            sel.append(", ").append(quote(cols.get(k).name())).append("::DOUBLE");
        }
        int[] i = {0};
        store.execute(sel + " FROM (SELECT * FROM " + QueryResult.TABLE + " LIMIT " + n + ")", rs -> {
            while (rs.next() && i[0] < n) {
                if (a.bar()) {
                    p.cats().add(String.valueOf(rs.getString(1)));
                } else {
                    double v = rs.getDouble(1);
                    p.xs()[i[0]] = rs.wasNull() ? Double.NaN : v;
                }
                for (int k = 0; k < a.ys().size(); k++) {
                    double v = rs.getDouble(k + 2);
                    p.y()[k][i[0]] = rs.wasNull() ? Double.NaN : v;
                }
                i[0]++;
            }
        });
    }

    /** A result in memory: its first {@code n} rows' text as numbers (NaN where not one). */
    private static void readRows(QueryResult r, Axes a, int n, Points p) {
        for (int i = 0; i < n; i++) {
            List<String> row = r.rows().get(i);
            if (a.bar()) {
                p.cats().add(row.get(a.x()));
            } else {
                p.xs()[i] = number(row.get(a.x()));
            }
            for (int k = 0; k < a.ys().size(); k++) {
                p.y()[k][i] = number(row.get(a.ys().get(k)));
            }
        }
    }

    private static double number(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    /** A name as a DuckDB identifier (double-quoted, quotes doubled). */
    static String quote(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }
}
