package org.tracewire.printfmt;

import java.util.List;
import java.util.Set;

/**
 * Compile-time check of a parsed print fmt (internal): finds what the evaluator cannot reproduce —
 * unknown helpers, unknown fields, unsupported {@code %p} extensions.
 */
final class Support {
    private static final Set<String> FIELD_HELPERS = Set.of("__get_str", "__get_rel_str", "__get_dynamic_array",
            "__get_rel_dynamic_array", "__get_dynamic_array_len", "__get_rel_dynamic_array_len", "__get_bitmask",
            "__get_rel_bitmask", "__get_cpumask", "__get_rel_cpumask", "__get_sockaddr", "__get_rel_sockaddr",
            "__print_dynamic_array");

    private Support() {
    }

    /** Null when supported; else the reason, starting with {@code col N: }. */
    static String check(PrintFmt pf) {
        return check(pf, null);
    }

    /**
     * Like {@link #check(PrintFmt)}, also checking that helper field arguments name fields.
     *
     * @param fieldNames the event's field names, or null to take any name
     */
    static String check(PrintFmt pf, Set<String> fieldNames) {
        for (FormatSegment s : pf.segments()) {
            if (s instanceof FormatSegment.Conversion c && c.conversion() == 'p') {
                String r = checkPointer(c);
                if (r != null) {
                    return "col " + c.column() + ": " + r;
                }
            }
        }
        for (Expr e : pf.args()) {
            String r = check(e, fieldNames);
            if (r != null) {
                return r;
            }
        }
        return null;
    }

    private static String checkPointer(FormatSegment.Conversion c) {
        String ext = c.extension();
        if (ext.isEmpty()) {
            return null;
        }
        char k = ext.charAt(0);
        switch (k) {
            case 'x', 'S', 's', 'B', 'F', 'f', 'M', 'm', 'U', 'h' -> {
                return null;
            }
            case 'I', 'i' -> {
                if (ext.length() > 1 && "46S".indexOf(ext.charAt(1)) >= 0) {
                    return null;
                }
                return "unsupported conversion " + c.text();
            }
            case 'b' -> {
                return c.width() == FormatSegment.Conversion.STAR ? null : "unsupported conversion " + c.text()
                        + " without * width";
            }
            default -> {
                return "unsupported conversion " + c.text();
            }
        }
    }

    /** Why the evaluator cannot evaluate {@code e}, or null when it can: one case per expression kind. */
    private static String check(Expr e, Set<String> names) {
        if (e instanceof Expr.FieldRef f) {
            return f.field() == null ? "col " + f.column() + ": no field " + f.name() : null;
        }
        if (e instanceof Expr.Call c) {
            return checkCall(c, names);
        }
        if (e instanceof Expr.Index x) {
            return first(check(x.base(), names), check(x.index(), names));
        }
        if (e instanceof Expr.Member m) {
            return "col " + m.column() + ": member access ." + m.member() + " is not supported";
        }
        if (e instanceof Expr.Unary u) {
            return check(u.operand(), names);
        }
        if (e instanceof Expr.Binary b) {
            return first(check(b.left(), names), check(b.right(), names));
        }
        if (e instanceof Expr.Ternary t) {
            return first(check(t.cond(), names), first(check(t.then(), names), check(t.otherwise(), names)));
        }
        if (e instanceof Expr.Cast c) {
            return check(c.operand(), names);
        }
        if (e instanceof Expr.SizeofExpr s) {
            return check(s.operand(), names);
        }
        if (e instanceof Expr.Braced b) {
            return checkAll(b.items(), names);
        }
        return null;
    }

    /** A helper call: a known helper, a field helper's first argument naming a field. */
    private static String checkCall(Expr.Call c, Set<String> names) {
        if (!HelperCalls.HELPERS.contains(c.name())) {
            return "col " + c.column() + ": unknown helper " + c.name();
        }
        List<Expr> args = c.args();
        if (!FIELD_HELPERS.contains(c.name())) {
            return checkAll(args, names);
        }
        if (args.isEmpty() || !(args.get(0) instanceof Expr.Ident || args.get(0) instanceof Expr.FieldRef)) {
            return "col " + c.column() + ": " + c.name() + " needs a field name";
        }
        if (args.get(0) instanceof Expr.Ident id && names != null && !names.contains(id.name())) {
            return "col " + id.column() + ": " + c.name() + ": no field " + id.name();
        }
        return checkAll(args.subList(1, args.size()), names);
    }

    private static String checkAll(List<Expr> es, Set<String> names) {
        for (Expr e : es) {
            String r = check(e, names);
            if (r != null) {
                return r;
            }
        }
        return null;
    }

    private static String first(String a, String b) {
        return a != null ? a : b;
    }
}
