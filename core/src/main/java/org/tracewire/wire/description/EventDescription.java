package org.tracewire.wire.description;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.tracewire.format.CTypes;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.CInt;
import org.tracewire.printfmt.EventPrinter;
import org.tracewire.printfmt.Expr;
import org.tracewire.printfmt.FormatSegment;
import org.tracewire.printfmt.PrintFmt;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.tracetext.SyscallText;

/**
 * The description of one event for the Wireshark dissector: its fields (name, payload offset, size,
 * sign, kind, ProtoField type, array and {@code __data_loc}/{@code __rel_loc} information) and its
 * print fmt compiled to the dissector's expression tables ({@link PrintFmtLua}). It is the one model
 * behind both forms the dissector reads:
 * <ul>
 *   <li>the generated plugin's {@code EV { ... }} table per event ({@code org.tracewire.dissector.DissectorGenerator}, Lua
 *       source, with the ProtoField keys {@code abbrev}, {@code values} and {@code bits} added), and</li>
 *   <li>the binary description tree a capture carries in-band (docs/wire-format.md §4.6, FORMAT item
 *       4), made by {@link #encode}, from which the runtime decodes an event its tables do not know.</li>
 * </ul>
 * The schema (keys, kinds, expression nodes) is documented in docs/dissector.md, "Event description".
 *
 * <p>Pure computation on the format: no I/O, no GUI, no global state; about the cost of compiling the
 * event's print fmt once (tens of microseconds for a typical event).
 */
public final class EventDescription {
    /** Deepest table nesting a receiver accepts (docs/wire-format.md §4.6). */
    public static final int MAX_DEPTH = 64;

    private EventDescription() {
    }

