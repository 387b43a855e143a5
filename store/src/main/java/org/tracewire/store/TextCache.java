package org.tracewire.store;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.tracewire.format.Field;
import org.tracewire.record.EventRecord;

/**
 * The text of a fixed {@code char[N]} field (a task name: {@code comm}, {@code prev_comm}, …) as
 * {@link EventRecord#string} gives it, remembered by its bytes: the few names a capture holds are
 * decoded once, and the rows waiting in a batch share one {@code String} per name instead of
 * holding one each. Direct-mapped ({@value #SLOTS} slots, a clash replaces); not thread-safe.
 * A 16-byte field ({@code TASK_COMM_LEN}) in a little-endian payload is keyed by its two 8-byte
 * words (the bytes after the NUL included: a name padded otherwise is one more key, the same text).
 */
final class TextCache {
    private static final int SLOTS = 256;
    private final byte[][] keys = new byte[SLOTS][];
    private final String[] values = new String[SLOTS];
    /** The 16-byte keys: first and second word, and their texts (null: slot empty). */
    private final long[] firstWords = new long[SLOTS];
    private final long[] secondWords = new long[SLOTS];
    private final String[] wordValues = new String[SLOTS];

    /**
     * The field's text in a record.
     *
     * @param field a fixed-size, non-dynamic char array field
     * @throws org.tracewire.record.RecordException when the field lies outside the record (as
     *                                              {@link EventRecord#string})
     */
    String text(EventRecord r, Field field) {
        ByteBuffer p = r.payload();
        int off = field.offset();
        int size = field.size();
        if (off < 0 || size < 0 || (long) off + size > p.limit()) {
            return r.string(field); // says where
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
        String s = r.string(field);
        byte[] raw = new byte[len];
        p.get(off, raw);
        keys[slot] = raw;
        values[slot] = s;
        return s;
    }

    private String words(EventRecord r, Field field, long first, long second) {
        long h = (first * 0x9E3779B97F4A7C15L) ^ second;
        h ^= h >>> 32;
        int slot = (int) (h ^ (h >>> 16)) & (SLOTS - 1);
        String v = wordValues[slot];
        if (v != null && firstWords[slot] == first && secondWords[slot] == second) {
            return v;
        }
        v = r.string(field);
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
