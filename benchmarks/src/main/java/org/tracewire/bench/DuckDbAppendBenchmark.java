package org.tracewire.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * DuckDB's own cost of appending rows to a table of a database file, with no tracewire code in the
 * way: the floor under the capture store's build (docs/decisions/0028). One operation = one
 * {@code INSERT INTO t SELECT * FROM src} of {@value #ROWS} rows from an in-memory temporary table
 * into an empty table of the file (one thread, as the build's {@code SET threads = 1}); the score is
 * nanoseconds per row. {@code columns} picks the row's shape:
 * <ul>
 * <li>{@code int12}: 12 integer columns (an {@code event_rows} row's count), varied values;</li>
 * <li>{@code int12const6}: the same, 6 of them constant;</li>
 * <li>{@code int6}: the first 6 of {@code int12};</li>
 * <li>{@code str2int10}: {@code int12} with 2 columns as task-name texts of 14-16 bytes (a
 *     {@code sched_switch} row's {@code prev_comm} and {@code next_comm}).</li>
 * </ul>
 * {@code taskset -c 1 scripts/bench-jmh.sh -f 1 -wi 2 -i 5 DuckDbAppend}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DuckDbAppendBenchmark {
    /** Rows per operation. */
    static final int ROWS = 1_000_000;

    /** The row's shape (above). */
    @Param({"int12", "int12const6", "int6", "str2int10"})
    public String columns;

    private Path dir;
    private Connection db;

    /** Opens a new database file and fills the source table. */
    @Setup(Level.Trial)
    public void setup() throws IOException, SQLException {
        dir = Files.createTempDirectory("tracewire-duckdb-append");
        db = DriverManager.getConnection("jdbc:duckdb:" + dir.resolve("append.duckdb"));
        try (Statement s = db.createStatement()) {
            s.execute("SET threads = 1");
            s.execute("CREATE TEMP TABLE src AS SELECT " + select(columns) + " FROM range(" + ROWS + ") r(i)");
        }
    }

    private static String select(String columns) {
        String ints = "i::BIGINT a, (i % 7)::INTEGER b, (i % 3000)::INTEGER c, (i % 120)::INTEGER d,"
                + " (i % 2)::BIGINT e, (i % 5000)::INTEGER f";
        return switch (columns) {
            case "int6" -> ints;
            case "int12" -> ints + ", (i % 120)::INTEGER g, i::BIGINT h, (i % 2)::SMALLINT j, (i % 5000)::INTEGER k,"
                    + " 0::USMALLINT l, (i * 3)::BIGINT m";
            case "int12const6" -> ints + ", 0::INTEGER g, 0::BIGINT h, 0::SMALLINT j, 0::INTEGER k, 0::USMALLINT l,"
                    + " 0::BIGINT m";
            case "str2int10" -> "i::BIGINT a, ('stress-ng-swit' || (i % 40)) b, (i % 3000)::INTEGER c,"
                    + " (i % 120)::INTEGER d, (i % 2)::BIGINT e, ('kworker/0:' || (i % 60) || 'H-ev') f,"
                    + " (i % 120)::INTEGER g, i::BIGINT h, (i % 2)::SMALLINT j, (i % 5000)::INTEGER k,"
                    + " 0::USMALLINT l, (i * 3)::BIGINT m";
            default -> throw new IllegalArgumentException("columns: int12, int12const6, int6 or str2int10: " + columns);
        };
    }

    /** One append of every source row into a new, empty table (the previous one dropped first). */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public void append() throws SQLException {
        try (Statement s = db.createStatement()) {
            s.execute("CREATE OR REPLACE TABLE t AS SELECT * FROM src LIMIT 0");
            s.execute("INSERT INTO t SELECT * FROM src");
        }
    }

    /** Closes the database and removes its files. */
    @TearDown(Level.Trial)
    public void close() throws SQLException, IOException {
        db.close();
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Files.delete(dir);
    }
}
