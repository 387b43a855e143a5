package org.tracewire.wire.description;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.tracewire.format.CTypes;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.printfmt.CInt;
import org.tracewire.printfmt.CType;
import org.tracewire.printfmt.Expr;
import org.tracewire.printfmt.FormatSegment;
import org.tracewire.printfmt.PrintFmt;
import org.tracewire.symbols.KernelEnums;

/**
 * Compiles a parsed print fmt ({@link PrintFmt}) into the Lua the runtime evaluates
 * ({@code lua/runtime/40-evaluator.lua}): a function returning
 * {@code {format = {...}, args = {...}}}. A format entry is literal text or a conversion
 * {@code {conv = "d", flags = "-0", width = 8, precision = 2, size = 8, ext = "S", text = "%-08.2lld"}}
 * (absent keys: no flags, no width/precision, a 4-byte argument, no {@code %p} extension; {@code "*"}
 * takes a width or precision from the arguments). An argument is an expression node: a number (a
 * C {@code int} constant), a string (a string literal), {@code {int = V, type = "u64"}} (another
 * constant; V a number or a {@code "0x"} hex string), {@code {field = "name"}}, {@code {error = "why"}},
 * {@code {op = "+", a, b}} (also unary {@code {op = "-", a}}, {@code "[]"}, {@code "?:"},
 * {@code "sizeof"}), {@code {cast = "u32", a}} ({@code "bool"}, {@code "void"}, {@code "unknown"},
 * {@code {cast = "pointer", to = "s8", a}}), {@code {call = "name", args..., entries = {...}}} (the
 * {@code { value, name }} tables of {@code __print_flags}/{@code __print_symbolic}), or a plain list
 * (a brace initializer). Types are {@code s}/{@code u} and a bit count.
 *
 * <p>Everything the kernel fixes at compile time is resolved here: casts and {@code sizeof} to sizes
 * for the kernel's long size, known enum constants to values, and constant subexpressions folded
 * with the runtime's C semantics. Subtrees that occur more than once become locals of the function
 * ({@code flags_prev_state}, {@code expr_prev_state}, …). What cannot be resolved becomes an error
 * node, so that a record needing it is shown as name=value pairs, as {@code EventPrinter} does. All
 * text goes through {@link LuaWriter}. Constants are folded by {@link ConstantFolder}.
 */
public final class PrintFmtLua {
    /** Deepest expression the generator emits (Lua's parser limits nesting to about 200 levels). */
    static final int MAX_DEPTH = 60;
    /** Most shared locals per print fmt (Lua allows 200 locals per function). */
    static final int MAX_LOCALS = 60;
    /** Shortest subtree (one-line source) worth a local; it must also hold a nested table. */
    static final int MIN_SHARED = 30;

    private static final Set<String> FIELD_HELPERS = Set.of("__get_str", "__get_rel_str", "__get_dynamic_array",
            "__get_rel_dynamic_array", "__get_dynamic_array_len", "__get_rel_dynamic_array_len", "__get_bitmask",
            "__get_rel_bitmask", "__get_cpumask", "__get_rel_cpumask", "__get_sockaddr", "__get_rel_sockaddr",
            "__print_dynamic_array");

    private final EventFormat format;
    private final int longSize;
    private final ConstantFolder constants;
    private final Map<LuaTable, String> fieldRefs = new IdentityHashMap<>();

    /**
     * A compiler for one event.
     *
     * @param enums the traced kernel's enum constants (BTF), looked up before the built-in
     *              ABI-stable ones, as {@code Evaluator} does; null for none
     */
    PrintFmtLua(EventFormat format, int longSize, KernelEnums enums) {
        this.format = format;
        this.longSize = longSize;
        this.constants = new ConstantFolder(longSize, enums);
    }

    /** Thrown when the print fmt cannot be emitted (too deep). */
    static final class TooComplex extends RuntimeException {
        TooComplex(String m) {
            super(m);
        }
    }

