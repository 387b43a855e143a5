package org.tracewire.dissector;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.tracewire.format.CTypes;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatIdentity;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.EventPrinter;
import org.tracewire.printfmt.Expr;
import org.tracewire.printfmt.PrintFmt;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.tracetext.SyscallText;

/**
 * Generates the self-contained Wireshark Lua plugin: the hand-written runtime
 * ({@code lua/tracewire.lua}, embedded as a resource) with per-event tables inserted between its
 * {@code EVENT TABLES} markers. Per event: one ProtoField per own field
 * ({@code tracewire.<system>.<event>.<field>}, typed by kind, size and sign; pointers in hex),
 * value strings from {@code __print_symbolic}, bit fields from {@code __print_flags}, and the print
 * fmt compiled to a Lua table ({@link PrintFmtLua}) or, when {@link EventPrinter#isFallback()},
 * {@code nil} with a comment saying why (the runtime then shows name=value pairs).
 *
 * <p>Output is deterministic: events sorted by id, no dates; the header names the format identity
 * hash of the whole catalog (what senders put into frames). Every string from a format file passes
 * through {@link LuaWriter#string}.
 */
public final class DissectorGenerator {
    /** Resource path of the runtime inside this module's jar. */
    public static final String RUNTIME_RESOURCE = "/org/tracewire/dissector/lua/tracewire.lua";
    static final String BEGIN = "-- ======================== EVENT TABLES BEGIN ========================\n";
    static final String END = "-- ======================== EVENT TABLES END ==========================\n";

    private final FormatCatalog catalog;
    private final KernelLayout layout;
    private final String sourceLabel;
    private KernelEnums enums = KernelEnums.empty();

    /**
     * @param catalog     all formats of the tracefs (the identity hash is taken over all of them)
     * @param layout      the traced kernel's byte order and long size
     * @param sourceLabel where the formats came from, for the header (e.g. a path)
     */
    public DissectorGenerator(FormatCatalog catalog, KernelLayout layout, String sourceLabel) {
        this.catalog = catalog;
        this.layout = layout;
        this.sourceLabel = sourceLabel;
    }

    /**
     * Uses the traced kernel's enum constants (from its BTF) for identifiers the kernel left
     * unresolved in print fmts; without them only a few ABI-stable constants are known.
     *
     * @return this generator
     */
    public DissectorGenerator withEnums(KernelEnums kernelEnums) {
        this.enums = kernelEnums == null ? KernelEnums.empty() : kernelEnums;
        return this;
    }

