package org.tracewire.filter;

import java.util.Objects;

/**
 * One predicate {@code field op value}, e.g. {@code prev_pid == 1} or {@code comm ~ "bash*"}.
 *
 * <p>{@link #position()} and {@link #valuePosition()} are 0-based offsets into the text the
 * comparison was parsed from (-1 when built in code), used for error messages. They are not part
 * of the value: {@link #equals} and {@link #hashCode} ignore them, so a tree parsed from its
 * printed text equals the original.
 *
 * @param field         the field name as written: an event field, {@code common_pid},
 *                      {@code common_flags}, {@code common_preempt_count}, {@code CPU}/{@code cpu}
 *                      or {@code COMM}/{@code comm}
 * @param op            the operator
 * @param value         the number or string compared with
 * @param position      offset of the field name in the source text, or -1
 * @param valuePosition offset of the value in the source text, or -1
 */
public record Comparison(String field, Op op, Value value, int position, int valuePosition) implements Filter {
    public Comparison {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(value, "value");
        if (!field.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException("not a field name: '" + field + "'");
        }
    }

    /** A comparison built in code (no source positions). */
    public Comparison(String field, Op op, Value value) {
        this(field, op, value, -1, -1);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Comparison c && c.field.equals(field) && c.op == op && c.value.equals(value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(field, op, value);
    }

    @Override
    public String toString() {
        return FilterPrinter.debug(this);
    }
}
