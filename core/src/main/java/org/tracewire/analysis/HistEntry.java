package org.tracewire.analysis;

import java.util.List;

/**
 * One row of a histogram: its key parts (one per key field, in the spec's order), its hit count and
 * its value sums (one per value field, in the table's {@link HistTable#valueNames()} order). Sums are
 * u64 as in the kernel: a long bit pattern, wrapping, read with {@link Long#toUnsignedString(long)}.
 *
 * @param keys     the key parts
 * @param hitcount events counted into this entry
 * @param values   the sums
 */
public record HistEntry(List<HistKey> keys, long hitcount, List<Long> values) {
    public HistEntry {
        keys = List.copyOf(keys);
        values = List.copyOf(values);
    }
}
