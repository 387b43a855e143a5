package org.tracewire.filter;

import java.util.Objects;

/**
 * {@code left || right}: either holds.
 *
 * @param left  the left operand
 * @param right the right operand
 */
public record Or(Filter left, Filter right) implements Filter {
    public Or {
        Objects.requireNonNull(left, "left");
        Objects.requireNonNull(right, "right");
    }

    @Override
    public String toString() {
        return FilterPrinter.debug(this);
    }
}
