package org.tracewire.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.tracewire.filter.FilterSyntaxException;
import org.tracewire.filter.RecordFilter;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.record.EventRecord;

/**
 * Builds the table a hist trigger would build, from captured records of its event
 * ({@code kernel/trace/trace_events_hist.c} and {@code tracing_map.c}, Linux 6.18):
 * <ul>
 * <li>each record that passes the filter is one hit; its key is one part per key field: a number as
 *     the kernel reads it (the field's value sign-extended to u64), a string field up to its NUL, the
 *     record's CPU for {@code common_cpu}, its time stamp for {@code common_timestamp} (ns; µs with
 *     {@code .usecs});</li>
 * <li>{@code .log2}: {@code ilog2(roundup_pow_of_two(v))} computed as {@code fls64(v - 1)} with the
 *     shift count masked to 6 bits as x86-64 does (so 0 and 1 give 0, 2 gives 1, 3–4 give 2, and
 *     values above 2<sup>63</sup> give 0 as {@code 1UL << 64} does there); {@code .buckets=N}:
 *     {@code v / N * N} in unsigned arithmetic;</li>
 * <li>a new key when the table already holds {@code size} entries is dropped ({@code Dropped});
 *     every other hit adds 1 to the entry's hitcount and to {@code Hits}, and each value field's
 *     number to its u64 sum (wrapping);</li>
 * <li>the table is sorted by the spec's sort keys (hitcount and sums unsigned; a key field as its
 *     type: signed fields without {@code .log2}/{@code .buckets} signed, strings by
 *     {@link String#compareTo}); ties, which the kernel leaves in hash order, by key ascending.</li>
 * </ul>
 * Records of other events are ignored. Not thread-safe.
 */
public final class HistAggregator {
    private final HistSpec spec;
    private final EventFormat format;
    private final HistLabels labels;
    private final Part[] keys;
    private final Part[] values;
    private final RecordFilter filter;
    private final Map<List<HistKey>, long[]> table = new HashMap<>();
    private long hits;
    private long dropped;

    /** How one key or value field is read from a record. */
    private record Part(HistField field, Source source, Field f, boolean string, boolean signed) {
    }

    private enum Source { FIELD, CPU, TIMESTAMP }