    /**
     * The binary description tree of an event (docs/wire-format.md §4.6): a table (tag 0x05) with
     * the keys {@code id}, {@code system}, {@code name}, {@code syscall} (present and true when the
     * kernel prints the event as a syscall), {@code fields} (a list, one table per own field:
     * {@code name}, {@code kind}, {@code offset}, {@code size}, {@code signed}, {@code rel},
     * {@code elem_size}, {@code ftype}, {@code base}, {@code fallback}), and either {@code print}
     * (the compiled print fmt: {@code {format = {...}, args = {...}}}) or {@code print_fallback} (why
     * the print fmt is not reproduced; the dissector then shows name=value pairs). All integers are
     * s64, everything big-endian.
     *
     * @param format   the event's format (common fields are not described: the payload starts with
     *                 the kernel's {@code struct trace_entry} at fixed offsets)
     * @param longSize the traced kernel's {@code sizeof(long)}: 4 or 8
     * @param enums    the traced kernel's enum constants (BTF) for names its print fmt leaves
     *                 unresolved; null for none (such names then stay {@code {ident = NAME}} nodes
     *                 the dissector resolves from the capture's context)
     * @return the encoded tree, at most {@link #MAX_DEPTH} tables deep
     * @throws IllegalArgumentException when longSize is not 4 or 8
     */
    public static byte[] encode(EventFormat format, int longSize, KernelEnums enums) {
        Model m = model(format, longSize, enums, null, null);
        LuaTable ev = m.event();
        // the event table, its print table and the args list hold the expressions: 3 levels
        if (m.print() != null && m.print().depth() + 1 <= MAX_DEPTH) {
            ev.set("print", m.print());
        } else {
            ev.str("print_fallback", m.print() != null
                    ? "the compiled print fmt nests deeper than " + MAX_DEPTH + " tables" : m.reason());
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            ev.encode(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * An event's tables (internal).
     *
     * @param event    the event table without its print function
     * @param print    the print table ({@code {format, args}}), or null when the print fmt is not reproduced
     * @param reason   why not (null when print is present)
     * @param compiler the compiler that made print (renders it as the plugin's function)
     * @param fields   ProtoFields the table defines (own fields and flag bits; 0 without names)
     */
    public record Model(LuaTable event, LuaTable print, String reason, PrintFmtLua compiler, int fields) {
    }

    /**
     * Builds an event's tables.
     *
     * @param names   when not null, ProtoField keys are added ({@code abbrev}, {@code values},
     *                {@code bits}) with abbreviations made unique through it
     * @param abbrevs receives the abbreviation of each own field, in order (with names only)
     */
    public static Model model(EventFormat f, int longSize, KernelEnums enums, FieldNames names, List<String> abbrevs) {
        if (longSize != 4 && longSize != 8) {
            throw new IllegalArgumentException("long size " + longSize + " is not 4 or 8");
        }
        EventPrinter printer = EventPrinter.compile(f, new KernelLayout(ByteOrder.LITTLE_ENDIAN, longSize));
        PrintFmtLua compiler = new PrintFmtLua(f, longSize, enums);
        LuaTable print = null;
        String reason = printer.fallbackReason();
        Map<String, Map<Long, String>> symbolic = new LinkedHashMap<>();
        Map<String, Map<Long, String>> flagTables = new LinkedHashMap<>();
        Set<String> texts = Set.of();
        if (!printer.isFallback()) {
            try {
                print = compiler.table(printer.printFmt());
                collectTables(printer.printFmt(), symbolic, flagTables);
                if (!SyscallText.handles(f)) {
                    texts = textFields(printer.printFmt(), f);
                }
            } catch (PrintFmtLua.TooComplex ex) {
                reason = ex.getMessage();
            }
        }
        LuaTable ev = LuaTable.vertical().num("id", f.id()).str("system", f.system()).str("name", f.name());
        if (SyscallText.handles(f)) {
            ev.bool("syscall", true);
        }
        String prefix = FieldNames.eventPrefix(f.system(), f.name());
        LuaTable fields = LuaTable.vertical();
        int count = 0;
        for (Field fl : f.fields()) {
            String[] type = protoType(fl);
            LuaTable spec = layoutSpec(fl);
            String abbrev = null;
            if (names != null) {
                abbrev = names.unique(prefix, fl.name());
                abbrevs.add(abbrev);
                count++;
                spec.str("abbrev", abbrev);
            }
            spec.str("ftype", type[0]);
            if (type[1].equals("hex")) {
                spec.str("base", "hex");
            }
            spec.str("fallback", fallbackStyle(fl));
            if (names != null && texts.contains(fl.name())) {
                spec.str("text", names.unique(abbrev, "text"));
                count++;
            }
            if (names != null) {
                count += protoFieldTables(fl, spec, abbrev, names, symbolic, flagTables);
            }
            fields.add(spec);
        }
        ev.set("fields", fields);
        return new Model(ev, print, print == null ? reason : null, compiler, count);
    }

    /** A field's place in the record: name, kind, offset, size, signedness, relative location, element size. */
    private static LuaTable layoutSpec(Field fl) {
        LuaTable spec = LuaTable.inline().str("name", fl.name()).str("kind", kindName(fl.kind()))
                .num("offset", fl.offset()).num("size", fl.size());
        if (fl.signed()) {
            spec.bool("signed", true);
        }
        if (fl.relative()) {
            spec.bool("rel", true);
        }
        if (fl.kind() != FieldKind.INTEGER && fl.kind() != FieldKind.POINTER && fl.kind() != FieldKind.CHAR_ARRAY) {
            spec.num("elem_size", elementSize(fl));
        }
        return spec;
    }

    /** Adds {@code values} and {@code bits}; returns the number of bit ProtoFields. */
    private static int protoFieldTables(Field fl, LuaTable spec, String abbrev, FieldNames names,
                                        Map<String, Map<Long, String>> symbolic, Map<String, Map<Long, String>> flagTables) {
        boolean smallInt = fl.kind() == FieldKind.INTEGER && (fl.size() == 1 || fl.size() == 2 || fl.size() == 4);
        Map<Long, String> vs = smallInt ? symbolic.get(fl.name()) : null;
        Map<Long, String> fb = smallInt ? flagTables.get(fl.name()) : null;
        int count = 0;
        if (vs != null && !vs.isEmpty()) {
            LuaTable values = LuaTable.vertical();
            for (Map.Entry<Long, String> en : new TreeMap<>(vs).entrySet()) {
                values.at(CInt.extend(en.getKey(), fl.size(), fl.signed()), en.getValue());
            }
            spec.set("values", values);
        }
        if (fb != null && !fb.isEmpty()) {
            LuaTable bits = LuaTable.vertical();
            long fieldMask = fl.size() == 4 ? 0xffffffffL : (1L << (8 * fl.size())) - 1;
            for (Map.Entry<Long, String> en : fb.entrySet()) {
                long mask = en.getKey() & fieldMask;
                if (mask == 0) {
                    continue;
                }
                count++;
                bits.add(LuaTable.inline().str("abbrev", names.unique(abbrev, en.getValue()))
                        .str("name", en.getValue()).hex("mask", mask));
            }
            if (!bits.isEmpty()) {
                spec.set("bits", bits);
            }
        }
        return count;
    }


    /**
     * The fields that get a text ProtoField ({@code <abbrev>.text}, the field as the kernel's text
     * prints it): those a conversion of the print fmt shows alone (its arguments, with {@code *}
     * ones, read that field and no other) other than as the plain number or string ({@code %d %i %u
     * %x %X %o} or a bare {@code %p} of an integer field, casts aside; {@code %s} of a string field
     * or of {@code __get_str}): through {@code __print_symbolic}/{@code __print_flags}, an
     * expression (sched_switch's {@code prev_state}), {@code %pS}/{@code %ps} symbols and the like.
     * The runtime fills it from the same conversions (fieldruns in lua/runtime/50-print-tables.lua); it shows the
     * other bases in the item's text without a field of their own. None for events the kernel prints as
     * syscalls ({@link SyscallText}: their text does not come from the print fmt).
     */
    static Set<String> textFields(PrintFmt pf, EventFormat f) {
        Set<String> own = new HashSet<>();
        for (Field fl : f.fields()) {
            own.add(fl.name());
        }
        Set<String> out = new TreeSet<>();
        int ai = 0;
        for (FormatSegment seg : pf.segments()) {
            if (!(seg instanceof FormatSegment.Conversion c)) {
                continue;
            }
            Set<String> refs = new HashSet<>();
            for (int k = 0; k < c.argumentCount() && ai + k < pf.args().size(); k++) {
                Expr.fieldRefs(pf.args().get(ai + k), own, refs);
            }
            int vi = ai + c.argumentCount() - 1;
            Expr value = vi < pf.args().size() ? pf.args().get(vi) : null;
            ai += c.argumentCount();
            if (refs.size() == 1 && !plain(c, value, f.field(refs.iterator().next()))) {
                out.add(refs.iterator().next());
            }
        }
        return out;
    }

    private static boolean plain(FormatSegment.Conversion c, Expr value, Field fl) {
        char conv = c.conversion();
        boolean string = fl.kind() == FieldKind.CHAR_ARRAY || fl.kind() == FieldKind.DYNAMIC_STRING;
        while (value instanceof Expr.Cast cast && !string) {
            value = cast.operand();
        }
        if (value instanceof Expr.FieldRef r && r.name().equals(fl.name())) {
            // a number in another base (%x %o, %p without extension) filters as the value itself
            return string ? conv == 's' : conv == 'd' || conv == 'i' || conv == 'u' || conv == 'x' || conv == 'X'
                    || conv == 'o' || (conv == 'p' && c.extension().isEmpty());
        }
        return conv == 's' && value instanceof Expr.Call call
                && (call.name().equals("__get_str") || call.name().equals("__get_rel_str"));
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

    /** The runtime's name of a field kind ({@code KINDS} in {@code lua/runtime/60-events.lua}). */
    public static String kindName(FieldKind k) {
        return switch (k) {
            case INTEGER -> "int";
            case POINTER -> "pointer";
            case CHAR_ARRAY -> "char_array";
            case ARRAY -> "array";
            case DYNAMIC_STRING -> "dynamic_string";
            case DYNAMIC_ARRAY -> "dynamic_array";
            case DYNAMIC_CPUMASK -> "dynamic_cpumask";
            case OPAQUE -> "opaque";
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
    public static String[] protoType(Field f) {
        int s = f.size();
        boolean scalar = s == 1 || s == 2 || s == 4 || s == 8;
        return switch (f.kind()) {
            case INTEGER -> scalar ? new String[] {(f.signed() ? "i" : "u") + (8 * s), "dec"} : new String[] {"bytes", ""};
            case POINTER -> scalar ? new String[] {"u" + (8 * s), "hex"} : new String[] {"bytes", ""};
            case CHAR_ARRAY, DYNAMIC_STRING -> new String[] {"str", ""};
            default -> new String[] {"bytes", ""};
        };
    }

    /**
     * How {@code EventPrinter.fallbackText} prints the field: string, pointer, hex (a C long),
     * signed, unsigned or bytes.
     */
    static String fallbackStyle(Field f) {
        switch (f.kind()) {
            case CHAR_ARRAY, DYNAMIC_STRING -> {
                return "string";
            }
            case POINTER -> {
                return "pointer";
            }
            case INTEGER -> {
                if (f.size() != 1 && f.size() != 2 && f.size() != 4 && f.size() != 8) {
                    return "bytes";
                }
                String t = CTypes.normalize(f.type());
                if (t.equals("long") || t.equals("unsigned long") || t.equals("long int")
                        || t.equals("long unsigned int") || t.equals("unsigned long int") || t.equals("signed long")) {
                    return "hex";
                }
                return f.signed() ? "signed" : "unsigned";
            }
            default -> {
                return "bytes";
            }
        }
    }
}
