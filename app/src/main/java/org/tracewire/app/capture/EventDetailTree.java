package org.tracewire.app.capture;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.printfmt.EventPrinter;
import org.tracewire.printfmt.Expr;
import org.tracewire.printfmt.FormatSegment;
import org.tracewire.printfmt.PrintFmt;
import org.tracewire.record.EventRecord;
import org.tracewire.tracetext.LatencyFormat;
import org.tracewire.tracetext.SyscallText;

/**
 * The details pane's tree of one event, like Wireshark's packet details: the common fields first
 * (time, CPU, pid, comm, the flags column as the kernel prints it, with {@code common_flags} and
 * {@code common_preempt_count}), then each of the event's own fields as the kernel prints it with
 * its raw value beside it, then the kernel's text line.
 *
 * <p>A field's kernel text is its piece of the row's kernel text (rendered by core's
 * {@link EventPrinter} / {@link SyscallText}: hex where the print fmt says {@code %x}/{@code %p},
 * the names {@code __print_symbolic}/{@code __print_flags} give): the text is split at the print
 * fmt's literal pieces ({@link PrintFmt#segments()}), and a conversion whose arguments read exactly
 * one of the event's fields is that field's text. Where that cannot be told (two conversions
 * without text between them, a text the split does not match), the field shows its raw value
 * only. Not thread-safe (a cache of compiled print fmts); the UI thread uses it.
 */
public final class EventDetailTree {
    /**
     * One line of the tree.
     *
     * @param name     the field or section name
     * @param shown    as the kernel prints it (or the section's summary), "" for none
     * @param raw      the raw value when it differs from {@code shown}, else null
     * @param children the lines below it
     */
    public record Node(String name, String shown, String raw, List<Node> children) {
        /** A leaf. */
        public static Node leaf(String name, String shown, String raw) {
            return new Node(name, shown, raw == null || raw.equals(shown) ? null : raw, List.of());
        }

        /** The line as the tree shows it: {@code name: shown  [raw]}. */
        public String text() {
            StringBuilder sb = new StringBuilder(name);
            if (!shown.isEmpty()) {
                sb.append(": ").append(shown);
            }
            if (raw != null) {
                sb.append("   [raw ").append(raw).append(']');
            }
            return sb.toString();
        }
    }

    /**
     * One frame of a stack trace recorded with an event (the capture store's {@code stack} view).
     *
     * @param kind    {@code kernel} or {@code user}
     * @param depth   1 for the innermost call
     * @param address the code address (unsigned)
     * @param func    the function the capture resolved, null when unknown
     * @param module  a user frame's object file (a kernel frame's module), null when unknown
     */
    public record StackFrame(String kind, int depth, long address, String func, String module) {
    }

    /**
     * The tree with the event's stack traces added before its "Kernel text": a "Kernel stack" and
     * a "User stack" section, a line per frame ({@code => func} as the kernel prints it, with the
     * address and a user frame's object file beside it).
     *
     * @param tree   a tree {@link #of} made
     * @param frames the event's stack frames, kernel first, innermost first
     * @return a new tree; {@code tree} itself when there are no frames
     */
    public static List<Node> withStacks(List<Node> tree, List<StackFrame> frames) {
        if (frames.isEmpty()) {
            return tree;
        }
        List<Node> out = new ArrayList<>(tree);
        int at = out.isEmpty() ? 0 : out.size() - 1; // before "Kernel text"
        for (String kind : List.of("kernel", "user")) {
            List<Node> lines = new ArrayList<>();
            for (StackFrame f : frames) {
                if (f.kind().equals(kind)) {
                    String address = "0x" + Long.toHexString(f.address());
                    String func = f.func() == null ? address : f.func();
                    String where = f.module() == null ? address
                            : address + " in " + f.module().substring(f.module().lastIndexOf('/') + 1);
                    lines.add(new Node("=> " + func + "   (" + where + ")", "", null, List.of()));
                }
            }
            if (!lines.isEmpty()) {
                out.add(at++, new Node(kind.equals("kernel") ? "Kernel stack" : "User stack",
                        lines.size() + (lines.size() == 1 ? " frame" : " frames"), null, lines));
            }
        }
        return out;
    }

    /** Longest kernel text split into fields (a bound on the matching's work). */
    static final int MAX_SPLIT = 8192;

    private final Map<EventFormat, Splitter> splitters = new IdentityHashMap<>();

    /**
     * The tree of one row.
     *
     * @param row      the row
     * @param record   its record (the row's own, or rebuilt from its fields), null when unknown
     * @param timeText the time as the table shows it
     * @return the top-level nodes: "Event", "Common fields", the event's fields, "Kernel text"
     */
    public List<Node> of(EventRow row, EventRecord record, String timeText) {
        List<Node> top = new ArrayList<>();
        top.add(Node.leaf("Event", row.event() + (row.frame() > 0 ? "  (frame " + row.frame() + ")" : ""), null));
        List<Node> common = new ArrayList<>();
        common.add(Node.leaf("time", timeText, Long.toString(row.ts())));
        common.add(Node.leaf("cpu", Integer.toString(row.cpu()), null));
        common.add(Node.leaf("pid", Integer.toString(row.pid()), null));
        common.add(Node.leaf("comm", row.comm() == null ? "" : row.comm(), null));
        if (record != null) {
            int flags = record.flags();
            int preempt = record.preemptCount();
            common.add(new Node("flags", LatencyFormat.format(flags, preempt), null, List.of(
                    Node.leaf("common_flags", String.format("0x%x", flags), Integer.toString(flags)),
                    Node.leaf("common_preempt_count", String.format("0x%x", preempt), Integer.toString(preempt)))));
        }
        top.add(new Node("Common fields", "", null, common));
        String name = row.event().substring(row.event().indexOf(':') + 1);
        String text = row.text() == null ? "" : row.text();
        // the row's text is the kernel's after the time column: "name: " and the print fmt's output
        String printed = text.startsWith(name + ": ") ? text.substring(name.length() + 2) : text;
        Map<String, String> texts = record == null ? Map.of() : splitter(record).texts(printed);
        List<Node> own = new ArrayList<>();
        EventFormat format = record == null ? null : record.format();
        if (format != null) {
            for (Field f : format.fields()) {
                if (!f.common()) {
                    own.add(field(f.name(), texts.get(f.name()), row.fields().get(f.name())));
                }
            }
        } else {
            row.fields().forEach((k, v) -> own.add(field(k, null, v)));
        }
        top.add(new Node(name + " fields", "", null, own));
        top.add(Node.leaf("Kernel text", text, null));
        return top;
    }

