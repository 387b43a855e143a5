package org.tracewire.printfmt;

/**
 * A C integer value and C's arithmetic on it: the one definition of those semantics for the print
 * fmt {@link Evaluator} and for the dissector generator's constant folding (dissector-gen
 * {@code PrintFmtLua}), so the two cannot disagree. The rules themselves (types and ranks,
 * promotion, the usual arithmetic conversions, shift counts, division, what comparisons yield) are
 * the data of {@link CArith}, which the Lua runtime reads too; this class applies them with
 * wrap-around to the result's width.
 *
 * @param bits   the value, already truncated to {@code size} bytes and sign- or zero-extended to 64 bits
 * @param size   bytes: 1, 2, 4 or 8 (other sizes are kept as 8)
 * @param signed whether the C type is signed
 */
public record CInt(long bits, int size, boolean signed) {

    /**
     * The value of {@code bits} in a C integer type: truncated to {@code size} bytes, then sign- or
     * zero-extended.
     */
    public static CInt of(long bits, int size, boolean signed) {
        return new CInt(extend(bits, size, signed), size, signed);
    }

    /** A C {@code int} 1 or 0 (what comparisons and {@code !} give: {@link CArith#TRUTH}). */
    public static CInt bool(boolean b) {
        return new CInt(b ? 1 : 0, CArith.TRUTH.size(), CArith.TRUTH.signed());
    }

    /** {@code bits} truncated to {@code size} bytes (1, 2 or 4; any other size keeps all 64 bits) and extended back. */
    public static long extend(long bits, int size, boolean signed) {
        return switch (size) {
            case 1 -> signed ? (byte) bits : bits & 0xffL;
            case 2 -> signed ? (short) bits : bits & 0xffffL;
            case 4 -> signed ? (int) bits : bits & 0xffffffffL;
            default -> bits;
        };
    }

    /** Integer promotion ({@link CArith#promotes}): a type of lower rank than {@code int} becomes {@code int}. */
    public CInt promote() {
        return CArith.promotes(size) ? of(bits, CArith.PROMOTED.size(), CArith.PROMOTED.signed()) : this;
    }

    /**
     * The usual arithmetic conversions: both operands promoted, then in the type of higher rank; of
     * equal ranks, unsigned when either is ({@link CArith#EQUAL_RANK_UNSIGNED}).
     *
     * @return {a, b} converted to their common type
     */
    public static CInt[] convert(CInt a, CInt b) {
        a = a.promote();
        b = b.promote();
        int[] common = CArith.common(a.size, a.signed, b.size, b.signed);
        int size = common[0];
        boolean signed = common[1] != 0;
        return new CInt[] {of(a.bits, size, signed), of(b.bits, size, signed)};
    }

    /**
     * A unary operator on this value: {@code -}, {@code ~}, {@code +} (after promotion) or {@code !}.
     *
     * @throws IllegalArgumentException for another operator
     */
    public CInt unary(String op) {
        if (op.equals("!")) {
            return bool(bits == 0);
        }
        CInt p = promote();
        return switch (op) {
            case "-" -> of(-p.bits, p.size, p.signed);
            case "~" -> of(~p.bits, p.size, p.signed);
            case "+" -> p;
            default -> throw new IllegalArgumentException("unknown unary operator " + op);
        };
    }

    /**
     * A binary operator: arithmetic ({@code + - * / %}), bitwise ({@code & | ^}), shifts
     * ({@code << >>}: the left operand's promoted type, the count modulo its width; {@code >>} is
     * arithmetic on a signed type), comparisons (an {@code int} 1 or 0, compared in the common type)
     * and the logical {@code && ||} (both operands already evaluated); {@code / %} truncate toward
     * zero ({@link CArith#DIVISION}).
     *
     * @throws ArithmeticException      for {@code /} or {@code %} by zero
     * @throws IllegalArgumentException for another operator
     */
    public static CInt binary(String op, CInt l, CInt r) {
        switch (op) {
            case "&&" -> {
                return bool(l.bits != 0 && r.bits != 0);
            }
            case "||" -> {
                return bool(l.bits != 0 || r.bits != 0);
            }
            case "<<", ">>" -> {
                CInt p = l.promote();
                int count = (int) (r.promote().bits & CArith.shiftCountMask(p.size));
                long res = op.equals("<<") ? p.bits << count : p.signed ? p.bits >> count : p.bits >>> count;
                return of(res, p.size, p.signed);
            }
            default -> {
            }
        }
        CInt[] ab = convert(l, r);
        long x = ab[0].bits;
        long y = ab[1].bits;
        int size = ab[0].size;
        boolean signed = ab[0].signed;
        if ((op.equals("/") || op.equals("%")) && y == 0) {
            throw new ArithmeticException("division by zero");
        }
        return switch (op) {
            case "+" -> of(x + y, size, signed);
            case "-" -> of(x - y, size, signed);
            case "*" -> of(x * y, size, signed);
            case "/" -> of(signed ? x / y : Long.divideUnsigned(x, y), size, signed);
            case "%" -> of(signed ? x % y : Long.remainderUnsigned(x, y), size, signed);
            case "&" -> of(x & y, size, signed);
            case "|" -> of(x | y, size, signed);
            case "^" -> of(x ^ y, size, signed);
            case "==" -> bool(x == y);
            case "!=" -> bool(x != y);
            case "<" -> bool(compare(x, y, signed) < 0);
            case "<=" -> bool(compare(x, y, signed) <= 0);
            case ">" -> bool(compare(x, y, signed) > 0);
            case ">=" -> bool(compare(x, y, signed) >= 0);
            default -> throw new IllegalArgumentException("unknown operator " + op);
        };
    }

    private static int compare(long x, long y, boolean signed) {
        return signed ? Long.compare(x, y) : Long.compareUnsigned(x, y);
    }
}
