package org.tracewire.wire.description;

import java.lang.reflect.Field;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import org.tracewire.printfmt.CArith;
import org.tracewire.printfmt.CInt;
import org.tracewire.printfmt.Expr;
import org.tracewire.symbols.KernelEnums;

/**
 * Folds the constant subexpressions of a print fmt for {@link PrintFmtLua}, with the C arithmetic
 * of {@link CInt} (the same the runtime applies: promotions, usual conversions, wrap-around), for
 * the traced kernel's long size: literals, enum constants (the kernel's BTF ones, then the built-in
 * ABI-stable ones), {@code sizeof}, unary, binary and conditional operators and casts. Each
 * expression is folded once (memoized by identity).
 */
final class ConstantFolder {
    private static final Map<String, Long> KNOWN = knownConstants();

    private final int longSize;
    private final KernelEnums enums;
    private final Map<Expr, Optional<CInt>> folded = new IdentityHashMap<>();

    /**
     * @param longSize the traced kernel's long size, bytes
     * @param enums    its enum constants, or null for none
     */
    ConstantFolder(int longSize, KernelEnums enums) {
        this.longSize = longSize;
        this.enums = enums == null ? KernelEnums.empty() : enums;
    }

    /** True for the sizes of C's integer types. */
    private static boolean plainSize(int size) {
        return size == 1 || size == 2 || size == 4 || size == 8;
    }

    /** An integer literal's value, a {@code long} literal sized by the kernel's long. */
    CInt literal(Expr.IntLit l) {
        int size = l.size();
        if (l.longLiteral() && longSize == 4) {
            boolean fits = l.signed() ? l.value() == (int) l.value() : (l.value() >>> 32) == 0;
            size = fits ? 4 : 8;
        }
        return CInt.of(l.value(), size, l.signed());
    }

    private CInt identifier(Expr.Ident id) {
        Long known = enums.value(id.name());
        if (known == null) {
            known = KNOWN.get(id.name());
        }
        if (known == null) {
            return null;
        }
        // C: an enum constant is an int; gcc widens the enum type when its values need it
        long k = known;
        if (k == (int) k) {
            return CInt.of(k, 4, true);
        }
        return (k >>> 32) == 0 ? CInt.of(k, 4, false) : CInt.of(k, 8, k < 0);
    }

    /**
     * The value of a constant expression as the runtime would compute it (C arithmetic on the
     * literals' types: promotions, usual conversions, wrap-around), or null when the expression
     * reads the record, fails (division by zero) or is not an integer.
     */
    CInt constant(Expr e) {
        Optional<CInt> memo = folded.get(e);
        if (memo == null) {
            CInt c = fold(e);
            memo = Optional.ofNullable(c != null && plainSize(c.size()) ? c : null);
            folded.put(e, memo);
        }
        return memo.orElse(null);
    }

    private CInt fold(Expr e) {
        if (e instanceof Expr.IntLit l) {
            return literal(l);
        } else if (e instanceof Expr.Ident id) {
            return identifier(id);
        } else if (e instanceof Expr.SizeofType s) {
            int size = s.type().size(longSize);
            return size < 0 ? null : CInt.of(size, longSize, false);
        } else if (e instanceof Expr.SizeofExpr s) {
            return s.operand() instanceof Expr.FieldRef f && f.field() != null
                    ? CInt.of(f.field().size(), longSize, false) : null;
        } else if (e instanceof Expr.Unary u) {
            CInt v = constant(u.operand());
            if (v == null) {
                return null;
            }
            try {
                return v.unary(u.op());
            } catch (IllegalArgumentException ex) {
                return null;
            }
        } else if (e instanceof Expr.Binary b) {
            CInt l = constant(b.left());
            CInt r = l == null ? null : constant(b.right());
            return r == null ? null : binary(b.op(), l, r);
        } else if (e instanceof Expr.Ternary t) {
            CInt c = constant(t.cond());
            CInt a = c == null ? null : constant(t.then());
            CInt o = a == null ? null : constant(t.otherwise());
            if (o == null) {
                return null;
            }
            return CInt.convert(a, o)[c.bits() != 0 ? 0 : 1];
        } else if (e instanceof Expr.Cast c && !c.type().pointer()) {
            CInt v = constant(c.operand());
            if (v == null) {
                return null;
            }
            String n = c.type().normalized();
            if (n.equals("void")) {
                return CInt.of(0, 4, true);
            }
            if (n.equals("bool") || n.equals("_Bool")) {
                return CInt.of(v.bits() != 0 ? 1 : 0, CArith.BOOL.size(), CArith.BOOL.signed());
            }
            int size = c.type().size(longSize);
            return size < 0 ? v : CInt.of(v.bits(), size, c.type().signed());
        }
        return null;
    }

    /** C's binary operator on constants ({@link CInt#binary}); null for division by zero (left to the runtime). */
    private static CInt binary(String op, CInt l, CInt r) {
        try {
            return CInt.binary(op, l, r);
        } catch (ArithmeticException | IllegalArgumentException ex) {
            return null;
        }
    }

    /** A type's code in the generated Lua: {@code s}/{@code u} and a bit count. */
    static String typeCode(int size, boolean signed) {
        return (signed ? "s" : "u") + (8 * size);
    }

    /** A constant node: a bare number for a C {@code int}, else {@code {int = V, type = "u64"}}. */
    static LuaValue constNode(CInt c) {
        if (c.size() == 4 && c.signed()) {
            return LuaValue.Lit.number(c.bits());
        }
        LuaTable t = LuaTable.inline();
        long b = c.bits();
        if (c.signed() ? b >= Integer.MIN_VALUE && b <= Integer.MAX_VALUE : b >= 0 && b <= 0xffffffffL) {
            t.num("int", b);
        } else {
            t.str("int", String.format("0x%016x", b));
        }
        return t.str("type", typeCode(c.size(), c.signed()));
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
}
