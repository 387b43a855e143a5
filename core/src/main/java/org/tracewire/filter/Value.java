package org.tracewire.filter;

import java.math.BigInteger;
import java.util.Objects;

/**
 * The right-hand side of a {@link Comparison}: a number or a string. Which one a field takes is
 * checked by {@link FilterValidator}, not here.
 */
public sealed interface Value permits Value.Num, Value.Str {

    /** A number value of {@code n}. */
    static Num of(long n) {
        return new Num(BigInteger.valueOf(n));
    }

    /** A string value. */
    static Str of(String s) {
        return new Str(s);
    }

    /**
     * An integer, as the kernel reads it ({@code kstrtoll}/{@code kstrtoull}, base 0): any value in
     * -2<sup>63</sup> .. 2<sup>64</sup>-1; whether it fits the field is the validator's question.
     *
     * @param value the number
     */
    record Num(BigInteger value) implements Value {
        /** Smallest value the kernel's parser reads: -2^63. */
        public static final BigInteger MIN = BigInteger.ONE.shiftLeft(63).negate();
        /** Largest value the kernel's parser reads: 2^64 - 1. */
        public static final BigInteger MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

        public Num {
            Objects.requireNonNull(value, "value");
            if (value.compareTo(MIN) < 0 || value.compareTo(MAX) > 0) {
                throw new IllegalArgumentException(value + " is outside -2^63 .. 2^64-1");
            }
        }

        @Override
        public String toString() {
            return value.toString();
        }
    }

    /**
     * A string (for {@code ~}: a glob pattern, kept as written, backslashes included).
     *
     * @param value the characters between the quotes
     */
    record Str(String value) implements Value {
        public Str {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String toString() {
            return '"' + value + '"';
        }
    }
}
