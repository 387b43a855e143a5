package org.tracewire.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.tracewire.filter.Filter;
import org.tracewire.filter.FilterSyntaxException;

/**
 * A hist trigger as {@code Documentation/trace/histogram.rst} (Linux 6.18) defines it:
 *
 * <pre>
 * hist:keys=&lt;field1[,field2,...]&gt;[:values=&lt;field1[,field2,...]&gt;][:sort=&lt;field1[,field2]&gt;][:size=#entries][:name=NAME] [if &lt;filter&gt;]
 * </pre>
 *
 * Keys are 1–3 fields with modifiers ({@link HistField}); values are sums of numeric fields, with the
 * implicit {@code hitcount} always kept (it is not in {@link #values()}); sort keys are 1–2 of
 * {@code hitcount}, a value or a key, {@code .descending} for the reverse order (default
 * {@code sort=hitcount}); {@code size} is the table's entry limit, rounded up to a power of two in
 * 128..131072 as the kernel does (default 2048); the filter is the kernel's event filter syntax
 * ({@link Filter}). The run-control words {@code pause}, {@code cont}, {@code clear},
 * {@code nohitcount} and handlers ({@code onmatch(...)} …) are not part of a spec and are refused.
 *
 * <p>{@link #toTriggerText()} prints the trigger the way the kernel shows it in {@code trigger} and
 * {@code hist} ({@code hist:keys=call_site.sym:vals=hitcount,bytes_req:sort=bytes_req.descending:size=2048}),
 * and {@link #parse(String)} reads it back to an equal spec.
 *
 * @param keys   the key fields (1–3)
 * @param values the summed value fields, without {@code hitcount} (may be empty)
 * @param sort   the sort keys (1–2; empty means {@link HistSort#HITCOUNT})
 * @param size   the entry limit, a power of two in 128..131072 (other sizes are rounded up, then checked)
 * @param filter the {@code if} filter, or null
 * @param name   the {@code name=} of a shared histogram, or null
 */