    /**
     * The print fmt as a table {@code {format = {...}, args = {...}}}: the one model behind the
     * generated plugin's {@code print} functions ({@link #compile}) and the description tree
     * ({@link EventDescription}).
     *
     * @throws TooComplex when an expression nests deeper than {@link #MAX_DEPTH}
     */
    LuaTable table(PrintFmt pf) {
        LuaTable segs = LuaTable.vertical();
        for (FormatSegment s : pf.segments()) {
            if (s instanceof FormatSegment.Literal l) {
                segs.add(LuaValue.Lit.string(l.text()));
            } else {
                segs.add(conversion((FormatSegment.Conversion) s));
            }
        }
        LuaTable args = LuaTable.vertical();
        for (Expr e : pf.args()) {
            args.add(expr(e, 0));
        }
        return LuaTable.vertical().set("format", segs).set("args", args);
    }

    /**
     * The Lua function returning the print fmt's table.
     *
     * @param indent indentation of the line the function starts on
     * @throws TooComplex when an expression nests deeper than {@link #MAX_DEPTH}
     */
    String compile(PrintFmt pf, int indent) {
        return function(table(pf), indent);
    }

    /**
     * The Lua function returning a table made by {@link #table} (of this compiler: shared locals are
     * named after the fields its nodes read).
     */
    public String function(LuaTable table, int indent) {
        LuaTable args = null;
        for (LuaTable t : table.children()) {
            args = t;
        }
        List<LuaTable> shared = share(args);
        Map<String, String> locals = new LinkedHashMap<>();
        String pad = " ".repeat(indent + 2);
        StringBuilder sb = new StringBuilder("function()\n");
        Set<String> used = new HashSet<>();
        for (LuaTable t : shared) {
            String name = t.nameHint != null ? t.nameHint : LuaWriter.name("expr", onlyField(t));
            String unique = name;
            for (int n = 2; !used.add(unique); n++) {
                unique = name + "_" + n;
            }
            String head = pad + "local " + unique + " = ";
            sb.append(head).append(t.render(indent + 2, head.length(), locals)).append('\n');
            locals.put(t.key(), LuaValue.Lit.local(unique).code());
        }
        sb.append(pad).append("return ").append(table.render(indent + 2, pad.length() + 7, locals)).append('\n');
        return sb.append(" ".repeat(indent)).append("end").toString();
    }

    private LuaTable conversion(FormatSegment.Conversion c) {
        LuaTable t = LuaTable.inline().str("conv", String.valueOf(c.conversion()));
        if (!c.flags().isEmpty()) {
            t.str("flags", c.flags());
        }
        if (c.width() == FormatSegment.Conversion.STAR) {
            t.str("width", "*");
        } else if (c.width() >= 0) {
            t.num("width", c.width());
        }
        if (c.precision() == FormatSegment.Conversion.STAR) {
            t.str("precision", "*");
        } else if (c.precision() >= 0) {
            t.num("precision", c.precision());
        }
        int size = qualifierSize(c.qualifier());
        if (size != 4) {
            t.num("size", size);
        }
        if (!c.extension().isEmpty()) {
            t.str("ext", c.extension());
        }
        return t.str("text", c.text());
    }

    private int qualifierSize(String q) {
        return switch (q) {
            case "hh" -> 1;
            case "h" -> 2;
            case "l", "z", "Z", "t" -> longSize;
            case "ll", "L", "j" -> 8;
            default -> 4;
        };
    }

    // ------------------------------------------------------------------ shared subtrees

