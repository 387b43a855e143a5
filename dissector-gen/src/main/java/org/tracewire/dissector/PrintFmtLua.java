package org.tracewire.dissector;

import java.lang.reflect.Field;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.tracewire.format.CTypes;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FieldKind;
import org.tracewire.printfmt.CType;
import org.tracewire.printfmt.Expr;
import org.tracewire.printfmt.FormatSegment;
import org.tracewire.printfmt.PrintFmt;
import org.tracewire.symbols.KernelEnums;

/**
 * Compiles a parsed print fmt ({@link PrintFmt}) into a Lua table the runtime's evaluator walks
 * ({@code lua/tracewire.lua}, section "evaluator"): {@code { segments, args }}, where a segment is
 * a literal string or a conversion {@code {flags, width, precision, size, conv, ext, text}} and an
 * argument is an expression node {@code {tag, ...}}. Everything the kernel fixes at compile time is
 * resolved here: field names to TLV indexes, casts and {@code sizeof} to sizes for the kernel's
 * long size, known enum constants to values, literal types. What cannot be resolved becomes an
 * error node, so that a record needing it is shown as name=value pairs, as {@code EventPrinter}
 * does. All strings go through {@link LuaWriter#string}.
 */
public final class PrintFmtLua {
    static final int N_LIT = 1, N_STR = 2, N_FLD = 3, N_ERR = 4, N_IDX = 5, N_UN = 6, N_BIN = 7, N_TERN = 8,
            N_CAST = 9, N_CALL = 10, N_BRACE = 11, N_SIZEOF = 12;
    /** Deepest expression the generator emits (Lua's parser limits nesting to about 200 levels). */
    static final int MAX_DEPTH = 60;

    private static final Set<String> FIELD_HELPERS = Set.of("__get_str", "__get_rel_str", "__get_dynamic_array",
            "__get_rel_dynamic_array", "__get_dynamic_array_len", "__get_rel_dynamic_array_len", "__get_bitmask",
            "__get_rel_bitmask", "__get_cpumask", "__get_rel_cpumask", "__get_sockaddr", "__get_rel_sockaddr",
            "__print_dynamic_array");

    private static final Map<String, Long> KNOWN = knownConstants();

    private final EventFormat format;
    private final int longSize;
    private final KernelEnums enums;

    /** A compiler for one event under the traced kernel's long size, without kernel enum constants. */
    public PrintFmtLua(EventFormat format, int longSize) {
        this(format, longSize, null);
    }

    /**
     * A compiler for one event.
     *
     * @param enums the traced kernel's enum constants (BTF), looked up before the built-in
     *              ABI-stable ones, as {@code Evaluator} does; null for none
     */
    public PrintFmtLua(EventFormat format, int longSize, KernelEnums enums) {
        this.format = format;
        this.longSize = longSize;
        this.enums = enums == null ? KernelEnums.empty() : enums;
    }

    /** Thrown when the print fmt cannot be emitted (too deep). */
    static final class TooComplex extends RuntimeException {
        TooComplex(String m) {
            super(m);
        }
    }

    /**
     * The Lua table for a print fmt.
     *
     * @throws TooComplex when an expression nests deeper than {@link #MAX_DEPTH}
     */
    public String compile(PrintFmt pf) {
        StringBuilder sb = new StringBuilder("{{");
        boolean first = true;
        for (FormatSegment s : pf.segments()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            if (s instanceof FormatSegment.Literal l) {
                sb.append(LuaWriter.string(l.text()));
            } else {
                FormatSegment.Conversion c = (FormatSegment.Conversion) s;
                sb.append('{').append(flags(c.flags())).append(',').append(c.width()).append(',')
                        .append(c.precision()).append(',').append(qualifierSize(c.qualifier())).append(',')
                        .append(LuaWriter.string(String.valueOf(c.conversion()))).append(',')
                        .append(LuaWriter.string(c.extension())).append(',').append(LuaWriter.string(c.text()))
                        .append('}');
            }
        }
        sb.append("},{");
        first = true;
        for (Expr e : pf.args()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            expr(sb, e, 0);
        }
        return sb.append("}}").toString();
    }

