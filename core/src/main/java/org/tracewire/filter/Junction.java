package org.tracewire.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a list of filters is joined: all of them ({@link #AND}, {@code &&}) or any of them
 * ({@link #OR}, {@code ||}). The tree itself is binary ({@link And}, {@link Or}); a junction
 * builds the left-nested chain the parser builds for {@code a && b && c}
 * ({@code And(And(a, b), c)}) and takes such a chain apart again, for editors that show a
 * group of operands (the app's filter builder).
 */
public enum Junction {
    /** All operands hold: {@code a && b && c}. */
    AND("&&"),
    /** At least one operand holds: {@code a || b || c}. */
    OR("||");

    private final String symbol;

    Junction(String symbol) {
        this.symbol = symbol;
    }

    /** The operator as written in filter text: {@code &&} or {@code ||}. */
    public String symbol() {
        return symbol;
    }

    /**
     * Joins operands left to right: {@code [a, b, c]} → {@code (a op b) op c}; one operand is
     * returned as it is.
     *
     * @param operands one or more filters
     * @return the joined filter
     * @throws IllegalArgumentException when {@code operands} is empty
     * @throws NullPointerException     when an operand is null
     */
    public Filter join(List<? extends Filter> operands) {
        if (operands.isEmpty()) {
            throw new IllegalArgumentException("nothing to join with " + symbol);
        }
        Filter acc = Objects.requireNonNull(operands.get(0), "operand");
        for (int i = 1; i < operands.size(); i++) {
            Filter next = Objects.requireNonNull(operands.get(i), "operand");
            acc = this == AND ? new And(acc, next) : new Or(acc, next);
        }
        return acc;
    }

    /**
     * The junction at the top of a filter.
     *
     * @param filter a filter
     * @return AND for an {@link And}, OR for an {@link Or}, null for a {@link Comparison} or {@link Not}
     */
    public static Junction of(Filter filter) {
        return filter instanceof And ? AND : filter instanceof Or ? OR : null;
    }

    /**
     * The operands of the chain at the top of {@code filter}, the inverse of {@link #join}: the
     * left spine of nodes of this junction is flattened, every other node is one operand (a right
     * operand of the same junction, as in {@code a && (b && c)}, stays one operand, so that
     * {@code join(operands(f)).equals(f)} for every filter).
     *
     * @param filter a filter
     * @return one or more operands, left to right; {@code [filter]} when its top node is not this junction
     */
    public List<Filter> operands(Filter filter) {
        List<Filter> right = new ArrayList<>();
        Filter f = filter;
        while (of(f) == this) {
            if (f instanceof And a) {
                right.add(a.right());
                f = a.left();
            } else {
                Or o = (Or) f;
                right.add(o.right());
                f = o.left();
            }
        }
        List<Filter> out = new ArrayList<>(right.size() + 1);
        out.add(f);
        for (int i = right.size() - 1; i >= 0; i--) {
            out.add(right.get(i));
        }
        return out;
    }
}
