package org.tracewire.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The Parquet export of a store's tables and views ({@link CaptureStore#exportParquet}). */
final class ParquetExport {
    private ParquetExport() {
    }

    /**
     * Writes every table and view of {@code db}'s database (but {@code sources}) under {@code dir},
     * Hive-partitioned by {@code host} ({@code events}: by {@code host, event}); an empty table
     * gets no files.
     *
     * @return the tables with their row counts
     * @throws IOException  when {@code dir} exists and is not empty
     * @throws SQLException when DuckDB fails
     */
    static Map<String, Long> write(Connection db, Path dir) throws IOException, SQLException {
        if (Files.exists(dir)) {
            try (var l = Files.list(dir)) {
                if (l.findAny().isPresent()) {
                    throw new IOException(dir + ": not empty");
                }
            }
        }
        Files.createDirectories(dir);
        List<String> tables = new ArrayList<>();
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database()"
                     + " AND table_schema = 'main' AND table_name <> 'sources' ORDER BY table_name")) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
        }
        Map<String, Long> written = new LinkedHashMap<>();
        try (Statement s = db.createStatement()) {
            for (String t : tables) {
                String by = t.equals("events") ? "host, event" : "host";
                Path out = dir.resolve(t);
                long n;
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + Sql.quote(t))) {
                    rs.next();
                    n = rs.getLong(1);
                }
                if (n > 0) {
                    s.execute("COPY (SELECT * FROM " + Sql.quote(t) + ") TO " + Sql.literal(out.toString())
                            + " (FORMAT PARQUET, PARTITION_BY (" + by + "))");
                }
                written.put(t, n);
            }
        }
        return written;
    
    }
}