    /**
     * Chooses the subtrees of the arguments that become locals: largest first, each occurring at
     * least twice where the locals chosen before it do not already cover it, each at least
     * {@link #MIN_SHARED} characters long and holding a nested table.
     *
     * @return the chosen tables, in an order where a local is defined before the locals using it
     */
    private static List<LuaTable> share(LuaTable args) {
        Map<String, LuaTable> chosen = new LinkedHashMap<>();
        while (chosen.size() < MAX_LOCALS) {
            Map<String, Integer> count = new HashMap<>();
            Map<String, LuaTable> first = new LinkedHashMap<>();
            for (LuaTable t : args.children()) {
                countUses(t, chosen, count, first);
            }
            for (LuaTable t : chosen.values()) {
                for (LuaTable c : t.children()) {
                    countUses(c, chosen, count, first);
                }
            }
            LuaTable best = null;
            for (Map.Entry<String, LuaTable> e : first.entrySet()) {
                String k = e.getKey();
                if (count.get(k) >= 2 && !chosen.containsKey(k) && k.length() >= MIN_SHARED
                        && !e.getValue().children().isEmpty() && (best == null || k.length() > best.key().length())) {
                    best = e.getValue();
                }
            }
            if (best == null) {
                break;
            }
            chosen.put(best.key(), best);
        }
        List<LuaTable> order = new ArrayList<>(chosen.values());
        order.sort(Comparator.comparingInt(t -> t.key().length()));
        return order;
    }

    private static void countUses(LuaTable t, Map<String, LuaTable> chosen, Map<String, Integer> count,
                                  Map<String, LuaTable> first) {
        String k = t.key();
        count.merge(k, 1, Integer::sum);
        first.putIfAbsent(k, t);
        if (!chosen.containsKey(k)) {
            for (LuaTable c : t.children()) {
                countUses(c, chosen, count, first);
            }
        }
    }

    /** The one field a subtree reads, or null. */
    private String onlyField(LuaTable t) {
        Set<String> names = new LinkedHashSet<>();
        collectFields(t, names);
        return names.size() == 1 ? names.iterator().next() : null;
    }

    private void collectFields(LuaTable t, Set<String> names) {
        String f = fieldRefs.get(t);
        if (f != null) {
            names.add(f);
        }
        for (LuaTable c : t.children()) {
            collectFields(c, names);
        }
    }

    // ------------------------------------------------------------------ expressions

    private static LuaTable error(String msg) {
        return LuaTable.inline().str("error", msg);
    }

    private int fieldIndex(String name) {
        List<Field> fs = format.fields();
        for (int i = 0; i < fs.size(); i++) {
            if (fs.get(i).name().equals(name)) {
                return i + 1;
            }
        }
        return -1;
    }

    private LuaTable fieldRef(String name) {
        if (fieldIndex(name) < 0) {
            return error((format.field(name) != null ? "common field " : "no field ") + name);
        }
        LuaTable t = LuaTable.inline().str("field", name);
        fieldRefs.put(t, name);
        return t;
    }

    private LuaTable op(String op, LuaValue... operands) {
        LuaTable t = LuaTable.auto().str("op", op);
        for (LuaValue v : operands) {
            t.add(v);
        }
        return t;
    }

