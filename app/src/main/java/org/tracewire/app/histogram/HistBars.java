package org.tracewire.app.histogram;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.tracewire.analysis.HistEntry;
import org.tracewire.analysis.HistField;
import org.tracewire.analysis.HistKey;
import org.tracewire.analysis.HistTable;

/**
 * A histogram table as bars and labels: an entry's key as the kernel prints it, and the bars
 * plotted (a one-key log2 table as every power of two between its smallest and largest key, in
 * order; else the table's first {@value #MAX_BARS} entries in its sort order).
 */
public final class HistBars {
    /** Bars plotted at most (the table's first entries in its sort order). */
    public static final int MAX_BARS = 40;
    /** Characters of a bar's label at most (the table shows the whole key). */
    static final int BAR_LABEL = 40;

    private HistBars() {
    }

    /**
     * One bar: a key's label and its height.
     *
     * @param label the key as text ({@code ~ 2^5}, {@code bash [1234]}, {@code 17})
     * @param value the plotted number (the hitcount, or the chosen value's sum)
     */
    public record Bar(String label, long value) {
    }

    /**
     * The bars of a table.
     *
     * @param t       the table, or null (no bars)
     * @param plotted "hitcount" or one of the table's value names (null: hitcount)
     */
    static List<Bar> of(HistTable t, String plotted) {
        if (t == null) {
            return List.of();
        }
        int vi = plotted == null ? -1 : t.valueNames().indexOf(plotted);
        boolean log2 = t.keyNames().size() == 1 && t.spec() != null
                && t.spec().keys().get(0).modifier() == HistField.Modifier.LOG2;
        return log2 && !t.entries().isEmpty() ? log2Bars(t.entries(), vi) : keyBars(t, vi);
    }

    /** A log2 histogram: every power of two between the smallest and largest, in order (64 at most). */
    private static List<Bar> log2Bars(List<HistEntry> list, int vi) {
        List<Bar> out = new ArrayList<>();
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        Map<Long, Long> byExp = new HashMap<>();
        for (HistEntry e : list) {
            long k = e.keys().get(0).number();
            lo = Math.min(lo, k);
            hi = Math.max(hi, k);
            byExp.put(k, value(e, vi));
        }
        for (long k = lo; k <= hi && out.size() < 64; k++) {
            out.add(new Bar("2^" + k, byExp.getOrDefault(k, 0L)));
        }
        return out;
    }

    /** The first {@link #MAX_BARS} entries, a long key (a stack) cut for the axis and kept apart from the others cut alike. */
    private static List<Bar> keyBars(HistTable t, int vi) {
        List<Bar> out = new ArrayList<>();
        Set<String> taken = new HashSet<>();
        for (HistEntry e : t.entries()) {
            if (out.size() == MAX_BARS) {
                break;
            }
            String l = label(e, t);
            if (l.length() > BAR_LABEL) {
                l = l.substring(0, BAR_LABEL - 1) + "…";
                for (int n = 2; !taken.add(l); n++) {
                    l = l.replaceFirst("( #[0-9]+)?$", " #" + n);
                }
            }
            taken.add(l);
            out.add(new Bar(l, value(e, vi)));
        }
        return out;
    }

    private static long value(HistEntry e, int vi) {
        return vi < 0 ? e.hitcount() : e.values().get(vi);
    }

    /** An entry's key as the kernel would print it, compactly: parts joined by ", ". */
    public static String label(HistEntry e, HistTable t) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < e.keys().size(); i++) {
            HistKey k = e.keys().get(i);
            HistField.Modifier m = t.spec() != null && i < t.spec().keys().size() ? t.spec().keys().get(i).modifier() : HistField.Modifier.NONE;
            long bucket = t.spec() != null && i < t.spec().keys().size() ? t.spec().keys().get(i).buckets() : 0;
            String s;
            if (k.isString()) {
                s = k.string();
            } else if (m == HistField.Modifier.LOG2) {
                s = "~ 2^" + Long.toUnsignedString(k.number());
            } else if (m == HistField.Modifier.BUCKETS && bucket > 0) {
                s = "~ " + Long.toUnsignedString(k.number()) + "-" + Long.toUnsignedString(k.number() + bucket - 1);
            } else if (m == HistField.Modifier.HEX) {
                s = Long.toHexString(k.number());
            } else {
                s = k.label() != null ? k.label() + " [" + Long.toUnsignedString(k.number()) + "]" : Long.toUnsignedString(k.number());
            }
            parts.add(s);
        }
        return String.join(", ", parts);
    }
}
