package org.tracewire.filter;

/**
 * A comparison operator of the kernel's filter syntax. Numbers take all but {@link #GLOB};
 * strings take {@link #EQ}, {@link #NE} and {@link #GLOB}.
 */
public enum Op {
    /** {@code ==}: equal (strings: the whole string, no wildcards). */
    EQ("=="),
    /** {@code !=}: not equal. */
    NE("!="),
    /** {@code <}: less than (signed or unsigned as the field is). */
    LT("<"),
    /** {@code <=}. */
    LE("<="),
    /** {@code >}. */
    GT(">"),
    /** {@code >=}. */
    GE(">="),
    /** {@code &}: bit test, true when {@code (field & value) != 0}. */
    BAND("&"),
    /**
     * {@code ~}: glob match of a string, as the kernel's {@code lib/glob.c}: {@code *} any run,
     * {@code ?} one character, {@code [abc]}, {@code [a-z]}, {@code [!a-z]} classes, {@code \x} the
     * character x literally; an unclosed {@code [} is literal.
     */
    GLOB("~");

    private final String symbol;

    Op(String symbol) {
        this.symbol = symbol;
    }

    /** The operator as written in filter text, e.g. {@code "<="}. */
    public String symbol() {
        return symbol;
    }

    /** True for the operators allowed on numbers (all but {@code ~}). */
    public boolean numeric() {
        return this != GLOB;
    }

    /** True for the operators allowed on strings: {@code ==}, {@code !=}, {@code ~}. */
    public boolean forStrings() {
        return this == EQ || this == NE || this == GLOB;
    }
}
