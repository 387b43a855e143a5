package org.tracewire.filter;

import java.math.BigInteger;
import java.util.function.Function;

/**
 * Over- and under-approximation of a {@link Filter} in a target language where some comparisons
 * cannot be expressed. An inexpressible comparison is "true" in the over-approximation and "false"
 * in the under-approximation; {@code !x} swaps them. The over-approximation therefore matches at
 * least every record the filter matches: a target filter built from it only ever widens.
 */
final class Approx {
    /** An expression of the target language, or one of the constants. */
    sealed interface Expr permits True, False, Text {
    }

    /** Matches everything. */
    record True() implements Expr {
    }

    /** Matches nothing. */
    record False() implements Expr {
    }

    /**
     * A target expression.
     *
     * @param text     the expression text
     * @param compound true when it has a top-level binary operator (parenthesise it as an operand)
     */
    record Text(String text, boolean compound) implements Expr {
    }

    /** The target language's connectives. */
    record Syntax(String and, String or, String notPrefix) {
    }

    private final Syntax syntax;
    private final Function<Comparison, Expr> leaf;

    /**
     * @param syntax connectives of the target
     * @param leaf   the target expression of a comparison (a {@link Text} or a constant), or null
     *               when it cannot be expressed
     */
    Approx(Syntax syntax, Function<Comparison, Expr> leaf) {
        this.syntax = syntax;
        this.leaf = leaf;
    }

    /** The over-approximation ({@code upper}) or the under-approximation of {@code f}. */
    Expr of(Filter f, boolean upper) {
        if (f instanceof And a) {
            return and(of(a.left(), upper), of(a.right(), upper));
        }
        if (f instanceof Or o) {
            return or(of(o.left(), upper), of(o.right(), upper));
        }
        if (f instanceof Not n) {
            return not(of(n.operand(), !upper));
        }
        Expr e = leaf.apply((Comparison) f);
        if (e == null) {
            return upper ? new True() : new False();
        }
        return e;
    }

    /**
     * The constant value of {@code x op v} for every x in {@code 0 .. hi} (hi = 2^k - 1), or null
     * when it depends on x. For {@code &}: false when {@code v & hi} is 0.
     */
    static Expr constant(Op op, BigInteger v, BigInteger hi) {
        if (op == Op.BAND) {
            return v.and(hi).signum() == 0 ? new False() : null;
        }
        boolean below = v.signum() < 0;
        boolean above = v.compareTo(hi) > 0;
        if (!below && !above) {
            return null;
        }
        boolean value = switch (op) {
            case EQ -> false;
            case NE -> true;
            case LT, LE -> above;
            case GT, GE -> below;
            default -> throw new IllegalArgumentException(op.toString());
        };
        return value ? new True() : new False();
    }

    Expr and(Expr a, Expr b) {
        if (a instanceof False || b instanceof False) {
            return new False();
        }
        if (a instanceof True) {
            return b;
        }
        if (b instanceof True) {
            return a;
        }
        return new Text(operand(a) + syntax.and() + operand(b), true);
    }

    Expr or(Expr a, Expr b) {
        if (a instanceof True || b instanceof True) {
            return new True();
        }
        if (a instanceof False) {
            return b;
        }
        if (b instanceof False) {
            return a;
        }
        return new Text(operand(a) + syntax.or() + operand(b), true);
    }

    Expr not(Expr a) {
        if (a instanceof True) {
            return new False();
        }
        if (a instanceof False) {
            return new True();
        }
        return new Text(syntax.notPrefix() + "(" + ((Text) a).text() + ")", false);
    }

    private static String operand(Expr e) {
        Text t = (Text) e;
        return t.compound() ? "(" + t.text() + ")" : t.text();
    }
}