    /** The hand-written runtime, as embedded in this module. */
    public static String runtime() {
        try (InputStream in = DissectorGenerator.class.getResourceAsStream(RUNTIME_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("runtime resource " + RUNTIME_RESOURCE + " missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What one generation produced. */
    /**
     * @param lua            the plugin text
     * @param events         events with tables
     * @param fields         generated ProtoFields (event fields and flag bits)
     * @param fallbackEvents events whose Info column is name=value pairs
     * @param formatHash     the catalog's format identity hash
     * @param abbreviations  per event ({@code system:event}) the abbreviation of each own field, in order
     */
    public record Result(String lua, int events, int fields, int fallbackEvents, long formatHash,
                         Map<String, List<String>> abbreviations) {
    }

    /** Generates the plugin for all formats of the catalog. */
    public Result generateAll() {
        return generate(catalog.formats());
    }

    /**
     * Generates the plugin for a selection of the catalog's formats.
     *
     * @param selection the events to generate tables for (others are still shown generically)
     */
    public Result generate(List<EventFormat> selection) {
        long hash = FormatIdentity.of(catalog);
        List<EventFormat> events = new ArrayList<>(selection);
        events.sort(Comparator.comparingInt(EventFormat::id).thenComparing(EventFormat::fullName));
        String rt = runtime();
        int b = rt.indexOf(BEGIN);
        int e = rt.indexOf(END);
        if (b < 0 || e < b) {
            throw new IllegalStateException("runtime lacks the EVENT TABLES markers");
        }
        FieldNames names = new FieldNames(Set.of());
        StringBuilder tables = new StringBuilder(1 << 20);
        int fields = 0;
        int fallbacks = 0;
        Set<Integer> seen = new java.util.HashSet<>();
        Map<String, List<String>> abbreviations = new LinkedHashMap<>();
        for (EventFormat f : events) {
            if (!seen.add(f.id())) {
                tables.append("-- skipped: duplicate event id ").append(f.id()).append(' ')
                        .append(LuaWriter.string(f.fullName())).append('\n');
                continue;
            }
            List<String> abbrevs = new ArrayList<>();
            abbreviations.put(f.fullName(), abbrevs);
            EventOut o = event(f, names, abbrevs);
            tables.append(o.text);
            fields += o.fields;
            fallbacks += o.fallback ? 1 : 0;
        }
        StringBuilder out = new StringBuilder(rt.length() + tables.length() + 1024);
        out.append("-- tracewire Wireshark dissector. GENERATED by tracewire dissector-gen")
                .append(" (org.tracewire.dissector.DissectorGenerator): do not edit, regenerate.\n");
        out.append("-- format identity hash: ").append(FormatIdentity.hex(hash)).append('\n');
        out.append("-- events: ").append(seen.size()).append(" of ").append(catalog.formats().size())
                .append(", generated fields: ").append(fields).append(", name=value fallbacks: ").append(fallbacks)
                .append('\n');
        out.append("-- source: ").append(LuaWriter.string(sourceLabel)).append('\n');
        out.append("-- Runs on Wireshark 4.0 (Lua 5.2) and 4.4+ (Lua 5.4). Wire format: docs/wire-format.md.\n\n");
        String head = rt.substring(0, b);
        head = replaceOnce(head, "local TW_GEN_HASH = nil\n",
                "local TW_GEN_HASH = " + LuaWriter.string(FormatIdentity.hex(hash)) + "\n");
        head = replaceOnce(head, "local TW_LONG_SIZE = 8\n", "local TW_LONG_SIZE = " + layout.longSize() + "\n");
        head = replaceOnce(head, "local TW_GEN_SOURCE = \"runtime only (no event tables)\"\n",
                "local TW_GEN_SOURCE = " + LuaWriter.string(sourceLabel) + "\n");
        out.append(head).append(BEGIN).append(tables).append(rt.substring(e));
        return new Result(out.toString(), seen.size(), fields, fallbacks, hash,
                java.util.Collections.unmodifiableMap(abbreviations));
    }

    private static String replaceOnce(String s, String what, String with) {
        int i = s.indexOf(what);
        if (i < 0) {
            throw new IllegalStateException("runtime lacks: " + what.trim());
        }
        return s.substring(0, i) + with + s.substring(i + what.length());
    }

    private record EventOut(String text, int fields, boolean fallback) {
    }

    private EventOut event(EventFormat f, FieldNames names, List<String> abbrevs) {
        StringBuilder sb = new StringBuilder(512);
        String prefix = FieldNames.eventPrefix(f.system(), f.name());
        EventPrinter printer = EventPrinter.compile(f, layout);
        String pfLua = null;
        String reason = printer.fallbackReason();
        Map<String, Map<Long, String>> symbolic = new LinkedHashMap<>();
        Map<String, Map<Long, String>> flagTables = new LinkedHashMap<>();
        if (!printer.isFallback()) {
            try {
                pfLua = new PrintFmtLua(f, layout.longSize(), enums).compile(printer.printFmt());
                collectTables(printer.printFmt(), symbolic, flagTables);
            } catch (PrintFmtLua.TooComplex ex) {
                reason = ex.getMessage();
            }
        }
        sb.append("-- ").append(LuaWriter.string(f.fullName())).append('\n');
        if (pfLua == null) {
            sb.append("-- Info: name=value pairs, the print fmt is not reproduced: ")
                    .append(LuaWriter.string(reason)).append('\n');
        }
        sb.append("EV(").append(f.id()).append(',').append(LuaWriter.string(f.system())).append(',')
                .append(LuaWriter.string(f.name())).append(",{\n");
        int count = 0;
        for (Field fl : f.fields()) {
            String abbrev = names.unique(prefix, fl.name());
            abbrevs.add(abbrev);
            count++;
            String[] type = protoType(fl);
            sb.append(" {").append(LuaWriter.string(fl.name())).append(',').append(kindNumber(fl.kind())).append(',')
                    .append(fl.size()).append(',').append(LuaWriter.bool(fl.signed())).append(',')
                    .append(elementSize(fl)).append(',').append(LuaWriter.string(fallbackStyle(fl))).append(',')
                    .append(LuaWriter.string(abbrev)).append(',').append(LuaWriter.string(type[0])).append(',')
                    .append(LuaWriter.string(type[1]));
            boolean smallInt = fl.kind() == FieldKind.INTEGER && (fl.size() == 1 || fl.size() == 2 || fl.size() == 4);
            Map<Long, String> vs = smallInt ? symbolic.get(fl.name()) : null;
            Map<Long, String> fb = smallInt ? flagTables.get(fl.name()) : null;
            if (vs != null || fb != null) {
                sb.append(',');
                if (vs != null && !vs.isEmpty()) {
                    sb.append('{');
                    boolean first = true;
                    for (Map.Entry<Long, String> en : new TreeMap<>(vs).entrySet()) {
                        long k = extend(en.getKey(), fl.size(), fl.signed());
                        if (!first) {
                            sb.append(',');
                        }
                        first = false;
                        sb.append('[').append(k).append("]=").append(LuaWriter.string(en.getValue()));
                    }
                    sb.append('}');
                } else {
                    sb.append("nil");
                }
                if (fb != null && !fb.isEmpty()) {
                    sb.append(",{");
                    boolean first = true;
                    long fieldMask = fl.size() == 4 ? 0xffffffffL : (1L << (8 * fl.size())) - 1;
                    for (Map.Entry<Long, String> en : fb.entrySet()) {
                        long mask = en.getKey() & fieldMask;
                        if (mask == 0) {
                            continue;
                        }
                        if (!first) {
                            sb.append(',');
                        }
                        first = false;
                        count++;
                        sb.append('{').append(LuaWriter.string(names.unique(abbrev, en.getValue()))).append(',')
                                .append(LuaWriter.string(en.getValue())).append(',').append(mask).append(',')
                                .append(LuaWriter.bool(Long.bitCount(mask) == 1)).append('}');
                    }
                    sb.append('}');
                }
            }
            sb.append("},\n");
        }
        sb.append("},");
        sb.append(pfLua == null ? "nil" : "function() return " + pfLua + " end");
        sb.append(',').append(LuaWriter.bool(SyscallText.handles(f))).append(")\n");
        return new EventOut(sb.toString(), count, pfLua == null);
    }

    private static long extend(long v, int size, boolean signed) {
        return switch (size) {
            case 1 -> signed ? (byte) v : v & 0xffL;
            case 2 -> signed ? (short) v : v & 0xffffL;
            case 4 -> signed ? (int) v : v & 0xffffffffL;
            default -> v;
        };
    }

    /** Value strings and flag tables of {@code __print_symbolic} / {@code __print_flags} on a plain field. */
    private static void collectTables(PrintFmt pf, Map<String, Map<Long, String>> symbolic,
                                      Map<String, Map<Long, String>> flags) {
        for (Expr e : pf.args()) {
            walk(e, symbolic, flags);
        }
    }

    private static void walk(Expr e, Map<String, Map<Long, String>> symbolic, Map<String, Map<Long, String>> flags) {
        if (e instanceof Expr.Call c) {
            boolean sym = c.name().equals("__print_symbolic");
            boolean fl = c.name().equals("__print_flags");
            if ((sym || fl) && !c.args().isEmpty()) {
                Expr v = c.args().get(0);
                while (v instanceof Expr.Cast cast) {
                    v = cast.operand();
                }
                if (v instanceof Expr.FieldRef f && f.field() != null) {
                    Map<Long, String> table = new LinkedHashMap<>();
                    for (int i = sym ? 1 : 2; i < c.args().size(); i++) {
                        if (c.args().get(i) instanceof Expr.Braced b && b.items().size() == 2
                                && b.items().get(0) instanceof Expr.IntLit k && b.items().get(1) instanceof Expr.StrLit s
                                && !s.value().isEmpty()) {
                            table.putIfAbsent(k.value(), s.value());
                        }
                    }
                    if (!table.isEmpty()) {
                        (sym ? symbolic : flags).putIfAbsent(f.name(), table);
                    }
                }
            }
            for (Expr a : c.args()) {
                walk(a, symbolic, flags);
            }
        } else if (e instanceof Expr.Ternary t) {
            walk(t.cond(), symbolic, flags);
            walk(t.then(), symbolic, flags);
            walk(t.otherwise(), symbolic, flags);
        } else if (e instanceof Expr.Binary b) {
            walk(b.left(), symbolic, flags);
            walk(b.right(), symbolic, flags);
        } else if (e instanceof Expr.Cast c) {
            walk(c.operand(), symbolic, flags);
        } else if (e instanceof Expr.Unary u) {
            walk(u.operand(), symbolic, flags);
        }
    }

    static int kindNumber(FieldKind k) {
        return switch (k) {
            case INTEGER -> 1;
            case POINTER -> 2;
            case CHAR_ARRAY -> 3;
            case ARRAY -> 4;
            case DYNAMIC_STRING -> 5;
            case DYNAMIC_ARRAY -> 6;
            case DYNAMIC_CPUMASK -> 7;
            case OPAQUE -> 8;
        };
    }

    private static int elementSize(Field f) {
        try {
            return Math.max(1, f.elementSize());
        } catch (RuntimeException e) {
            return 1;
        }
    }

    /** The runtime's ProtoField type and base for a field: {@code {"u32","dec"}}, {@code {"str",""}}, … */
    static String[] protoType(Field f) {
        int s = f.size();
        boolean scalar = s == 1 || s == 2 || s == 4 || s == 8;
        return switch (f.kind()) {
            case INTEGER -> scalar ? new String[] {(f.signed() ? "i" : "u") + (8 * s), "dec"} : new String[] {"bytes", ""};
            case POINTER -> scalar ? new String[] {"u" + (8 * s), "hex"} : new String[] {"bytes", ""};
            case CHAR_ARRAY, DYNAMIC_STRING -> new String[] {"str", ""};
            default -> new String[] {"bytes", ""};
        };
    }

    /** How {@code EventPrinter.fallbackText} prints the field: s, p, x, d, u or a. */
    static String fallbackStyle(Field f) {
        switch (f.kind()) {
            case CHAR_ARRAY, DYNAMIC_STRING -> {
                return "s";
            }
            case POINTER -> {
                return "p";
            }
            case INTEGER -> {
                if (f.size() != 1 && f.size() != 2 && f.size() != 4 && f.size() != 8) {
                    return "a";
                }
                String t = CTypes.normalize(f.type());
                if (t.equals("long") || t.equals("unsigned long") || t.equals("long int")
                        || t.equals("long unsigned int") || t.equals("unsigned long int") || t.equals("signed long")) {
                    return "x";
                }
                return f.signed() ? "d" : "u";
            }
            default -> {
                return "a";
            }
        }
    }
}
