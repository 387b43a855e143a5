package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.StringJoiner;
import org.duckdb.DuckDBConnection;
import org.junit.jupiter.api.Test;

/**
 * Rows put into a {@link TableBatch} come back from DuckDB as they were put, for every kind of
 * column the store uses, across chunk (2,048 rows) and batch boundaries (batches growing up to
 * {@link TableBatch#MAX_ROWS}), NULLs included.
 */
class TableBatchTest {
    private static final List<String> TYPES = List.of("BIGINT", "TINYINT", "UTINYINT", "SMALLINT", "USMALLINT",
            "INTEGER", "UINTEGER", "UBIGINT", "BOOLEAN", "VARCHAR", "UBIGINT[]", "TINYINT[]", "BLOB");

    /** The value of column {@code col} in row {@code row}: a long, a String, a long[] (list) or a byte[] (blob); null is NULL. */
    private static Object value(Random rnd, int row, int col) {
        if (col > 0 && (row + col) % 7 == 0) {
            return null;
        }
        long x = rnd.nextLong();
        long[] edges = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 1};
        if (row % 11 == col) {
            x = edges[row % edges.length];
        }
        return switch (TYPES.get(col)) {
            case "BIGINT" -> (long) row; // the row's key
            case "TINYINT" -> (long) (byte) x;
            case "UTINYINT" -> x & 0xff;
            case "SMALLINT" -> (long) (short) x;
            case "USMALLINT" -> x & 0xffff;
            case "INTEGER" -> (long) (int) x;
            case "UINTEGER" -> x & 0xffff_ffffL;
            case "UBIGINT" -> x;
            case "BOOLEAN" -> x & 1;
            case "VARCHAR" -> row % 5 == 0 ? "" : "comm-" + (x & 0xff) + (row % 3 == 0 ? "-ünï'\"" : "");
            case "UBIGINT[]" -> new long[] {x, x >>> 1, 0xffff_ffff_8100_0000L};
            case "TINYINT[]" -> new long[] {(byte) x, -128, 127};
            case "BLOB" -> new byte[] {(byte) x, 0, (byte) 0xff};
            default -> throw new IllegalStateException();
        };
    }

    @Test
    void everyKindOfColumnReadsBackAsPutOverSeveralBatchesAndChunks() throws Exception {
        readsBackAsPut(false);
    }

    /**
     * The same rows, each full batch {@linkplain TableBatch#handOff handed off} to an inserting
     * thread while the next is filled in the second set of arrays (reused once written: NULL marks
     * and texts of the rows before must not show through).
     */
    @Test
    void everyKindOfColumnReadsBackAsPutWhenHandedOffToAnInsertingThread() throws Exception {
        readsBackAsPut(true);
    }

    private void readsBackAsPut(boolean handOff) throws Exception {
        assertTrue(TableBatch.directWrites(), "DuckDB JDBC's vectors no longer have the buffers TableBatch writes into");
        // batches of 2,048, 4,096, … rows, then two of MAX_ROWS, then the rest
        int rows = 0;
        int expectedWrites = 0;
        for (int cap = TableBatch.FIRST_ROWS; cap < TableBatch.MAX_ROWS; cap *= 2) {
            rows += cap;
            expectedWrites++;
        }
        rows += 2 * TableBatch.MAX_ROWS + 5000;
        expectedWrites += 2;
        StringBuilder ddl = new StringBuilder("CREATE TABLE t(");
        for (int c = 0; c < TYPES.size(); c++) {
            ddl.append(c == 0 ? "" : ", ").append("v").append(c).append(' ').append(TYPES.get(c));
        }
        try (DuckDBConnection db = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:");
             Statement s = db.createStatement();
             Inserter ins = handOff ? Inserter.start() : Inserter.inline()) {
            s.execute(ddl.append(')').toString());
            BatchFunction f = BatchFunction.register(db, BatchFunction.NAME);
            TableBatch b = new TableBatch("t", TYPES, BatchFunction.NAME);
            Random rnd = new Random(33);
            List<Object[]> expected = new ArrayList<>();
            int inserts = 0;
            for (int r = 0; r < rows; r++) {
                b.reserve();
                Object[] row = new Object[TYPES.size()];
                for (int c = 0; c < TYPES.size(); c++) {
                    Object v = value(rnd, r, c);
                    row[c] = v;
                    if (v == null) {
                        b.putNull(c);
                    } else if (v instanceof Long l) {
                        b.put(c, l);
                    } else if (v instanceof String t) {
                        b.put(c, t);
                    } else if (v instanceof long[] l) {
                        b.put(c, TypedColumn.listUtf8(l, l.length, TYPES.get(c).startsWith("U")));
                    } else {
                        b.put(c, HexFormat.of().formatHex((byte[]) v));
                    }
                }
                expected.add(row);
                if (b.endRow()) {
                    if (handOff) {
                        long one = b.bytes();
                        TableBatch snap = b.handOff(ins);
                        ins.submit(() -> {
                            f.insert(snap);
                            snap.written.release();
                        });
                        assertTrue(b.bytes() >= one, "the snapshot's arrays counted with the batch's");
                    } else {
                        f.insert(b);
                        b.grow();
                    }
                    inserts++;
                }
            }
            if (handOff) {
                TableBatch snap = b.handOff(ins);
                ins.submit(() -> f.insert(snap));
                ins.barrier();
            } else {
                f.insert(b);
            }
            assertEquals(expectedWrites, inserts, "batches written full");
            assertEquals(0, b.rows());
            try (ResultSet rs = s.executeQuery("SELECT * FROM t ORDER BY v0")) {
                int r = 0;
                while (rs.next()) {
                    Object[] want = expected.get(r);
                    for (int c = 0; c < TYPES.size(); c++) {
                        String where = "row " + r + " column " + TYPES.get(c);
                        Object got = rs.getObject(c + 1);
                        if (want[c] == null) {
                            assertNull(got, where);
                        } else if (want[c] instanceof long[] l) {
                            assertEquals(listText(l, TYPES.get(c).startsWith("U")), rs.getString(c + 1), where);
                        } else if (want[c] instanceof byte[] bytes) {
                            assertArrayEquals(bytes, rs.getBytes(c + 1), where);
                        } else if (TYPES.get(c).equals("UBIGINT")) {
                            assertEquals(Long.toUnsignedString((Long) want[c]), rs.getString(c + 1), where);
                        } else if (TYPES.get(c).equals("BOOLEAN")) {
                            assertEquals((Long) want[c] != 0, rs.getBoolean(c + 1), where);
                        } else if (want[c] instanceof Long l) {
                            assertEquals((long) l, rs.getLong(c + 1), where);
                        } else {
                            assertEquals(want[c], rs.getString(c + 1), where);
                        }
                    }
                    r++;
                }
                assertEquals(rows, r);
            }
        }
    }
    /** A list's text as DuckDB prints it: the expected side, from Java's own decimal formatting. */
    private static String listText(long[] values, boolean unsigned64) {
        StringJoiner j = new StringJoiner(", ", "[", "]");
        for (long v : values) {
            j.add(unsigned64 ? Long.toUnsignedString(v) : Long.toString(v));
        }
        return j.toString();
    }

    @Test
    void listTextIsJavasDecimalOfEveryElement() {
        Random rnd = new Random(7);
        List<long[]> lists = new ArrayList<>(List.of(new long[0], new long[] {0}, new long[] {9, 10, 99, 100, -1, -9, -10},
                new long[] {Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1, -Long.MAX_VALUE},
                new long[] {1L << 63, -2, 0xffff_ffff_8100_0000L, 999_999_999_999_999_999L, 1_000_000_000_000_000_000L}));
        for (int i = 0; i < 2000; i++) {
            long[] l = new long[rnd.nextInt(7)];
            for (int k = 0; k < l.length; k++) {
                l[k] = rnd.nextLong() >> rnd.nextInt(64);
            }
            lists.add(l);
        }
        for (long[] l : lists) {
            for (boolean unsigned : new boolean[] {false, true}) {
                byte[] got = TypedColumn.listUtf8(l, l.length, unsigned);
                assertEquals(listText(l, unsigned), new String(got, StandardCharsets.US_ASCII), Arrays.toString(l));
            }
            long[] longer = Arrays.copyOf(l, l.length + 2);
            assertArrayEquals(TypedColumn.listUtf8(l, l.length, true), TypedColumn.listUtf8(longer, l.length, true),
                    "only the first n elements");
        }
    }
}