    private LuaValue expr(Expr e, int depth) {
        if (depth > MAX_DEPTH) {
            throw new TooComplex("col " + e.column() + ": expression nests deeper than " + MAX_DEPTH);
        }
        CInt c = constants.constant(e);
        if (c != null) {
            return ConstantFolder.constNode(c);
        }
        int d = depth + 1;
        if (e instanceof Expr.IntLit l) {
            return ConstantFolder.constNode(constants.literal(l));
        } else if (e instanceof Expr.StrLit s) {
            return LuaValue.Lit.string(s.value());
        } else if (e instanceof Expr.FieldRef f) {
            return fieldRef(f.name());
        } else if (e instanceof Expr.Ident id) {
            // a kernel variable (vmemmap_base) or an enum constant the generator does not know:
            // the runtime resolves it from the capture's context, else the record falls back
            return LuaTable.inline().str("ident", id.name());
        } else if (e instanceof Expr.Index ix) {
            return op("[]", expr(ix.base(), d), expr(ix.index(), d));
        } else if (e instanceof Expr.Member m) {
            return error("col " + m.column() + ": member access ." + m.member() + " is not supported");
        } else if (e instanceof Expr.Unary u) {
            return op(u.op(), expr(u.operand(), d));
        } else if (e instanceof Expr.Binary b) {
            return op(b.op(), expr(b.left(), d), expr(b.right(), d));
        } else if (e instanceof Expr.Ternary t) {
            return op("?:", expr(t.cond(), d), expr(t.then(), d), expr(t.otherwise(), d));
        } else if (e instanceof Expr.Cast cast) {
            return cast(cast, d);
        } else if (e instanceof Expr.SizeofType s) {
            return error("col " + s.column() + ": unknown type " + s.type().text());
        } else if (e instanceof Expr.SizeofExpr s) {
            return op("sizeof", expr(s.operand(), d));
        } else if (e instanceof Expr.Call call) {
            return call(call, d);
        } else if (e instanceof Expr.Braced b) {
            return braced(b, d);
        }
        return error("unknown expression");
    }

    private LuaTable braced(Expr.Braced b, int d) {
        LuaTable t = LuaTable.auto();
        for (Expr i : b.items()) {
            t.add(expr(i, d));
        }
        return t;
    }

    private LuaTable call(Expr.Call c, int d) {
        LuaTable t = LuaTable.auto().str("call", c.name());
        boolean flags = c.name().equals("__print_flags") || c.name().equals("__print_flags_u64");
        boolean symbolic = c.name().equals("__print_symbolic") || c.name().equals("__print_symbolic_u64");
        int tableFrom = flags ? 2 : symbolic ? 1 : Integer.MAX_VALUE;
        LuaTable entries = null;
        for (int i = 0; i < c.args().size(); i++) {
            Expr a = c.args().get(i);
            LuaValue v;
            if (i == 0 && FIELD_HELPERS.contains(c.name())) {
                if (a instanceof Expr.Ident id) {
                    v = fieldRef(id.name());
                } else if (a instanceof Expr.FieldRef f) {
                    v = fieldRef(f.name());
                } else {
                    v = error("col " + a.column() + ": " + c.name() + " needs a field name");
                }
            } else {
                v = expr(a, d);
            }
            if (i >= tableFrom) {
                if (entries == null) {
                    entries = LuaTable.vertical();
                    Expr value = c.args().get(0);
                    while (value instanceof Expr.Cast cast) {
                        value = cast.operand();
                    }
                    entries.nameHint = LuaWriter.name(flags ? "flags" : "symbols",
                            value instanceof Expr.FieldRef f ? f.name() : null);
                }
                entries.add(v);
            } else {
                t.add(v);
            }
        }
        if (entries != null) {
            t.set("entries", entries);
        }
        return t;
    }

    private LuaTable cast(Expr.Cast c, int d) {
        CType t = c.type();
        LuaValue operand = expr(c.operand(), d);
        if (t.pointer()) {
            int es = CTypes.sizeOf(t.pointee(), longSize);
            boolean eg = CTypes.isSigned(t.pointee());
            LuaTable p = LuaTable.auto().str("cast", "pointer").str("to", ConstantFolder.typeCode(es > 0 ? es : 1, eg));
            if (es <= 0 && !t.pointee().equals("void")) {
                // pointer arithmetic scales by the pointee's size: a struct's comes from the context
                // (sizeof(struct page)), named as CTypes.normalize names it ("page")
                p.str("pointee", CTypes.normalize(t.pointee()));
            }
            return p.add(operand);
        }
        String n = t.normalized();
        int size = t.size(longSize);
        String type = n.equals("void") ? "void" : (n.equals("bool") || n.equals("_Bool")) ? "bool"
                : size < 0 ? "unknown" : ConstantFolder.typeCode(size, t.signed());
        return LuaTable.auto().str("cast", type).add(operand);
    }
}