public record HistSpec(List<HistField> keys, List<HistField> values, List<HistSort> sort, int size, Filter filter,
                       String name) {
    /** The kernel's default table size. */
    public static final int DEFAULT_SIZE = 2048;
    /** Fewest entries a table may have (2^{@code TRACING_MAP_BITS_MIN}). */
    public static final int MIN_SIZE = 1 << 7;
    /** Most entries a table may have (2^{@code TRACING_MAP_BITS_MAX}). */
    public static final int MAX_SIZE = 1 << 17;
    /** Most key fields ({@code TRACING_MAP_KEYS_MAX}). */
    public static final int MAX_KEYS = 3;
    /** Most sort keys. */
    public static final int MAX_SORT = 2;

    /**
     * Checks and normalises: empty sort → {@code hitcount}; size rounded up to a power of two.
     *
     * @throws HistSpecException (position -1) when the spec breaks a rule above, a value has a
     *                           modifier other than {@code .hex}, {@code .execname} is on another field than
     *                           {@code common_pid}, or a sort key is neither hitcount, a value nor a key
     */
    public HistSpec {
        keys = List.copyOf(keys);
        values = List.copyOf(values);
        sort = sort == null || sort.isEmpty() ? List.of(HistSort.HITCOUNT) : List.copyOf(sort);
        size = roundSize(size, -1);
        if (keys.isEmpty() || keys.size() > MAX_KEYS) {
            throw new HistSpecException(-1, "a hist trigger has 1 to " + MAX_KEYS + " keys, not " + keys.size());
        }
        if (sort.size() > MAX_SORT) {
            throw new HistSpecException(-1, "at most " + MAX_SORT + " sort keys, not " + sort.size());
        }
        if (name != null && !name.matches("[A-Za-z0-9_-]+")) {
            throw new HistSpecException(-1, "not a histogram name: '" + name + "'");
        }
        String problem = problem(keys, values, sort);
        if (problem != null) {
            throw new HistSpecException(-1, problem);
        }
    }

    /** A spec with the kernel's defaults: sort by hitcount, 2048 entries, no filter, no name. */
    public static HistSpec of(List<HistField> keys, List<HistField> values) {
        return new HistSpec(keys, values, List.of(), DEFAULT_SIZE, null, null);
    }

    /** This spec with another filter (null for none). */
    public HistSpec withFilter(Filter f) {
        return new HistSpec(keys, values, sort, size, f, name);
    }

    /** This spec with other sort keys. */
    public HistSpec withSort(List<HistSort> s) {
        return new HistSpec(keys, values, s, size, filter, name);
    }

    /** This spec with another size (rounded up as the kernel does). */
    public HistSpec withSize(int entries) {
        return new HistSpec(keys, values, sort, entries, filter, name);
    }

    private static String problem(List<HistField> keys, List<HistField> values, List<HistSort> sort) {
        for (HistField k : keys) {
            if (k.modifier() == HistField.Modifier.EXECNAME && !k.name().equals("common_pid")) {
                return ".execname is for common_pid only, not " + k.name();
            }
            if (k.name().equals("hitcount")) {
                return "hitcount is a value, not a key";
            }
        }
        for (HistField v : values) {
            if (v.modifier() != HistField.Modifier.NONE && v.modifier() != HistField.Modifier.HEX) {
                return "a value takes only .hex, not ." + v.modifier().text() + " (" + v.toText() + ")";
            }
            if (v.name().equals("hitcount") || v.name().equals("stacktrace")) {
                return v.name() + " is not a summed value here";
            }
        }
        for (HistSort s : sort) {
            boolean known = s.field().equals("hitcount") || keys.stream().anyMatch(k -> k.name().equals(s.field()))
                    || values.stream().anyMatch(v -> v.name().equals(s.field()));
            if (!known) {
                return "sort key " + s.field() + " is neither hitcount nor a key or value";
            }
        }
        return null;
    }

    /** Rounds a size up to a power of two and checks 128..131072, as {@code parse_map_size()} does. */
    private static int roundSize(long size, int position) {
        if (size < 1 || size > MAX_SIZE) {
            throw new HistSpecException(position, "size " + size + " is outside " + MIN_SIZE + ".." + MAX_SIZE);
        }
        long p = Long.highestOneBit(size);
        long rounded = p == size ? size : p << 1;
        if (rounded < MIN_SIZE) {
            throw new HistSpecException(position, "size " + size + " rounds to " + rounded + ", below the smallest table of "
                    + MIN_SIZE + " entries");
        }
        return (int) rounded;
    }

    /**
     * The trigger text as the kernel prints it: {@code hist:[name=N:]keys=K:vals=hitcount[,V]:sort=S:size=N[ if F]}
     * (a sort key that is a key field carries the key's modifier, as in {@code sort=id.syscall,hitcount}).
     *
     * @throws IllegalArgumentException when the filter holds a string the kernel's syntax cannot quote
     */
    public String toTriggerText() {
        StringBuilder sb = new StringBuilder("hist:");
        if (name != null) {
            sb.append("name=").append(name).append(':');
        }
        sb.append("keys=");
        join(sb, keys);
        sb.append(":vals=hitcount");
        for (HistField v : values) {
            sb.append(',').append(v.toText());
        }
        sb.append(":sort=");
        for (int i = 0; i < sort.size(); i++) {
            HistSort s = sort.get(i);
            if (i > 0) {
                sb.append(',');
            }
            HistField key = keys.stream().filter(k -> k.name().equals(s.field())).findFirst().orElse(null);
            sb.append(key != null ? key.toText() : s.field());
            if (s.descending()) {
                sb.append(".descending");
            }
        }
        sb.append(":size=").append(size);
        if (filter != null) {
            sb.append(" if ").append(filter.toText());
        }
        return sb.toString();
    }

    private static void join(StringBuilder sb, List<HistField> fields) {
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(fields.get(i).toText());
        }
    }

    @Override
    public String toString() {
        return toTriggerText();
    }

    /** Where a spec's text ends: before a trailing {@code [active]} or {@code [paused]}. */
    private static int specEnd(String text) {
        int end = text.length();
        String trimmedEnd = text.stripTrailing();
        for (String state : new String[] {"[active]", "[paused]"}) {
            if (trimmedEnd.endsWith(state)) {
                end = trimmedEnd.length() - state.length();
            }
        }
        return end;
    }

    /** The {@code if <filter>} after the trigger's parameters (from {@code ws} to {@code end}), or null. */
    private static Filter trailingFilter(String text, int ws, int end) {
        int rest = ws;
        while (rest < end && Character.isWhitespace(text.charAt(rest))) {
            rest++;
        }
        if (rest >= end) {
            return null;
        }
        if (!text.startsWith("if", rest) || rest + 2 >= end || !Character.isWhitespace(text.charAt(rest + 2))) {
            throw new HistSpecException(rest, "expected 'if <filter>' after the trigger");
        }
        int f = rest + 3;
        String ftext = text.substring(f, end).stripTrailing();
        try {
            return Filter.parse(ftext);
        } catch (FilterSyntaxException e) {
            throw new HistSpecException(f + e.position(), "filter: " + e.detail());
        }
    }

    /** A hist trigger's {@code :}-separated parameters, as {@link #parse} reads them one by one. */
    private static final class Params {
        List<HistField> keys;
        final List<HistField> values = new ArrayList<>();
        final List<HistSort> sort = new ArrayList<>();
        int size = DEFAULT_SIZE;
        String name;

        /** One parameter ({@code word} or {@code word=arg}) at {@code pos} of the text. */
        void add(String param, int pos) {
            int eq = param.indexOf('=');
            String word = eq < 0 ? param : param.substring(0, eq);
            String arg = eq < 0 ? null : param.substring(eq + 1);
            int argPos = pos + eq + 1;
            switch (word) {
                case "key", "keys" -> {
                    if (keys != null) {
                        throw new HistSpecException(pos, "keys= given twice");
                    }
                    keys = fields(need(arg, word, pos), argPos);
                }
                case "val", "vals", "values" -> {
                    for (HistField v : fields(need(arg, word, pos), argPos)) {
                        if (!(v.name().equals("hitcount") && v.modifier() == HistField.Modifier.NONE)) {
                            values.add(v);
                        }
                    }
                }
                case "sort" -> {
                    int p = argPos;
                    for (String s : need(arg, word, pos).split(",", -1)) {
                        sort.add(sortKey(s, p));
                        p += s.length() + 1;
                    }
                }
                case "size" -> {
                    String a = need(arg, word, pos);
                    if (!a.matches("[0-9]{1,9}")) {
                        throw new HistSpecException(argPos, "size takes a number of entries, not '" + a + "'");
                    }
                    size = roundSize(Long.parseLong(a), argPos);
                }
                case "name" -> {
                    name = need(arg, word, pos);
                    if (!name.matches("[A-Za-z0-9_-]+")) {
                        throw new HistSpecException(argPos, "not a histogram name: '" + name + "'");
                    }
                }
                case "pause", "cont", "continue", "clear", "nohitcount", "NOHC" -> throw new HistSpecException(pos,
                        "'" + word + "' controls a running trigger; it is not part of a histogram's spec");
                case "" -> throw new HistSpecException(pos, "empty parameter (two ':' in a row, or a trailing ':')");
                default -> throw new HistSpecException(pos, word.startsWith("on")
                        ? "handlers such as " + word + " are not supported" : "unknown hist parameter '" + word + "'");
            }
        }
    }

    /**
     * Parses a hist trigger: the text written to an event's {@code trigger} file, or shown after
     * {@code # trigger info:} in its {@code hist} file (a trailing {@code [active]} or
     * {@code [paused]} is ignored). {@code key}/{@code keys}, {@code val}/{@code vals}/{@code values}
     * are synonyms; {@code hitcount} among the values is the implicit count.
     *
     * @throws HistSpecException with the 0-based position in {@code text} of the first problem (for a
     *                           filter, the position of its problem within {@code text})
     */
    public static HistSpec parse(String text) {
        Objects.requireNonNull(text, "text");
        int start = 0;
        while (start < text.length() && Character.isWhitespace(text.charAt(start))) {
            start++;
        }
        int end = specEnd(text);
        int ws = start;
        while (ws < end && !Character.isWhitespace(text.charAt(ws))) {
            ws++;
        }
        String head = text.substring(start, ws);
        if (!head.startsWith("hist:") && !head.equals("hist")) {
            throw new HistSpecException(start, "a hist trigger starts with 'hist:'");
        }
        Filter filter = trailingFilter(text, ws, end);
        if (head.equals("hist")) {
            throw new HistSpecException(start + 4, "a hist trigger needs keys=");
        }
        Params params = new Params();
        int pos = start + 5;
        for (String param : head.substring(5).split(":", -1)) {
            params.add(param, pos);
            pos += param.length() + 1;
        }
        List<HistField> keys = params.keys;
        List<HistField> values = params.values;
        List<HistSort> sort = params.sort;
        int size = params.size;
        String name = params.name;
        if (keys == null) {
            throw new HistSpecException(start, "a hist trigger needs keys=");
        }
        if (keys.size() > MAX_KEYS) {
            throw new HistSpecException(start, "at most " + MAX_KEYS + " keys, not " + keys.size());
        }
        if (sort.size() > MAX_SORT) {
            throw new HistSpecException(start, "at most " + MAX_SORT + " sort keys, not " + sort.size());
        }
        try {
            return new HistSpec(keys, values, sort, size, filter, name);
        } catch (HistSpecException e) {
            throw new HistSpecException(start, e.detail());
        }
    }

    private static String need(String arg, String word, int pos) {
        if (arg == null || arg.isEmpty()) {
            throw new HistSpecException(pos, word + "= needs a value");
        }
        return arg;
    }

    private static List<HistField> fields(String list, int pos) {
        List<HistField> out = new ArrayList<>();
        int p = pos;
        for (String f : list.split(",", -1)) {
            out.add(field(f, p));
            p += f.length() + 1;
        }
        return out;
    }

    /** {@code name}, {@code name.mod} or {@code name.buckets=N}. */
    private static HistField field(String f, int pos) {
        int dot = f.indexOf('.');
        String name = dot < 0 ? f : f.substring(0, dot);
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new HistSpecException(pos, "not a field name: '" + name + "'");
        }
        if (dot < 0) {
            return HistField.of(name);
        }
        String mod = f.substring(dot + 1);
        int modPos = pos + dot + 1;
        if (mod.startsWith("buckets=")) {
            String n = mod.substring(8);
            if (!n.matches("[0-9]{1,18}") || Long.parseLong(n) < 1) {
                throw new HistSpecException(modPos + 8, ".buckets= takes a size of at least 1, not '" + n + "'");
            }
            return HistField.buckets(name, Long.parseLong(n));
        }
        HistField.Modifier m = HistField.Modifier.of(mod);
        if (m == null) {
            throw new HistSpecException(modPos, "unknown modifier '." + mod + "' (hex, sym, sym-offset, execname, syscall, log2, "
                    + "buckets=N, usecs)");
        }
        if (m == HistField.Modifier.BUCKETS) {
            throw new HistSpecException(modPos, ".buckets needs a size: .buckets=N");
        }
        return HistField.of(name, m);
    }

    /** A sort key: {@code field[.modifier][.descending|.ascending]}; a key's modifier is ignored. */
    private static HistSort sortKey(String s, int pos) {
        boolean descending = false;
        String f = s;
        if (f.endsWith(".descending")) {
            descending = true;
            f = f.substring(0, f.length() - 11);
        } else if (f.endsWith(".ascending")) {
            f = f.substring(0, f.length() - 10);
        }
        int dot = f.indexOf('.');
        String name = dot < 0 ? f : f.substring(0, dot);
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new HistSpecException(pos, "not a sort key: '" + s + "'");
        }
        if (dot >= 0) {
            field(f, pos); // the modifier must at least be one
        }
        return new HistSort(name, descending);
    }
}
