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
        for (FormatSegment s : pf.segments()) {
            if (s instanceof FormatSegment.Conversion c && c.conversion() == 'p') {
                String r = checkPointer(c);
                if (r != null) {
                    return "col " + c.column() + ": " + r;
                }
            }
        }
        for (Expr e : pf.args()) {
            String r = check(e);
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

    /**
     * Why the evaluator cannot evaluate {@code e}, or null when it can. Longer than 60 lines: one
     * case per expression kind.
     */
    private static String check(Expr e) {
        if (e instanceof Expr.FieldRef f) {
            return f.field() == null ? "col " + f.column() + ": no field " + f.name() : null;
        }
        if (e instanceof Expr.Call c) {
            if (!HelperCalls.HELPERS.contains(c.name())) {
                return "col " + c.column() + ": unknown helper " + c.name();
            }
            List<Expr> args = c.args();
            if (FIELD_HELPERS.contains(c.name())) {
                if (args.isEmpty() || !(args.get(0) instanceof Expr.Ident || args.get(0) instanceof Expr.FieldRef)) {
                    return "col " + c.column() + ": " + c.name() + " needs a field name";
                }
                if (args.get(0) instanceof Expr.Ident id && !fieldExists(id, c)) {
                    return "col " + id.column() + ": " + c.name() + ": no field " + id.name();
                }
                for (int i = 1; i < args.size(); i++) {
                    String r = check(args.get(i));
                    if (r != null) {
                        return r;
                    }
                }
                return null;
            }
            for (Expr a : args) {
                String r = check(a);
                if (r != null) {
                    return r;
                }
            }
            return null;
        }
        if (e instanceof Expr.Index x) {
            return first(check(x.base()), check(x.index()));
        }
        if (e instanceof Expr.Member m) {
            return "col " + m.column() + ": member access ." + m.member() + " is not supported";
        }
        if (e instanceof Expr.Unary u) {
            return check(u.operand());
        }
        if (e instanceof Expr.Binary b) {
            return first(check(b.left()), check(b.right()));
        }
        if (e instanceof Expr.Ternary t) {
            return first(check(t.cond()), first(check(t.then()), check(t.otherwise())));
        }
        if (e instanceof Expr.Cast c) {
            return check(c.operand());
        }
        if (e instanceof Expr.SizeofExpr s) {
            return check(s.operand());
        }
        if (e instanceof Expr.Braced b) {
            for (Expr i : b.items()) {
                String r = check(i);
                if (r != null) {
                    return r;
                }
            }
        }
        return null;
    }

    private static boolean fieldExists(Expr.Ident id, Expr.Call c) {
        return FIELD_NAMES.get() == null || FIELD_NAMES.get().contains(id.name());
    }

    /** Field names of the print fmt being checked (set by {@link #check(PrintFmt, java.util.Set)}). */
    private static final ThreadLocal<Set<String>> FIELD_NAMES = new ThreadLocal<>();

    /** Like {@link #check(PrintFmt)}, also checking that helper field arguments name fields. */
    static String check(PrintFmt pf, Set<String> fieldNames) {
        FIELD_NAMES.set(fieldNames);
        try {
            return check(pf);
        } finally {
            FIELD_NAMES.remove();
        }
    }

    private static String first(String a, String b) {
        return a != null ? a : b;
    }
}
