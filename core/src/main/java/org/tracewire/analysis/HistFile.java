package org.tracewire.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text of an event's {@code hist} file: {@link #parse} reads it into {@link HistTable}s (one per
 * hist trigger on the event), {@link #render} writes a table the way the kernel does, so a kernel-side
 * run and an {@link HistAggregator} over captured records compare ({@link HistTable#sameCounts}).
 *
 * <p>The format is {@code hist_trigger_show()} / {@code hist_trigger_entry_print()} /
 * {@code hist_trigger_print_key()} of {@code kernel/trace/trace_events_hist.c}, as shown in
 * {@code Documentation/trace/histogram.rst}:
 *
 * <pre>
 * # event histogram
 * #
 * # trigger info: hist:keys=common_pid.execname:vals=hitcount,count:sort=count.descending:size=2048 [active]
 * #
 *
 * { common_pid: bash            [      8710] } hitcount:          3  count:      66369
 *
 * Totals:
 *     Hits: 3
 *     Entries: 1
 *     Dropped: 0
 * </pre>
 *
 * Key parts by modifier: plain {@code %10llu}, {@code .hex} {@code %llx}, {@code .sym}
 * {@code [%llx] %-45s}, {@code .sym-offset} {@code [%llx] %-55s}, {@code .execname}
 * {@code %-16s[%10llu]}, {@code .syscall} {@code %-30s[%3llu]}, {@code .log2} {@code ~ 2^%-2llu},
 * {@code .buckets=N} {@code ~ %llu-%llu}, strings {@code %-50s}, {@code stacktrace} one frame a line.
 * Values: {@code hitcount: %10llu}, then {@code  name: %10llu} ({@code %10llx} with {@code .hex}).
 */
public final class HistFile {
    private static final Pattern VALUE = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*):\\s*(\\S+)");
    private static final Pattern LABELLED = Pattern.compile("(?s)(.*?)\\s*\\[\\s*([0-9]+)\\]");
    private static final Pattern SYMBOL = Pattern.compile("(?s)\\[([0-9a-fA-F]+)\\]\\s*(.*?)");
    private static final Pattern LOG2 = Pattern.compile("~ 2\\^([0-9]+)");
    private static final Pattern BUCKET = Pattern.compile("~ ([0-9]+)-([0-9]+)");

    private HistFile() {
    }

    /**
     * Parses the text of a {@code hist} file.
     *
     * @return one table per trigger, in file order (none for an empty text)
     * @throws HistSpecException with the 1-based line of the first line that is not the kernel's
     */
    public static List<HistTable> parse(String text) {
        List<HistTable> out = new ArrayList<>();
        Builder b = new Builder();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String raw = lines[i];
            String line = raw.strip();
            int lineNo = i + 1;
            if (line.startsWith("# trigger info:")) {
                if (b.hasContent()) {
                    out.add(b.build(lineNo));
                    b = new Builder();
                }
                b.info(line.substring("# trigger info:".length()).strip());
                b.seen = true;
            } else if (line.equals("# event histogram")) {
                if (b.hasContent()) {
                    out.add(b.build(lineNo));
                    b = new Builder();
                }
                b.seen = true;
            } else if (line.isEmpty() || line.startsWith("#")) {
                continue;
            } else if (line.startsWith("{")) {
                StringBuilder entry = new StringBuilder(line);
                while (line.lastIndexOf('}') < 0) {
                    if (++i >= lines.length) {
                        throw HistSpecException.atLine(lineNo, "an entry's key without its closing '}'");
                    }
                    line = lines[i].strip();
                    entry.append('\n').append(line);
                }
                b.entry(entry.toString(), lineNo);
            } else if (line.equals("Totals:")) {
                b.totalsSeen = true;
            } else if (b.totalsSeen && line.matches("(Hits|Entries|Dropped): [0-9]+")) {
                int colon = line.indexOf(':');
                long v = Long.parseUnsignedLong(line.substring(colon + 2));
                switch (line.substring(0, colon)) {
                    case "Hits" -> b.hits = v;
                    case "Entries" -> b.entries = v;
                    default -> b.dropped = v;
                }
            } else {
                throw HistSpecException.atLine(lineNo, "not a line of a hist file: '" + line + "'");
            }
        }
        if (b.started()) {
            out.add(b.build(lines.length));
        }
        return out;
    }

    /** Collects one table's lines. */
    private static final class Builder {
        boolean seen;
        boolean totalsSeen;
        String info;
        HistSpec spec;
        List<String> keyNames;
        List<String> valueNames;
        final List<HistEntry> rows = new ArrayList<>();
        long hits = -1;
        long entries = -1;
        long dropped = -1;

        boolean started() {
            return seen || hasContent();
        }

        /** Trigger info, rows or totals: a header line after this begins the next table. */
        boolean hasContent() {
            return info != null || !rows.isEmpty() || totalsSeen;
        }

        void info(String text) {
            String t = text;
            for (String state : new String[] {"[active]", "[paused]"}) {
                if (t.endsWith(state)) {
                    t = t.substring(0, t.length() - state.length()).strip();
                }
            }
            info = t;
            try {
                spec = HistSpec.parse(t);
                keyNames = spec.keys().stream().map(HistField::name).toList();
            } catch (HistSpecException e) {
                spec = null;
            }
        }

        HistField keyField(String name) {
            return spec == null ? null : spec.keys().stream().filter(k -> k.name().equals(name)).findFirst().orElse(null);
        }

        boolean hexValue(String name) {
            return spec != null && spec.values().stream().anyMatch(v -> v.name().equals(name)
                    && v.modifier() == HistField.Modifier.HEX);
        }

        void entry(String text, int line) {
            int open = text.indexOf('{');
            int close = text.lastIndexOf('}');
            String inner = text.substring(open + 1, close).strip();
            List<String[]> parts = splitKeys(inner, line);
            List<String> names = parts.stream().map(p -> p[0]).toList();
            if (keyNames == null) {
                keyNames = names;
            } else if (!keyNames.equals(names)) {
                throw HistSpecException.atLine(line, "keys " + names + " where the table has " + keyNames);
            }
            List<HistKey> keys = new ArrayList<>();
            for (String[] p : parts) {
                keys.add(key(p[0], p[1], keyField(p[0]), line));
            }
            Matcher m = VALUE.matcher(text.substring(close + 1));
            List<String> vnames = new ArrayList<>();
            List<Long> sums = new ArrayList<>();
            long hitcount = -1;
            while (m.find()) {
                String name = m.group(1);
                String v = m.group(2);
                long n;
                try {
                    n = hexValue(name) ? Long.parseUnsignedLong(v, 16) : Long.parseUnsignedLong(v);
                } catch (NumberFormatException e) {
                    throw HistSpecException.atLine(line, name + ": '" + v + "' is not a number");
                }
                if (name.equals("hitcount") && hitcount < 0 && vnames.isEmpty()) {
                    hitcount = n;
                } else {
                    vnames.add(name);
                    sums.add(n);
                }
            }
            if (hitcount < 0) {
                throw HistSpecException.atLine(line, "an entry without its hitcount");
            }
            if (valueNames == null) {
                valueNames = vnames;
            } else if (!valueNames.equals(vnames)) {
                throw HistSpecException.atLine(line, "values " + vnames + " where the table has " + valueNames);
            }
            rows.add(new HistEntry(keys, hitcount, sums));
        }

        /** {@code name: value, name: value}: split at ", name: " (the spec's key names when known). */
        List<String[]> splitKeys(String inner, int line) {
            List<String[]> out = new ArrayList<>();
            if (keyNames != null && spec != null) {
                int pos = 0;
                for (int i = 0; i < keyNames.size(); i++) {
                    String head = keyNames.get(i) + ":";
                    if (!inner.startsWith(head, pos)) {
                        throw HistSpecException.atLine(line, "expected key " + keyNames.get(i) + " at '" + inner.substring(pos) + "'");
                    }
                    int from = pos + head.length();
                    int end = i + 1 < keyNames.size() ? inner.indexOf(", " + keyNames.get(i + 1) + ":", from) : inner.length();
                    if (end < 0) {
                        throw HistSpecException.atLine(line, "key " + keyNames.get(i + 1) + " missing in '" + inner + "'");
                    }
                    out.add(new String[] {keyNames.get(i), inner.substring(from, end).strip()});
                    pos = end + 2;
                }
                return out;
            }
            for (String part : inner.split(", (?=[A-Za-z_][A-Za-z0-9_]*:)")) {
                int colon = part.indexOf(':');
                if (colon < 1) {
                    throw HistSpecException.atLine(line, "not a key 'name: value': '" + part + "'");
                }
                out.add(new String[] {part.substring(0, colon).strip(), part.substring(colon + 1).strip()});
            }
            return out;
        }

        HistTable build(int line) {
            if (hits < 0 || entries < 0 || dropped < 0) {
                throw HistSpecException.atLine(line, "a table without its Totals (Hits, Entries, Dropped)");
            }
            List<String> kn = keyNames != null ? keyNames : List.of();
            List<String> vn = valueNames != null ? valueNames
                    : spec != null ? spec.values().stream().map(HistField::name).toList() : List.of();
            return new HistTable(info, spec, kn, vn, rows, hits, entries, dropped);
        }
    }

    /** One key part's text, read by the key's modifier when the spec is known, else by its shape. */
    static HistKey key(String name, String v, HistField field, int line) {
        HistField.Modifier m = field != null ? field.modifier() : null;
        try {
            if (name.equals("stacktrace")) {
                return HistKey.of(v.strip());
            }
            Matcher x;
            if ((m == null || m == HistField.Modifier.LOG2) && (x = LOG2.matcher(v)).matches()) {
                return HistKey.of(Long.parseUnsignedLong(x.group(1)));
            }
            if ((m == null || m == HistField.Modifier.BUCKETS) && (x = BUCKET.matcher(v)).matches()) {
                return HistKey.of(Long.parseUnsignedLong(x.group(1)));
            }
            if ((m == null || m == HistField.Modifier.SYM || m == HistField.Modifier.SYM_OFFSET)
                    && (x = SYMBOL.matcher(v)).matches()) {
                return new HistKey(Long.parseUnsignedLong(x.group(1), 16), null, x.group(2).isEmpty() ? null : x.group(2));
            }
            if ((m == null || m == HistField.Modifier.EXECNAME || m == HistField.Modifier.SYSCALL)
                    && (x = LABELLED.matcher(v)).matches()) {
                return new HistKey(Long.parseUnsignedLong(x.group(2)), null, x.group(1).isEmpty() ? null : x.group(1));
            }
            if (m == HistField.Modifier.HEX) {
                return HistKey.of(Long.parseUnsignedLong(v, 16));
            }
            if (m != null && m != HistField.Modifier.NONE && m != HistField.Modifier.USECS) {
                throw HistSpecException.atLine(line, name + ": '" + v + "' is not a ." + m.text() + " key");
            }
            if (v.matches("[0-9]{1,20}")) {
                return HistKey.of(Long.parseUnsignedLong(v));
            }
            return HistKey.of(v);
        } catch (NumberFormatException e) {
            throw HistSpecException.atLine(line, name + ": '" + v + "' is out of the u64 range");
        }
    }

    /**
     * The table as the kernel's {@code hist} file shows it (one trigger; see the class comment),
     * {@code [active]} as its state. Labels missing for {@code .execname}/{@code .sym}/{@code .syscall}
     * print as the kernel's fallbacks ({@code <...>}, the bare address, {@code unknown_syscall}).
     *
     * @throws IllegalArgumentException when the table has no spec (the modifiers are unknown)
     */
    public static String render(HistTable t) {
        HistSpec spec = t.spec();
        if (spec == null) {
            throw new IllegalArgumentException("a table without a spec cannot be rendered");
        }
        StringBuilder sb = new StringBuilder();
        sb.append("# event histogram\n#\n# trigger info: ").append(spec.toTriggerText()).append(" [active]\n#\n\n");
        for (HistEntry e : t.entries()) {
            sb.append("{ ");
            boolean multiline = false;
            for (int i = 0; i < e.keys().size(); i++) {
                if (i > 0) {
                    sb.append(", ");
                }
                HistField f = spec.keys().get(i);
                HistKey k = e.keys().get(i);
                sb.append(f.name()).append(": ");
                if (f.name().equals("stacktrace")) {
                    sb.append('\n');
                    for (String frame : k.string().split("\n")) {
                        sb.append("         ").append(frame).append('\n');
                    }
                    multiline = true;
                    continue;
                }
                String u = Long.toUnsignedString(k.number());
                String hex = Long.toHexString(k.number());
                switch (f.modifier()) {
                    case HEX -> sb.append(hex);
                    case SYM -> sb.append(String.format("[%s] %-45s", hex, k.label() != null ? k.label() : hex));
                    case SYM_OFFSET -> sb.append(String.format("[%s] %-55s", hex, k.label() != null ? k.label() : hex));
                    case EXECNAME -> sb.append(String.format("%-16s[%10s]", k.label() != null ? k.label() : "<...>", u));
                    case SYSCALL -> sb.append(String.format("%-30s[%3s]", k.label() != null ? k.label() : "unknown_syscall", u));
                    case LOG2 -> sb.append(String.format("~ 2^%-2s", u));
                    case BUCKETS -> sb.append("~ ").append(u).append('-').append(Long.toUnsignedString(k.number() + f.buckets() - 1));
                    default -> sb.append(k.isString() ? String.format("%-50s", k.string()) : String.format("%10s", u));
                }
            }
            if (!multiline) {
                sb.append(' ');
            }
            sb.append("} hitcount: ").append(String.format("%10s", Long.toUnsignedString(e.hitcount())));
            for (int i = 0; i < spec.values().size(); i++) {
                HistField v = spec.values().get(i);
                long s = e.values().get(i);
                sb.append("  ").append(v.name()).append(": ").append(String.format("%10s",
                        v.modifier() == HistField.Modifier.HEX ? Long.toHexString(s) : Long.toUnsignedString(s)));
            }
            sb.append('\n');
        }
        sb.append("\nTotals:\n    Hits: ").append(Long.toUnsignedString(t.hits())).append("\n    Entries: ").append(t.entryCount())
                .append("\n    Dropped: ").append(Long.toUnsignedString(t.dropped())).append('\n');
        return sb.toString();
    }
}
