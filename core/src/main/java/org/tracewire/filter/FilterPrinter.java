package org.tracewire.filter;

/**
 * Prints a {@link Filter} as canonical kernel filter text (see {@link Filter#toText()}).
 * Precedence: {@code !} over {@code &&} over {@code ||}; both binary operators group to the left,
 * so a right operand of the same operator is parenthesised.
 */
final class FilterPrinter {
    static String print(Filter f) {
        StringBuilder sb = new StringBuilder();
        new FilterPrinter(false).print(f, sb);
        return sb.toString();
    }

    /** The text for the kernel: canonical, with glob patterns passed through {@link Glob#forKernel}. */
    static String printForKernel(Filter f) {
        StringBuilder sb = new StringBuilder();
        new FilterPrinter(true).print(f, sb);
        return sb.toString();
    }

    /**
     * For {@code toString()}: like {@link #print} but never throws; a value the kernel's syntax
     * cannot hold is shown in double quotes with Java escapes.
     */
    static String debug(Filter f) {
        StringBuilder sb = new StringBuilder();
        new FilterPrinter(false, true).print(f, sb);
        return sb.toString();
    }

    private final boolean kernel;
    private final boolean lenient;

    private FilterPrinter(boolean kernel) {
        this(kernel, false);
    }

    private FilterPrinter(boolean kernel, boolean lenient) {
        this.kernel = kernel;
        this.lenient = lenient;
    }

    private static int level(Filter f) {
        return f instanceof Or ? 1 : f instanceof And ? 2 : 3;
    }

    private void print(Filter f, StringBuilder sb) {
        if (f instanceof Or o) {
            binary(o.left(), " || ", o.right(), 1, sb);
        } else if (f instanceof And a) {
            binary(a.left(), " && ", a.right(), 2, sb);
        } else if (f instanceof Not n) {
            sb.append('!');
            if (n.operand() instanceof Not) {
                print(n.operand(), sb);
            } else {
                sb.append('(');
                print(n.operand(), sb);
                sb.append(')');
            }
        } else {
            Comparison c = (Comparison) f;
            sb.append(c.field()).append(' ').append(c.op().symbol()).append(' ');
            value(c, sb);
        }
    }

    private void binary(Filter left, String op, Filter right, int level, StringBuilder sb) {
        paren(left, level(left) < level, sb);
        sb.append(op);
        paren(right, level(right) <= level, sb);
    }

    private void paren(Filter f, boolean needed, StringBuilder sb) {
        if (needed) {
            sb.append('(');
        }
        print(f, sb);
        if (needed) {
            sb.append(')');
        }
    }

    private void value(Comparison c, StringBuilder sb) {
        if (c.value() instanceof Value.Num n) {
            sb.append(c.op() == Op.BAND && n.value().signum() >= 0
                    ? "0x" + n.value().toString(16) : n.value().toString());
        } else {
            String v = ((Value.Str) c.value()).value();
            if (kernel && c.op() == Op.GLOB) {
                v = Glob.forKernel(v);
            } else if (c.op() == Op.GLOB && v.startsWith("!")) {
                v = "\\" + v; // same match; unescaped it would mean "not"
            }
            if (lenient && unquotable(v) != null) {
                sb.append('"').append(v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")
                        .replace("\r", "\\r").replace("\0", "\\0")).append('"');
            } else {
                sb.append(quote(v));
            }
        }
    }

    /**
     * Quotes a string for the kernel's parser, which has no escapes: double quotes, or single
     * quotes when the value holds a double quote.
     *
     * @throws IllegalArgumentException when the value holds both quote characters, a line break
     *                                  (the kernel stops reading at it) or NUL
     */
    static String quote(String v) {
        String why = unquotable(v);
        if (why != null) {
            throw new IllegalArgumentException(why);
        }
        return v.indexOf('"') >= 0 ? "'" + v + "'" : "\"" + v + "\"";
    }

    /** Why a string value cannot be written in the kernel's syntax, or null when it can. */
    static String unquotable(String v) {
        if (v.indexOf('"') >= 0 && v.indexOf('\'') >= 0) {
            return "a string cannot hold both \" and ' (the kernel's filter parser has no escapes)";
        }
        if (v.indexOf('\n') >= 0 || v.indexOf('\r') >= 0 || v.indexOf('\0') >= 0) {
            return "a string cannot hold a line break or NUL (the kernel reads a filter up to the first line break)";
        }
        return null;
    }
}
