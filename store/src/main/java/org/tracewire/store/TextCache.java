package org.tracewire.store;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.tracewire.format.Field;
import org.tracewire.record.EventRecord;

/**
 * The text of a fixed {@code char[N]} field (a task name: {@code comm}, {@code prev_comm}, …) as
 * {@link EventRecord#string} gives it, encoded in UTF-8 (what DuckDB stores), remembered by the
 * field's bytes: the few names a capture holds are decoded and encoded once, and the rows waiting
 * in a batch share one array per name instead of holding one each (and the driver does not encode
 * each row's text again: {@link TableBatch#put(int, byte[])}). Direct-mapped ({@value #SLOTS}
 * slots, a clash replaces); not thread-safe.
 * A 16-byte field ({@code TASK_COMM_LEN}) in a little-endian payload is keyed by its two 8-byte
 * words (the bytes after the NUL included: a name padded otherwise is one more key, the same text).
 */
final class TextCache {
    private static final int SLOTS = 256;
    private final byte[][] keys = new byte[SLOTS][];
    private final byte[][] values = new byte[SLOTS][];
    /** The 16-byte keys: first and second word, and their texts (null: slot empty). */
    private final long[] firstWords = new long[SLOTS];
    private final long[] secondWords = new long[SLOTS];
    private final byte[][] wordValues = new byte[SLOTS][];

    /**
     * The field's text in a record, UTF-8 encoded (the same array for the same name: not to be changed).
     *
     * @param field a fixed-size, non-dynamic char array field
     * @throws org.tracewire.record.RecordException when the field lies outside the record (as
     *                                              {@link EventRecord#string})
     */
    byte[] utf8(EventRecord r, Field field) {
        ByteBuffer p = r.payload();
        int off = field.offset();
        int size = field.size();
        if (off < 0 || size < 0 || (long) off + size > p.limit()) {
            return encoded(r, field); // says where
        }
        if (size == 16 && p.order() == ByteOrder.LITTLE_ENDIAN) {
            return words(r, field, p.getLong(off), p.getLong(off + 8));
        }
        int end = off;
        int hash = 0;
        while (end < off + size) {
            byte b = p.get(end);
            if (b == 0) {
                break;
            }
            hash = hash * 31 + b;
            end++;
        }
        int len = end - off;
        int slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
        byte[] k = keys[slot];
        if (k != null && k.length == len && same(p, off, k)) {
            return values[slot];
        }
        byte[] s = encoded(r, field);
        byte[] raw = new byte[len];
        p.get(off, raw);
        keys[slot] = raw;
        values[slot] = s;
        return s;
    }

    private static byte[] encoded(EventRecord r, Field field) {
        return r.string(field).getBytes(StandardCharsets.UTF_8);
    }

    private byte[] words(EventRecord r, Field field, long first, long second) {
        long h = (first * 0x9E3779B97F4A7C15L) ^ second;
        h ^= h >>> 32;
        int slot = (int) (h ^ (h >>> 16)) & (SLOTS - 1);
        byte[] v = wordValues[slot];
        if (v != null && firstWords[slot] == first && secondWords[slot] == second) {
            return v;
        }
        v = encoded(r, field);
        firstWords[slot] = first;
        secondWords[slot] = second;
        wordValues[slot] = v;
        return v;
    }

    private static boolean same(ByteBuffer p, int off, byte[] k) {
        for (int i = 0; i < k.length; i++) {
            if (p.get(off + i) != k[i]) {
                return false;
            }
        }
        return true;
    }
}
