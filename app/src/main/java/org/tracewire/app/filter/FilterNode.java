package org.tracewire.app.filter;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The app's filter model: conditions combined in AND/OR groups, any group negated. Immutable;
 * built by {@link FilterBuilderViewModel#toModel()} and handed to a {@link FilterCompilerAdapter}.
 */
public sealed interface FilterNode {
    /** The filter in the kernel's syntax, as the app writes it (the compilers have the last word). */
    String toText();

    /**
     * {@code field op value}.
     *
     * @param field    field name
     * @param operator the operator
     * @param value    the value as typed
     * @param type     the field's value type
     */
    record Condition(String field, Operator operator, String value, ValueType type) implements FilterNode {
        @Override
        public String toText() {
            // The kernel's strings have no escapes: quote with ' when the value holds a ".
            String v = type != ValueType.STRING ? value.strip() : value.indexOf('"') >= 0 ? "'" + value + "'" : "\"" + value + "\"";
            return field + " " + operator.symbol() + " " + v;
        }
    }

    /** How a group combines its children. */
    enum Combinator {
        /** All must hold. */
        AND("&&"),
        /** One must hold. */
        OR("||");

        private final String symbol;

        Combinator(String symbol) {
            this.symbol = symbol;
        }

        /** {@code &&} or {@code ||}. */
        public String symbol() {
            return symbol;
        }
    }

    /**
     * Children joined by {@code combinator}, optionally negated.
     *
     * @param combinator AND or OR
     * @param negated    NOT of the whole group
     * @param children   conditions and nested groups
     */
    record Group(Combinator combinator, boolean negated, List<FilterNode> children) implements FilterNode {
        /** Copies the children. */
        public Group {
            children = List.copyOf(children);
        }

        @Override
        public String toText() {
            if (children.isEmpty()) {
                return "";
            }
            String inner = children.stream().map(c -> c instanceof Group g && !g.negated() && g.children().size() > 1
                            ? "(" + c.toText() + ")" : c.toText())
                    .filter(s -> !s.isEmpty())
                    .collect(Collectors.joining(" " + combinator.symbol() + " "));
            return negated ? "!(" + inner + ")" : inner;
        }
    }
}
