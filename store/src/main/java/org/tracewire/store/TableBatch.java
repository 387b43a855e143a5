package org.tracewire.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Semaphore;
import org.duckdb.DuckDBColumnType;
import org.duckdb.DuckDBDataChunkWriter;
import org.duckdb.DuckDBWritableVector;

/**
 * Rows of one table on their way into DuckDB, held column by column in Java arrays, then written
 * by one {@code INSERT … SELECT … FROM} {@link BatchFunction the build's table function} per batch
 * (DuckDB's appender ran a whole {@code INSERT} per 2,048 rows: docs/decisions/0018).
 *
 * <p>A row is filled column by column ({@link #put(int, long)}, {@link #put(int, String)},
 * {@link #put(int, byte[])}, {@link #putNull(int)}, each column once), then ended with
 * {@link #endRow()}. How each SQL type travels ({@link BatchColumn}): integers and booleans held in a byte
 * array per column as the vector holds them (their own width, native byte order; unsigned 64-bit
 * ones as their bit pattern), handed over in their own type; text as {@code VARCHAR}, held UTF-8
 * encoded; lists as their text ({@code [1, 2, 3]}, elements in decimal, unsigned as such) cast in
 * the {@code INSERT}; {@code BLOB} as hex text, {@code unhex}ed there.
 *
 * <p>Integers are copied into the vector's memory in one piece per column (the data and validity
 * buffers DuckDB JDBC 2.0's setters write to, private fields read by reflection once per vector: the
 * driver is on the class path, no {@code --add-opens}) rather than through a setter per value, whose
 * checks and validity update cost more than the value (docs/decisions/0018, 0022); when the pinned
 * driver no longer has those buffers, the setters are used ({@link #directWrites()} says which).
 * Texts go as UTF-8 bytes ({@code setStringUtf8Batch}): a task name is encoded once per name
 * ({@link TextCache}), not once per row.
 *
 * <p>A build of two threads ({@link Inserter}) buffers: {@link #handOff} gives the filled arrays
 * to a snapshot the inserting thread writes, and the batch goes on with another set. Not
 * thread-safe otherwise: the reader fills, the inserter touches only a snapshot handed to it.
 */
