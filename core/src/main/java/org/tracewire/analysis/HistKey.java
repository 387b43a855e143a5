package org.tracewire.analysis;

import java.util.Objects;

/**
 * One part of an entry's key, as the kernel's table holds it: a number (the u64 the kernel keys on:
 * the field's value sign-extended, or for {@code .log2} the exponent, for {@code .buckets=N} the
 * bucket's low bound) or a string (a string field, or a stack trace's lines joined by {@code \n}).
 * The label is what the kernel prints beside a number (the execname, symbol or syscall name): it is
 * shown, not compared ({@link #equals} and {@link #hashCode} ignore it).
 *
 * @param number the u64 key as a long bit pattern (unsigned), 0 for string keys
 * @param string the string key, or null for numbers
 * @param label  the printed name beside a number, or null
 */
public record HistKey(long number, String string, String label) {

    /** A numeric key part. */
    public static HistKey of(long number) {
        return new HistKey(number, null, null);
    }

    /** A string key part. */
    public static HistKey of(String string) {
        return new HistKey(0, Objects.requireNonNull(string, "string"), null);
    }

    /** Whether this part is a string. */
    public boolean isString() {
        return string != null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HistKey k && k.number == number && Objects.equals(k.string, string);
    }

    @Override
    public int hashCode() {
        return string != null ? string.hashCode() : Long.hashCode(number);
    }

    @Override
    public String toString() {
        String v = string != null ? '"' + string + '"' : Long.toUnsignedString(number);
        return label == null ? v : label + " [" + v + "]";
    }
}
