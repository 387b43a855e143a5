package org.tracewire.analysis;

import java.util.Objects;

/**
 * A key or value field of a hist trigger with its modifier, as {@code Documentation/trace/histogram.rst}
 * names them: {@code call_site.sym}, {@code bytes_req.log2}, {@code lat.buckets=10}, {@code common_pid.execname}.
 *
 * @param name     the event field, or a special field: {@code common_pid}, {@code common_cpu} (also
 *                 {@code cpu}), {@code common_timestamp}, {@code stacktrace}
 * @param modifier how the field is displayed or grouped
 * @param buckets  the bucket size for {@link Modifier#BUCKETS} (≥ 1), else 0
 */
public record HistField(String name, Modifier modifier, long buckets) {

    /** A field modifier ({@code .hex}, {@code .log2}, …). */
    public enum Modifier {
        /** No modifier: numbers in decimal, strings as they are. */
        NONE(""),
        /** {@code .hex}: a number in hex (keys and values). */
        HEX("hex"),
        /** {@code .sym}: an address as {@code [addr] symbol}. */
        SYM("sym"),
        /** {@code .sym-offset}: an address as {@code [addr] symbol+off/size}. */
        SYM_OFFSET("sym-offset"),
        /** {@code .execname}: {@code common_pid} as {@code comm [pid]}. */
        EXECNAME("execname"),
        /** {@code .syscall}: a syscall id as {@code name [id]}. */
        SYSCALL("syscall"),
        /** {@code .log2}: the key is {@code ilog2(roundup_pow_of_two(v))}, shown {@code ~ 2^N}. */
        LOG2("log2"),
        /** {@code .buckets=N}: the key is {@code v / N * N}, shown {@code ~ lo-(lo+N-1)}. */
        BUCKETS("buckets"),
        /** {@code .usecs}: {@code common_timestamp} in µs instead of ns. */
        USECS("usecs");

        private final String text;

        Modifier(String text) {
            this.text = text;
        }

        /** The modifier as written after the dot ({@code ""} for {@link #NONE}). */
        public String text() {
            return text;
        }

        /** The modifier written {@code text}, or null. */
        static Modifier of(String text) {
            for (Modifier m : values()) {
                if (m != NONE && m.text.equals(text)) {
                    return m;
                }
            }
            return null;
        }
    }

    public HistField {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(modifier, "modifier");
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new HistSpecException(-1, "not a field name: '" + name + "'");
        }
        if ((modifier == Modifier.BUCKETS) != (buckets > 0)) {
            throw new HistSpecException(-1, modifier == Modifier.BUCKETS ? name + ".buckets needs a size of at least 1"
                    : "a bucket size goes with .buckets only");
        }
    }

    /** A field without a modifier. */
    public static HistField of(String name) {
        return new HistField(name, Modifier.NONE, 0);
    }

    /** A field with a modifier other than {@link Modifier#BUCKETS}. */
    public static HistField of(String name, Modifier modifier) {
        return new HistField(name, modifier, 0);
    }

    /** {@code name.buckets=size}. */
    public static HistField buckets(String name, long size) {
        return new HistField(name, Modifier.BUCKETS, size);
    }

    /** The field as the trigger writes it: {@code name}, {@code name.hex}, {@code name.buckets=10}. */
    public String toText() {
        return switch (modifier) {
            case NONE -> name;
            case BUCKETS -> name + ".buckets=" + buckets;
            default -> name + "." + modifier.text();
        };
    }
}