    private static Node field(String name, String kernel, Object raw) {
        String r = raw == null ? "?" : raw.toString();
        return kernel == null ? Node.leaf(name, r, null) : Node.leaf(name, kernel, r);
    }

    private Splitter splitter(EventRecord record) {
        return splitters.computeIfAbsent(record.format(), f -> Splitter.of(f, record));
    }

    /** Splits one event's kernel text into its fields' pieces. */
    private record Splitter(List<Pattern> patterns, List<List<String>> fieldOfGroup) {
        Map<String, String> texts(String text) {
            if (text == null || text.length() > MAX_SPLIT) {
                return Map.of();
            }
            for (int p = 0; p < patterns.size(); p++) {
                Matcher m = patterns.get(p).matcher(text);
                if (m.matches()) {
                    Map<String, String> out = new HashMap<>();
                    List<String> names = fieldOfGroup.get(p);
                    for (int g = 0; g < names.size(); g++) {
                        if (names.get(g) != null && !out.containsKey(names.get(g))) {
                            out.put(names.get(g), m.group(g + 1));
                        }
                    }
                    return out;
                }
            }
            return Map.of();
        }

        static Splitter of(EventFormat f, EventRecord record) {
            List<Pattern> patterns = new ArrayList<>();
            List<List<String>> names = new ArrayList<>();
            List<Field> own = f.fields().stream().filter(x -> !x.common()).toList();
            if (SyscallText.handles(f)) {
                // "sys_openat(dfd: 0xffffff9c, filename: 0x5649…)" and "sys_openat -> 0x3"
                StringBuilder re = new StringBuilder("[^(]*\\(");
                List<String> g = new ArrayList<>();
                for (Field x : own) {
                    if (x.name().equals("__syscall_nr")) {
                        continue;
                    }
                    re.append(g.isEmpty() ? "" : ", ").append(Pattern.quote(x.name())).append(": (.*?)");
                    g.add(x.name());
                }
                patterns.add(Pattern.compile(re.append("\\)").toString(), Pattern.DOTALL));
                names.add(g);
                patterns.add(Pattern.compile(".* -> (.*)", Pattern.DOTALL));
                names.add(List.of(own.get(own.size() - 1).name()));
                return new Splitter(patterns, names);
            }
            EventPrinter printer = EventPrinter.compile(f, record.layout());
            if (!printer.isFallback()) {
                addPrintFmt(printer.printFmt(), own, patterns, names);
            }
            // the name=value text EventPrinter.fallbackText writes when the print fmt is not used
            StringBuilder re = new StringBuilder();
            List<String> g = new ArrayList<>();
            for (Field x : own) {
                re.append(g.isEmpty() ? "" : " ").append(Pattern.quote(x.name() + "=")).append("(.*?)");
                g.add(x.name());
            }
            patterns.add(Pattern.compile(re.toString(), Pattern.DOTALL));
            names.add(g);
            return new Splitter(patterns, names);
        }

        /**
         * The print fmt's literals quoted and its conversions as groups. A group names the field its
         * conversion's arguments read when they read exactly one; conversions next to each other
         * that read the same field are one group (sched_switch's {@code prev_state=%s%s}); next to
         * a conversion of another field, the split is not known and both groups name none.
         */
        private static void addPrintFmt(PrintFmt pf, List<Field> own, List<Pattern> patterns, List<List<String>> names) {
            Set<String> ownNames = new LinkedHashSet<>();
            own.forEach(x -> ownNames.add(x.name()));
            StringBuilder re = new StringBuilder();
            List<String> g = new ArrayList<>();
            boolean afterConversion = false;
            int ai = 0;
            for (FormatSegment seg : pf.segments()) {
                if (seg instanceof FormatSegment.Literal lit) {
                    re.append(Pattern.quote(lit.text()));
                    afterConversion = lit.text().isEmpty() && afterConversion;
                    continue;
                }
                FormatSegment.Conversion c = (FormatSegment.Conversion) seg;
                Set<String> refs = new LinkedHashSet<>();
                for (int k = 0; k < c.argumentCount() && ai + k < pf.args().size(); k++) {
                    Expr.fieldRefs(pf.args().get(ai + k), ownNames, refs);
                }
                ai += c.argumentCount();
                String field = refs.size() == 1 ? refs.iterator().next() : null;
                if (afterConversion) {
                    String last = g.get(g.size() - 1);
                    if (field == null || !field.equals(last)) {
                        g.set(g.size() - 1, null);
                        re.append("(.*?)");
                        g.add(null);
                    }
                } else {
                    re.append("(.*?)");
                    g.add(field);
                }
                afterConversion = true;
            }
            patterns.add(Pattern.compile(re.toString(), Pattern.DOTALL));
            names.add(g);
        }

    }
}
