package org.tracewire.filter;

import java.util.Objects;

/**
 * {@code !(operand)}: the operand does not hold.
 *
 * @param operand the negated filter
 */
public record Not(Filter operand) implements Filter {
    public Not {
        Objects.requireNonNull(operand, "operand");
    }

    @Override
    public String toString() {
        return FilterPrinter.debug(this);
    }
}