    private static int flags(String text) {
        int f = 0;
        for (char c : text.toCharArray()) {
            switch (c) {
                case '-' -> f |= 1;
                case '+' -> f |= 2;
                case ' ' -> f |= 4;
                case '#' -> f |= 8;
                case '0' -> f |= 16;
                default -> {
                }
            }
        }
        return f;
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

    private static String hex(long v) {
        return LuaWriter.string(String.format("%016x", v));
    }

    private static void err(StringBuilder sb, String msg) {
        sb.append('{').append(N_ERR).append(',').append(LuaWriter.string(msg)).append('}');
    }

    private static void lit(StringBuilder sb, long v, int size, boolean signed) {
        sb.append('{').append(N_LIT).append(',').append(hex(v)).append(',').append(size).append(',')
                .append(LuaWriter.bool(signed)).append('}');
    }

    private int fieldIndex(String name) {
        List<org.tracewire.format.Field> fs = format.fields();
        for (int i = 0; i < fs.size(); i++) {
            if (fs.get(i).name().equals(name)) {
                return i + 1;
            }
        }
        return -1;
    }

    private void fieldRef(StringBuilder sb, String name) {
        int i = fieldIndex(name);
        if (i < 0) {
            err(sb, (format.field(name) != null ? "common field " : "no field ") + name);
        } else {
            sb.append('{').append(N_FLD).append(',').append(i).append('}');
        }
    }

    private void expr(StringBuilder sb, Expr e, int depth) {
        if (depth > MAX_DEPTH) {
            throw new TooComplex("col " + e.column() + ": expression nests deeper than " + MAX_DEPTH);
        }
        int d = depth + 1;
        if (e instanceof Expr.IntLit l) {
            int size = l.size();
            if (l.longLiteral() && longSize == 4) {
                boolean fits = l.signed() ? l.value() == (int) l.value() : (l.value() >>> 32) == 0;
                size = fits ? 4 : 8;
            }
            lit(sb, l.value(), size, l.signed());
        } else if (e instanceof Expr.StrLit s) {
            sb.append('{').append(N_STR).append(',').append(LuaWriter.string(s.value())).append('}');
        } else if (e instanceof Expr.FieldRef f) {
            fieldRef(sb, f.name());
        } else if (e instanceof Expr.Ident id) {
            Long known = enums.value(id.name());
            if (known == null) {
                known = KNOWN.get(id.name());
            }
            if (known != null) {
                // C: an enum constant is an int; gcc widens the enum type when its values need it
                long k = known;
                if (k == (int) k) {
                    lit(sb, k, 4, true);
                } else if ((k >>> 32) == 0) {
                    lit(sb, k, 4, false);
                } else {
                    lit(sb, k, 8, k < 0);
                }
            } else {
                err(sb, "col " + id.column() + ": unresolved identifier " + id.name());
            }
        } else if (e instanceof Expr.Index ix) {
            sb.append('{').append(N_IDX).append(',');
            expr(sb, ix.base(), d);
            sb.append(',');
            expr(sb, ix.index(), d);
            sb.append('}');
        } else if (e instanceof Expr.Member m) {
            err(sb, "col " + m.column() + ": member access ." + m.member() + " is not supported");
        } else if (e instanceof Expr.Unary u) {
            sb.append('{').append(N_UN).append(',').append(LuaWriter.string(u.op())).append(',');
            expr(sb, u.operand(), d);
            sb.append('}');
        } else if (e instanceof Expr.Binary b) {
            sb.append('{').append(N_BIN).append(',').append(LuaWriter.string(b.op())).append(',');
            expr(sb, b.left(), d);
            sb.append(',');
            expr(sb, b.right(), d);
            sb.append('}');
        } else if (e instanceof Expr.Ternary t) {
            sb.append('{').append(N_TERN).append(',');
            expr(sb, t.cond(), d);
            sb.append(',');
            expr(sb, t.then(), d);
            sb.append(',');
            expr(sb, t.otherwise(), d);
            sb.append('}');
        } else if (e instanceof Expr.Cast c) {
            cast(sb, c, d);
        } else if (e instanceof Expr.SizeofType s) {
            int size = s.type().size(longSize);
            if (size < 0) {
                err(sb, "col " + s.column() + ": unknown type " + s.type().text());
            } else {
                lit(sb, size, longSize, false);
            }
        } else if (e instanceof Expr.SizeofExpr s) {
            if (s.operand() instanceof Expr.FieldRef f && f.field() != null) {
                lit(sb, f.field().size(), longSize, false);
            } else {
                sb.append('{').append(N_SIZEOF).append(',');
                expr(sb, s.operand(), d);
                sb.append('}');
            }
        } else if (e instanceof Expr.Call c) {
            sb.append('{').append(N_CALL).append(',').append(LuaWriter.string(c.name()));
            for (int i = 0; i < c.args().size(); i++) {
                sb.append(',');
                Expr a = c.args().get(i);
                if (i == 0 && FIELD_HELPERS.contains(c.name())) {
                    if (a instanceof Expr.Ident id) {
                        fieldRef(sb, id.name());
                    } else if (a instanceof Expr.FieldRef f) {
                        fieldRef(sb, f.name());
                    } else {
                        err(sb, "col " + a.column() + ": " + c.name() + " needs a field name");
                    }
                } else {
                    expr(sb, a, d);
                }
            }
            sb.append('}');
        } else if (e instanceof Expr.Braced b) {
            sb.append('{').append(N_BRACE);
            for (Expr i : b.items()) {
                sb.append(',');
                expr(sb, i, d);
            }
            sb.append('}');
        } else {
            err(sb, "unknown expression");
        }
    }

    private void cast(StringBuilder sb, Expr.Cast c, int d) {
        CType t = c.type();
        sb.append('{').append(N_CAST).append(',');
        expr(sb, c.operand(), d);
        if (t.pointer()) {
            int es = CTypes.sizeOf(t.pointee(), longSize);
            boolean eg = CTypes.isSigned(t.pointee());
            sb.append(",true,").append(longSize).append(",false,").append(es > 0 ? es : -1).append(',')
                    .append(LuaWriter.bool(eg)).append(",\"\"}");
            return;
        }
        String n = t.normalized();
        String special = n.equals("void") ? "void" : (n.equals("bool") || n.equals("_Bool")) ? "bool" : "";
        sb.append(",false,").append(t.size(longSize)).append(',').append(LuaWriter.bool(t.signed()))
                .append(",0,false,").append(LuaWriter.string(special)).append('}');
    }

    /** The kernel enum constants {@code org.tracewire.printfmt.KnownConstants} resolves (package-private there). */
    @SuppressWarnings("unchecked")
    private static Map<String, Long> knownConstants() {
        try {
            Class<?> c = Class.forName("org.tracewire.printfmt.KnownConstants");
            Field f = c.getDeclaredField("VALUES");
            f.setAccessible(true);
            return (Map<String, Long>) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return Collections.emptyMap();
        }
    }

    /** True when the field kind is read by the evaluator as an integer. */
    static boolean isInteger(FieldKind k) {
        return k == FieldKind.INTEGER || k == FieldKind.POINTER;
    }
}
