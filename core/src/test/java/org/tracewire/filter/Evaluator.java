package org.tracewire.filter;

import java.math.BigInteger;
import java.util.Map;
import org.tracewire.format.EventFormat;

/**
 * The reference meaning of a filter over one record, as the kernel evaluates it: numbers compared
 * as the field's type, {@code &} true when the bitwise and is non-zero, strings compared whole,
 * {@code ~} as {@link Glob#matches}.
 */
final class Evaluator {
    private Evaluator() {
    }

    /**
     * @param values field name (as the filter writes it, e.g. {@code CPU}, {@code common_pid}) →
     *               {@link BigInteger} or {@link String}
     */
    static boolean eval(Filter f, EventFormat format, Map<String, Object> values) {
        if (f instanceof And a) {
            return eval(a.left(), format, values) && eval(a.right(), format, values);
        }
        if (f instanceof Or o) {
            return eval(o.left(), format, values) || eval(o.right(), format, values);
        }
        if (f instanceof Not n) {
            return !eval(n.operand(), format, values);
        }
        Comparison c = (Comparison) f;
        FilterField field = FilterField.resolve(format, c.field());
        Object v = values.get(canonical(field));
        if (v == null) {
            throw new IllegalArgumentException("no value for " + c.field());
        }
        if (v instanceof String s) {
            String k = ((Value.Str) c.value()).value();
            return switch (c.op()) {
                case EQ -> s.equals(k);
                case NE -> !s.equals(k);
                case GLOB -> Glob.matches(k, s);
                default -> throw new IllegalArgumentException(c.op().toString());
            };
        }
        BigInteger x = (BigInteger) v;
        BigInteger k = ((Value.Num) c.value()).value();
        int cmp = x.compareTo(k);
        return switch (c.op()) {
            case EQ -> cmp == 0;
            case NE -> cmp != 0;
            case LT -> cmp < 0;
            case LE -> cmp <= 0;
            case GT -> cmp > 0;
            case GE -> cmp >= 0;
            case BAND -> x.and(k).signum() != 0;
            default -> throw new IllegalArgumentException(c.op().toString());
        };
    }

    /** The key a record's value is stored under: CPU and COMM aliases fold to one name. */
    static String canonical(FilterField f) {
        return switch (f.source()) {
            case CPU -> "CPU";
            case COMM -> "COMM";
            default -> f.name();
        };
    }
}
