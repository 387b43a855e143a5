package org.tracewire.filter;

import java.util.Objects;

/**
 * {@code left && right}: both must hold.
 *
 * @param left  the left operand
 * @param right the right operand
 */
public record And(Filter left, Filter right) implements Filter {
    public And {
        Objects.requireNonNull(left, "left");
        Objects.requireNonNull(right, "right");
    }

    @Override
    public String toString() {
        return FilterPrinter.debug(this);
    }
}
