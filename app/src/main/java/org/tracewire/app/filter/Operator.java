package org.tracewire.app.filter;

import java.util.List;

/** Comparison operators of a filter condition, with the ones each field type allows. */
public enum Operator {
    /** Equal. */
    EQ("=="),
    /** Not equal. */
    NE("!="),
    /** Less than. */
    LT("<"),
    /** Less or equal. */
    LE("<="),
    /** Greater than. */
    GT(">"),
    /** Greater or equal. */
    GE(">="),
    /** Bitwise and is non-zero. */
    MASK("&"),
    /** Glob match on strings ({@code *}, {@code ?}, {@code [..]}). */
    GLOB("~");

    private final String symbol;

    Operator(String symbol) {
        this.symbol = symbol;
    }

    /** The kernel filter syntax, e.g. {@code ==}. */
    public String symbol() {
        return symbol;
    }

    @Override
    public String toString() {
        return symbol;
    }

    /**
     * @param type a field's value type
     * @return the operators allowed on it, first the default
     */
    public static List<Operator> forType(ValueType type) {
        return switch (type) {
            case SIGNED, UNSIGNED, POINTER -> List.of(EQ, NE, LT, LE, GT, GE, MASK);
            case STRING -> List.of(EQ, NE, GLOB);
            case UNSUPPORTED -> List.of();
        };
    }
}
