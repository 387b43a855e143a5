package org.tracewire.printfmt;

/**
 * A piece of a print fmt's format string: literal text or one conversion specification, as
 * {@code format_decode()} in the kernel's {@code lib/vsprintf.c} splits it.
 */
public sealed interface FormatSegment {

    /** Text copied as is ({@code %%} already turned into {@code %}). */
    record Literal(String text) implements FormatSegment {
    }

    /**
     * One {@code %} conversion.
     *
     * @param flags      any of {@code -+ #0} in the order written
     * @param width      the field width; -1 when absent; {@link #STAR} for {@code *} (taken from the arguments)
     * @param precision  the precision; -1 when absent; {@link #STAR} for {@code .*}
     * @param qualifier  the length qualifier: "", "hh", "h", "l", "ll", "L", "z", "Z", "t", "j"
     * @param conversion the conversion character: one of {@code d i u o x X c s p}
     * @param extension  for {@code p}: all alphanumeric characters following it (the kernel consumes them),
     *                   e.g. {@code "S"}, {@code "ISpc"}, {@code "U"}; "" otherwise
     * @param column     1-based column of the {@code %} in the format string literal (0 when not known)
     * @param text       the conversion as written, e.g. {@code %08lx}
     */
    record Conversion(String flags, int width, int precision, String qualifier, char conversion,
                      String extension, int column, String text) implements FormatSegment {
        /** Marks a width or precision given as {@code *}. */
        public static final int STAR = -2;

        /** Number of arguments this conversion consumes (1 plus one for each {@code *}). */
        public int argumentCount() {
            return 1 + (width == STAR ? 1 : 0) + (precision == STAR ? 1 : 0);
        }

        /** True when the flag character is present. */
        public boolean has(char flag) {
            return flags.indexOf(flag) >= 0;
        }
    }
}
