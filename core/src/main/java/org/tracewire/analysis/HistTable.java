package org.tracewire.analysis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A histogram: what the kernel's {@code hist} file shows for one trigger, or what
 * {@link HistAggregator} builds from records, in one model so the two compare.
 *
 * @param triggerInfo the trigger text (the kernel's {@code # trigger info:} line, state word removed),
 *                    or null when unknown
 * @param spec        the parsed spec, or null when there is no trigger info or it is beyond
 *                    {@link HistSpec} (handlers, {@code pause}, …)
 * @param keyNames    the key fields' names, in order
 * @param valueNames  the value fields' names (without {@code hitcount}), in the order of
 *                    {@link HistEntry#values()}
 * @param entries     the rows in the table's sort order
 * @param hits        {@code Totals: Hits}: events counted into entries
 * @param entryCount  {@code Totals: Entries}: entries in the table (may exceed {@code entries.size()}
 *                    for a text that left rows out)
 * @param dropped     {@code Totals: Dropped}: events not counted because the table was full
 */
public record HistTable(String triggerInfo, HistSpec spec, List<String> keyNames, List<String> valueNames,
                        List<HistEntry> entries, long hits, long entryCount, long dropped) {
    public HistTable {
        keyNames = List.copyOf(keyNames);
        valueNames = List.copyOf(valueNames);
        entries = List.copyOf(entries);
    }

    /** The entries by key (key parts compare without their labels), in table order. */
    public Map<List<HistKey>, HistEntry> byKey() {
        Map<List<HistKey>, HistEntry> m = new LinkedHashMap<>();
        for (HistEntry e : entries) {
            m.put(e.keys(), e);
        }
        return m;
    }

    /**
     * Whether two tables hold the same counts: the same key and value names, totals, and the same
     * entries by key (hitcount and sums), whatever their order and labels. String keys compare without
     * trailing white space, which the kernel's padded text ({@code %-50s}) cannot show.
     */
    public boolean sameCounts(HistTable other) {
        return keyNames.equals(other.keyNames) && valueNames.equals(other.valueNames) && hits == other.hits
                && entryCount == other.entryCount && dropped == other.dropped && counts().equals(other.counts());
    }

    private Map<List<HistKey>, List<Long>> counts() {
        Map<List<HistKey>, List<Long>> m = new HashMap<>();
        for (HistEntry e : entries) {
            List<HistKey> k = e.keys().stream()
                    .map(p -> p.isString() ? HistKey.of(p.string().stripTrailing()) : p).toList();
            List<Long> v = new ArrayList<>();
            v.add(e.hitcount());
            v.addAll(e.values());
            m.merge(k, v, (a, b) -> {
                List<Long> sum = new ArrayList<>();
                for (int i = 0; i < a.size(); i++) {
                    sum.add(a.get(i) + b.get(i));
                }
                return sum;
            });
        }
        return m;
    }
}
