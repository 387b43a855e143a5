package org.tracewire.filter;

/**
 * A trace event filter: an immutable tree of {@link Comparison}s combined with {@link And},
 * {@link Or} and {@link Not}. Parentheses in the text are structure only; they leave no node.
 *
 * <p>The text syntax is the kernel's event filter syntax ({@code Documentation/trace/events.rst},
 * "Event filtering"; {@code kernel/trace/trace_events_filter.c}): {@code &&} binds tighter than
 * {@code ||}, {@code !} applies to the predicate or parenthesised group after it. Parse with
 * {@link #parse(String)}; {@link #toText()} prints the canonical text, which parses back to an
 * equal tree. A tree is not tied to an event until {@link FilterValidator#validate} checks it
 * against one.
 */
public sealed interface Filter permits Comparison, And, Or, Not {

    /**
     * Parses the kernel's filter syntax.
     *
     * @param text a filter such as {@code prev_pid == 1 && !(next_comm ~ "kworker*")}
     * @return the tree
     * @throws FilterSyntaxException with the 0-based position of the first error
     */
    static Filter parse(String text) {
        return FilterParser.parse(text);
    }

    /**
     * The canonical text: single spaces around operators, values in decimal ({@code &} masks in
     * hex), strings in double quotes (single quotes when the value holds a double quote), and
     * parentheses exactly where the tree needs them. Re-parses to an equal tree.
     *
     * @throws IllegalArgumentException when a string value cannot be written in the kernel's syntax
     *                                  (it holds both quote characters, a line break or NUL)
     */
    default String toText() {
        return FilterPrinter.print(this);
    }

    /** {@code this && other}. */
    default Filter and(Filter other) {
        return new And(this, other);
    }

    /** {@code this || other}. */
    default Filter or(Filter other) {
        return new Or(this, other);
    }

    /** {@code !(this)}. */
    default Filter not() {
        return new Not(this);
    }
}