    /**
     * @param spec   the trigger
     * @param format the event it is attached to
     * @param labels names for {@code .execname}, {@code .sym}, {@code .syscall} keys and {@code COMM} in
     *               the filter, or {@link HistLabels#NONE}
     * @throws HistSpecException (position -1) when a field is missing from the event or of a kind the
     *                           hist cannot use here ({@code stacktrace}: records carry no stack; arrays;
     *                           {@code char *} strings the record holds only a pointer to), or the filter
     *                           does not fit the event (the filter's own position is in the message)
     */
    public HistAggregator(HistSpec spec, EventFormat format, HistLabels labels) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.format = Objects.requireNonNull(format, "format");
        this.labels = labels == null ? HistLabels.NONE : labels;
        this.keys = spec.keys().stream().map(k -> part(k, true)).toArray(Part[]::new);
        this.values = spec.values().stream().map(v -> part(v, false)).toArray(Part[]::new);
        if (spec.filter() == null) {
            filter = null;
        } else {
            try {
                filter = RecordFilter.compile(spec.filter(), format,
                        this.labels == HistLabels.NONE ? null : this.labels::execname);
            } catch (FilterSyntaxException e) {
                throw new HistSpecException(-1, "filter " + spec.filter().toText() + ": " + e.getMessage());
            }
        }
    }

    /** An aggregator without labels. */
    public HistAggregator(HistSpec spec, EventFormat format) {
        this(spec, format, HistLabels.NONE);
    }

    /**
     * The table of a list of records (other events' records are skipped).
     *
     * @throws HistSpecException as {@link #HistAggregator(HistSpec, EventFormat, HistLabels)}
     */
    public static HistTable aggregate(HistSpec spec, EventFormat format, Iterable<EventRecord> records, HistLabels labels) {
        HistAggregator a = new HistAggregator(spec, format, labels);
        for (EventRecord r : records) {
            a.add(r);
        }
        return a.table();
    }

    private Part part(HistField h, boolean key) {
        String n = h.name();
        if (h.modifier() == HistField.Modifier.USECS && !n.equals("common_timestamp")) {
            throw new HistSpecException(-1, ".usecs is for common_timestamp only, not " + n);
        }
        if (n.equals("stacktrace")) {
            throw new HistSpecException(-1, "stacktrace keys need the kernel's stack at each event: records carry none");
        }
        Field f = format.field(n);
        if (f == null) {
            if (n.equals("common_timestamp")) {
                return new Part(h, Source.TIMESTAMP, null, false, false);
            }
            if (n.equals("common_cpu") || n.equals("cpu")) {
                return new Part(h, Source.CPU, null, false, true);
            }
            throw new HistSpecException(-1, "no field '" + n + "' in " + format.fullName());
        }
        FieldKind k = f.kind();
        boolean charArray = k == FieldKind.CHAR_ARRAY || (k == FieldKind.ARRAY && f.type().contains("char"));
        if (charArray || k == FieldKind.DYNAMIC_STRING) {
            if (!key) {
                throw new HistSpecException(-1, n + " is a string: values are sums of numbers");
            }
            if (h.modifier() != HistField.Modifier.NONE) {
                throw new HistSpecException(-1, n + " is a string: ." + h.modifier().text() + " is for numbers");
            }
            return new Part(h, Source.FIELD, f, true, false);
        }
        if (k == FieldKind.POINTER && f.type().contains("char")) {
            throw new HistSpecException(-1, n + " (" + f.type().strip() + ") is a pointer in the record: the kernel keys on the"
                    + " string it points to, which a record does not hold");
        }
        if ((k == FieldKind.INTEGER || k == FieldKind.POINTER)
                && (f.size() == 1 || f.size() == 2 || f.size() == 4 || f.size() == 8)) {
            return new Part(h, Source.FIELD, f, false, f.signed());
        }
        throw new HistSpecException(-1, n + " (" + f.declaration() + ") is neither a number nor a string");
    }

    /**
     * Counts one record.
     *
     * @return true when it was counted (an entry's hit), false when it is of another event, filtered
     *         out, or dropped because the table is full
     * @throws org.tracewire.record.RecordException when a field lies outside the record
     */
    public boolean add(EventRecord r) {
        if (r.format() != format && !r.format().equals(format)) {
            return false;
        }
        if (filter != null && !filter.test(r)) {
            return false;
        }
        List<HistKey> key = new ArrayList<>(keys.length);
        for (Part p : keys) {
            key.add(p.string ? HistKey.of(r.string(p.f)) : HistKey.of(keyNumber(p.field, number(p, r))));
        }
        long[] sums = table.get(key);
        if (sums == null) {
            if (table.size() >= spec.size()) {
                dropped++;
                return false;
            }
            sums = new long[1 + values.length];
            table.put(labelled(key, r), sums);
        }
        hits++;
        sums[0]++;
        for (int i = 0; i < values.length; i++) {
            sums[i + 1] += number(values[i], r);
        }
        return true;
    }

    private static long number(Part p, EventRecord r) {
        return switch (p.source) {
            case CPU -> r.cpu();
            case TIMESTAMP -> p.field.modifier() == HistField.Modifier.USECS ? Long.divideUnsigned(r.timestampNs(), 1000)
                    : r.timestampNs();
            case FIELD -> r.integer(p.f);
        };
    }

    /** The key the kernel stores for a field's value under its modifier. */
    static long keyNumber(HistField field, long v) {
        return switch (field.modifier()) {
            case LOG2 -> log2(v);
            case BUCKETS -> Long.divideUnsigned(v, field.buckets()) * field.buckets();
            default -> v;
        };
    }

    /**
     * {@code ilog2(roundup_pow_of_two(v))} as the kernel computes it on x86-64:
     * {@code 1UL << fls_long(v - 1)}, the shift count masked to 6 bits, then its log2.
     */
    static long log2(long v) {
        int fls = 64 - Long.numberOfLeadingZeros(v - 1);
        return fls & 63;
    }

    private List<HistKey> labelled(List<HistKey> key, EventRecord r) {
        List<HistKey> out = new ArrayList<>(key.size());
        for (int i = 0; i < key.size(); i++) {
            HistKey k = key.get(i);
            String label = switch (keys[i].field.modifier()) {
                case EXECNAME -> labels.execname((int) k.number());
                case SYM -> labels.symbol(k.number(), false);
                case SYM_OFFSET -> labels.symbol(k.number(), true);
                case SYSCALL -> labels.syscall(k.number());
                default -> null;
            };
            out.add(label == null ? k : new HistKey(k.number(), k.string(), label));
        }
        return List.copyOf(out);
    }

    /** The table now, sorted by the spec. */
    public HistTable table() {
        List<Map.Entry<List<HistKey>, long[]>> rows = new ArrayList<>(table.entrySet());
        rows.sort(order());
        List<HistEntry> entries = new ArrayList<>(rows.size());
        for (var e : rows) {
            long[] s = e.getValue();
            List<Long> sums = new ArrayList<>(values.length);
            for (int i = 0; i < values.length; i++) {
                sums.add(s[i + 1]);
            }
            entries.add(new HistEntry(e.getKey(), s[0], sums));
        }
        return new HistTable(spec.toTriggerText(), spec, spec.keys().stream().map(HistField::name).toList(),
                spec.values().stream().map(HistField::name).toList(), entries, hits, entries.size(), dropped);
    }

    /** The spec this aggregator follows. */
    public HistSpec spec() {
        return spec;
    }

    private Comparator<Map.Entry<List<HistKey>, long[]>> order() {
        Comparator<Map.Entry<List<HistKey>, long[]>> c = null;
        for (HistSort s : spec.sort()) {
            Comparator<Map.Entry<List<HistKey>, long[]>> one = sortKey(s.field());
            if (s.descending()) {
                one = one.reversed();
            }
            c = c == null ? one : c.thenComparing(one);
        }
        for (int i = 0; i < keys.length; i++) {
            c = c.thenComparing(keyOrder(i));
        }
        return c;
    }

    private Comparator<Map.Entry<List<HistKey>, long[]>> sortKey(String name) {
        if (name.equals("hitcount")) {
            return (a, b) -> Long.compareUnsigned(a.getValue()[0], b.getValue()[0]);
        }
        for (int i = 0; i < values.length; i++) {
            if (values[i].field.name().equals(name)) {
                int idx = i + 1;
                return (a, b) -> Long.compareUnsigned(a.getValue()[idx], b.getValue()[idx]);
            }
        }
        for (int i = 0; i < keys.length; i++) {
            if (keys[i].field.name().equals(name)) {
                return keyOrder(i);
            }
        }
        throw new IllegalStateException("sort key " + name);
    }

    private Comparator<Map.Entry<List<HistKey>, long[]>> keyOrder(int i) {
        Part p = keys[i];
        if (p.string) {
            return (a, b) -> a.getKey().get(i).string().compareTo(b.getKey().get(i).string());
        }
        HistField.Modifier m = p.field.modifier();
        boolean signed = p.signed && m != HistField.Modifier.LOG2 && m != HistField.Modifier.BUCKETS;
        return signed ? (a, b) -> Long.compare(a.getKey().get(i).number(), b.getKey().get(i).number())
                : (a, b) -> Long.compareUnsigned(a.getKey().get(i).number(), b.getKey().get(i).number());
    }
}