final class TableBatch {
    /** Rows a batch holds at most: one {@code INSERT} per this many rows (docs/decisions/0035). */
    static final int MAX_ROWS = 1 << 14;
    /** Snapshots of a table in flight at most ({@link #handOff}; docs/decisions/0035). */
    static final int IN_FLIGHT = 2;
    /**
     * Rows a batch starts with (a DuckDB vector's); each time it is written it doubles, up to
     * {@link #MAX_ROWS}. (A batch written while small also lets the JIT see the write path before it
     * compiles the per-event code, which otherwise is compiled again at each table's first write.)
     */
    static final int FIRST_ROWS = 2048;
    private static final VarHandle SHORTS = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.nativeOrder());
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final String table;
    private final BatchColumn[] kinds;
    /** Per column the bytes of a value (1, 2, 4, 8; 0: a boolean, one byte; -1: text). */
    private final int[] widths;
    private final String insert;
    /** Per integer or boolean column, its values as a vector holds them ({@code capacity * width} bytes). */
    private final byte[][] values;
    /** Per text column, its values in UTF-8 (null: NULL). */
    private final byte[][][] texts;
    /** Per column, a bit per row: NULL. */
    private final long[][] nulls;
    private final boolean[] anyNull;
    private int capacity;
    private int rows;
    private byte[][] chunkTexts;
    /** The snapshots handed over ({@link #handOff}), oldest first: written or in flight. */
    private final ArrayDeque<TableBatch> snapshots = new ArrayDeque<>();
    final Semaphore written = new Semaphore(0); // a snapshot's: a permit once written and cleared

    /** A batch of the rows of a table, a batch column per table column (below, no spreads). */
    TableBatch(String table, List<String> sqlTypes, String function) {
        this(table, sqlTypes, null, function);
    }

    /**
     * A batch of the rows of a table whose list columns may be spread: a list column of spread
     * {@code k > 1} takes {@code k} batch columns of its element's type, one per element, made a
     * list by the {@code INSERT} (NULL when its first element is: {@link TypedColumn#spread()}).
     *
     * @param table    the table's name (quoted in the {@code INSERT})
     * @param sqlTypes its columns' SQL types, in table order
     * @param spreads  per table column its batch columns (null: 1 each)
     * @param function the name of the table function that hands DuckDB a batch
     * @throws IllegalArgumentException a spread column that is no list
     */
    TableBatch(String table, List<String> sqlTypes, int[] spreads, String function) {
        this.table = table;
        int n = 0;
        for (int i = 0; i < sqlTypes.size(); i++) {
            n += spreads == null ? 1 : spreads[i];
        }
        kinds = new BatchColumn[n];
        widths = new int[n];
        StringBuilder sql = new StringBuilder("INSERT INTO ").append(Sql.quote(table)).append(" SELECT ");
        int at = 0;
        for (int i = 0; i < sqlTypes.size(); i++) {
            String type = sqlTypes.get(i);
            int k = spreads == null ? 1 : spreads[i];
            sql.append(i == 0 ? "" : ", ");
            if (k > 1) {
                if (!type.endsWith("[]")) {
                    throw new IllegalArgumentException("column " + i + " of " + table + " spread but " + type);
                }
                StringBuilder list = new StringBuilder();
                for (int e = 0; e < k; e++) {
                    kinds[at + e] = BatchColumn.of(type.substring(0, type.length() - 2));
                    widths[at + e] = kinds[at + e].held();
                    list.append(e == 0 ? "" : ", ").append('c').append(at + e);
                }
                sql.append("CASE WHEN c").append(at).append(" IS NULL THEN NULL ELSE list_value(").append(list)
                        .append(") END");
                at += k;
                continue;
            }
            kinds[at] = BatchColumn.of(type);
            widths[at] = kinds[at].held();
            String c = "c" + at;
            sql.append(switch (kinds[at]) {
                case LIST_TEXT -> "CAST(" + c + " AS " + type + ")";
                case BLOB_HEX -> "unhex(" + c + ")";
                default -> c;
            });
            at++;
        }
        insert = sql.append(" FROM ").append(function).append("()").toString();
        values = new byte[n][];
        texts = new byte[n][][];
        nulls = new long[n][];
        anyNull = new boolean[n];
    }

    /** A batch of the same table without arrays: the second set of a double-buffered batch. */
    private TableBatch(TableBatch of) {
        table = of.table;
        kinds = of.kinds;
        widths = of.widths;
        insert = of.insert;
        int n = kinds.length;
        values = new byte[n][];
        texts = new byte[n][][];
        nulls = new long[n][];
        anyNull = new boolean[n];
    }

    /** The table's name. */
    String table() {
        return table;
    }

    /** The statement that moves this batch's rows into its table (through the table function). */
    String insert() {
        return insert;
    }

    /** Number of batch columns (a spread list column counts one per element). */
    int columns() {
        return kinds.length;
    }

    /** The type column {@code i} is handed to DuckDB in. */
    DuckDBColumnType passedType(int i) {
        return kinds[i].passed;
    }

    /** Rows held (complete ones). */
    int rows() {
        return rows;
    }

    /**
     * Bytes the batch's arrays take, its snapshots' ({@link #handOff}) included (texts counted by
     * their references only).
     */
    long bytes() {
        long row = kinds.length / 8 + 1;
        for (BatchColumn k : kinds) {
            row += k.text() ? Long.BYTES : k.width;
        }
        long held = capacity;
        for (TableBatch s : snapshots) {
            held += s.capacity;
        }
        return held * row;
    }

    /**
     * Sets an integer or boolean column of the current row (an integer, cut to the column's width;
     * a boolean as 0 or 1).
     */
    void put(int col, long value) {
        byte[] d = values[col];
        switch (widths[col]) {
            case 0 -> d[rows] = (byte) (value != 0 ? 1 : 0);
            case 1 -> d[rows] = (byte) value;
            case 2 -> SHORTS.set(d, rows << 1, (short) value);
            case 4 -> INTS.set(d, rows << 2, (int) value);
            default -> LONGS.set(d, rows << 3, value);
        }
    }

    /** The value of an integer or boolean column in row {@code row}, as {@link #put(int, long)} set it (sign-extended). */
    private long get(int col, int row) {
        byte[] d = values[col];
        return switch (widths[col]) {
            case 0, 1 -> d[row];
            case 2 -> (short) SHORTS.get(d, row << 1);
            case 4 -> (int) INTS.get(d, row << 2);
            default -> (long) LONGS.get(d, row << 3);
        };
    }

    /** Sets a text column of the current row; null is NULL. */
    void put(int col, String value) {
        texts[col][rows] = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
    }

    /** Sets a text column of the current row to UTF-8 bytes (kept, not copied: not to be changed after); null is NULL. */
    void put(int col, byte[] utf8) {
        texts[col][rows] = utf8;
    }

    /** Sets column {@code col} of the current row to NULL. */
    void putNull(int col) {
        nulls[col][rows >>> 6] |= 1L << rows;
        anyNull[col] = true;
        if (kinds[col].text()) {
            texts[col][rows] = null;
        }
    }

    /**
     * Makes room for a row: to be called before the first {@code put} of each row.
     *
     * @return the bytes the batch grew by (0 when it had room)
     * @throws IllegalStateException when the batch is full at {@link #MAX_ROWS} (not written)
     */
    long reserve() {
        if (rows < capacity) {
            return 0;
        }
        if (capacity >= MAX_ROWS) {
            throw new IllegalStateException(table + ": batch full, to be written first");
        }
        long before = bytes();
        int grown = capacity == 0 ? FIRST_ROWS : Math.min(MAX_ROWS, capacity * 2);
        for (int i = 0; i < kinds.length; i++) {
            if (kinds[i].text()) {
                texts[i] = texts[i] == null ? new byte[grown][] : Arrays.copyOf(texts[i], grown);
            } else {
                int w = kinds[i].width;
                values[i] = values[i] == null ? new byte[grown * w] : Arrays.copyOf(values[i], grown * w);
            }
            nulls[i] = nulls[i] == null ? new long[(grown + 63) >>> 6] : Arrays.copyOf(nulls[i], (grown + 63) >>> 6);
        }
        capacity = grown;
        return bytes() - before;
    }

    /**
     * Ends the current row.
     *
     * @return true when the batch is full: write it (then {@link #grow()}) before the next row
     */
    boolean endRow() {
        return ++rows >= capacity;
    }

    /**
     * Doubles the room of a batch just written, up to {@link #MAX_ROWS} rows (new arrays: no row
     * is held).
     *
     * @return the bytes the batch grew by (0 when it holds rows, has no arrays or is at its largest)
     */
    long grow() {
        if (rows != 0 || capacity == 0 || capacity >= MAX_ROWS) {
            return 0;
        }
        long before = bytes();
        allocate(Math.min(MAX_ROWS, capacity * 2));
        return bytes() - before;
    }

    /** New, empty arrays of {@code rows} rows. */
    private void allocate(int rows) {
        for (int i = 0; i < kinds.length; i++) {
            if (kinds[i].text()) {
                texts[i] = new byte[rows][];
            } else {
                values[i] = new byte[rows * kinds[i].width];
            }
            nulls[i] = new long[(rows + 63) >>> 6];
            anyNull[i] = false;
        }
        capacity = rows;
    }

    /**
     * Hands the rows (at least one) to the inserting thread: a snapshot takes the arrays; the batch
     * goes on with a new set while fewer than {@link #IN_FLIGHT} exist, else with the oldest's once
     * written (its room doubling up to {@link #MAX_ROWS}); all counted by {@link #bytes()}.
     *
     * @param inserter where the oldest snapshot is written (its failure is thrown while waiting)
     * @return the snapshot, for one work of {@code inserter} that writes it, then releases its
     *         {@link #written} permit; not to be touched until then
     * @throws SQLException the inserter's failure
     */
    TableBatch handOff(Inserter inserter) throws SQLException {
        TableBatch s = snapshots.size() < IN_FLIGHT ? new TableBatch(this) : snapshots.pollFirst();
        if (s.capacity > 0) { // the oldest snapshot (a new set has none): reused once written
            inserter.await(s.written);
        }
        snapshots.addLast(s);
        for (int i = 0; i < kinds.length; i++) {
            byte[] v = values[i];
            values[i] = s.values[i];
            s.values[i] = v;
            byte[][] t = texts[i];
            texts[i] = s.texts[i];
            s.texts[i] = t;
            long[] n = nulls[i];
            nulls[i] = s.nulls[i];
            s.nulls[i] = n;
            boolean a = anyNull[i];
            anyNull[i] = s.anyNull[i]; // false: cleared by the insert
            s.anyNull[i] = a;
        }
        int filled = capacity;
        int next = Math.min(MAX_ROWS, capacity * 2);
        capacity = s.capacity;
        s.capacity = filled;
        s.rows = rows;
        rows = 0;
        if (capacity != next) {
            allocate(next);
        }
        return s;
    }

    /** Forgets the rows (after they were written); the arrays are kept for the next ones. */
    void clear() {
        for (int i = 0; i < kinds.length; i++) {
            if (anyNull[i]) {
                Arrays.fill(nulls[i], 0, (rows + 63) >>> 6, 0L);
                anyNull[i] = false;
            }
            if (kinds[i].text()) {
                Arrays.fill(texts[i], 0, rows, null); // not kept alive until overwritten
            }
        }
        rows = 0;
    }

    /**
     * Forgets the rows and gives the arrays back, the snapshots' once written (a batch of a table
     * seldom written stops holding memory); the next {@link #reserve()} makes them again.
     *
     * @param inserter where the snapshots are written (none handed over: unused)
     * @return the bytes given back
     * @throws SQLException the inserter's failure, met while waiting for the snapshot
     */
    long release(Inserter inserter) throws SQLException {
        long b = bytes();
        for (TableBatch s; (s = snapshots.pollFirst()) != null; ) {
            inserter.await(s.written);
        }
        rows = 0;
        capacity = 0;
        Arrays.fill(values, null);
        Arrays.fill(texts, null);
        Arrays.fill(nulls, null);
        Arrays.fill(anyNull, false);
        return b;
    }

    /**
     * The vectors' data and validity buffers (private fields of DuckDB JDBC 2.0's vector), or null
     * when there are none.
     */
    private static final Field DATA = bufferField("data");
    private static final Field VALIDITY = bufferField("validity");

    private static Field bufferField(String name) {
        try {
            Field f = DuckDBWritableVector.class.getDeclaredField(name);
            if (f.getType() != ByteBuffer.class) {
                return null;
            }
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // another driver version: the setters
        }
    }

    /** True when integers are written into the vectors' memory, false when through the setters. */
    static boolean directWrites() {
        return DATA != null && VALIDITY != null;
    }

    /**
     * The data buffer of a vector of {@code width}-byte values, if it holds {@code rows} of them in
     * native order, with rows 0 to {@code rows - 1} marked valid (not NULL) in its validity mask
     * (64 rows per little-endian word, as DuckDB keeps it); else null.
     */
    private static ByteBuffer data(DuckDBWritableVector v, int width, int rows) {
        if (!directWrites()) {
            return null;
        }
        try {
            ByteBuffer b = (ByteBuffer) DATA.get(v);
            ByteBuffer valid = (ByteBuffer) VALIDITY.get(v);
            int words = (rows + 63) >>> 6;
            if (b == null || b.order() != ByteOrder.nativeOrder() || b.capacity() < (long) rows * width
                    || valid == null || valid.order() != ByteOrder.nativeOrder() || valid.capacity() < words * 8L) {
                return null;
            }
            for (int w = 0; w < words; w++) {
                valid.putLong(w << 3, -1L);
            }
            return b;
        } catch (IllegalAccessException e) {
            return null;
        }
    }

    /**
     * Writes rows {@code from} onwards into a DuckDB chunk, as many as it takes.
     *
     * @return the rows written (0 when none is left)
     */
    int write(DuckDBDataChunkWriter out, int from) {
        int k = (int) Math.min(out.capacity(), rows - from);
        if (k <= 0) {
            return 0;
        }
        for (int i = 0; i < kinds.length; i++) {
            DuckDBWritableVector v = out.vector(i);
            BatchColumn kind = kinds[i];
            if (kind.text()) {
                if (chunkTexts == null || chunkTexts.length != k) {
                    chunkTexts = new byte[k][];
                }
                System.arraycopy(texts[i], from, chunkTexts, 0, k);
                v.setStringUtf8Batch(0, chunkTexts); // a null element is NULL
                continue;
            }
            int w = kind.width;
            ByteBuffer d = data(v, w, k);
            if (d == null) {
                set(v, i, from, k);
            } else {
                d.put(0, values[i], from * w, k * w);
            }
            if (anyNull[i]) {
                nulls(v, nulls[i], from, k);
            }
        }
        return k;
    }

    /** Marks the NULL rows of a column (a bit per row from {@code from}) in the vector. */
    private static void nulls(DuckDBWritableVector v, long[] bits, int from, int k) {
        for (int r = 0; r < k; r++) {
            int row = from + r;
            if ((bits[row >>> 6] & (1L << row)) != 0) {
                v.setNull(r);
            }
        }
    }

    /** Writes values through the vector's setters (a driver without the data buffer). */
    private void set(DuckDBWritableVector v, int col, int from, int k) {
        BatchColumn kind = kinds[col];
        for (int r = 0; r < k; r++) {
            long x = get(col, from + r);
            switch (kind) {
                case TINYINT -> v.setByte(r, (byte) x);
                case UTINYINT -> v.setUint8(r, (int) x & 0xff);
                case SMALLINT -> v.setShort(r, (short) x);
                case USMALLINT -> v.setUint16(r, (int) x & 0xffff);
                case INTEGER -> v.setInt(r, (int) x);
                case UINTEGER -> v.setUint32(r, x & 0xffffffffL);
                case BIGINT -> v.setLong(r, x);
                case UBIGINT -> v.setUint64(r, new BigInteger(Long.toUnsignedString(x)));
                case BOOLEAN -> v.setBoolean(r, x != 0);
                default -> throw new IllegalStateException(kind.toString());
            }
        }
    }
}
