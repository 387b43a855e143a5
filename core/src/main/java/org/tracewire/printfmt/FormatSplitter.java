package org.tracewire.printfmt;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a print fmt's format string into literal text and conversions ({@link FormatSegment}) as
 * {@code format_decode()} of {@code lib/vsprintf.c} does: flags, width, precision ({@code *} too),
 * length qualifier, conversion, and a {@code %p}'s extension letters; {@code %%} is literal text.
 */
final class FormatSplitter {
    private FormatSplitter() {
    }

    /**
     * The segments of a format string: one pass over the text, in the order
     * {@code format_decode()} reads a conversion.
     *
     * @param fmt   the format string, unescaped
     * @param cols  each character's source column
     * @param event the event's name, for errors
     * @throws PrintFmtException on an incomplete or invalid conversion
     */
    // Long: one scan of a conversion read top to bottom, in lib/vsprintf.c format_decode()'s order
    static List<FormatSegment> split(String fmt, List<Integer> cols, String event) {
        List<FormatSegment> out = new ArrayList<>();
        StringBuilder lit = new StringBuilder();
        int i = 0;
        int n = fmt.length();
        while (i < n) {
            char c = fmt.charAt(i);
            if (c != '%') {
                lit.append(c);
                i++;
                continue;
            }
            int start = i;
            int col = start < cols.size() ? cols.get(start) : 0;
            i++;
            StringBuilder flags = new StringBuilder();
            while (i < n && "-+ #0".indexOf(fmt.charAt(i)) >= 0) {
                flags.append(fmt.charAt(i++));
            }
            int width = -1;
            if (i < n && fmt.charAt(i) == '*') {
                width = FormatSegment.Conversion.STAR;
                i++;
            } else {
                int e = digitsEnd(fmt, i);
                if (e > i) {
                    width = parseBounded(fmt.substring(i, e));
                }
                i = e;
            }
            int precision = -1;
            if (i < n && fmt.charAt(i) == '.') {
                i++;
                if (i < n && fmt.charAt(i) == '*') {
                    precision = FormatSegment.Conversion.STAR;
                    i++;
                } else {
                    int e = digitsEnd(fmt, i);
                    precision = e > i ? parseBounded(fmt.substring(i, e)) : 0;
                    i = e;
                }
            }
            String qualifier = "";
            if (i < n && "hlLzZtj".indexOf(fmt.charAt(i)) >= 0) {
                char q = fmt.charAt(i++);
                qualifier = String.valueOf(q);
                if (i < n && (q == 'h' || q == 'l') && fmt.charAt(i) == q) {
                    qualifier += q;
                    i++;
                }
            }
            if (i >= n) {
                throw new PrintFmtException(event, col, "incomplete conversion at the end of the format");
            }
            char conv = fmt.charAt(i++);
            if (conv == '%') {
                lit.append('%');
                continue;
            }
            if ("diuoxXcsp".indexOf(conv) < 0) {
                throw new PrintFmtException(event, col, "invalid conversion '" + fmt.substring(start, i) + "'");
            }
            String ext = "";
            if (conv == 'p') {
                int es = i;
                while (i < n && Character.isLetterOrDigit(fmt.charAt(i))) {
                    i++;
                }
                ext = fmt.substring(es, i);
            }
            if (lit.length() > 0) {
                out.add(new FormatSegment.Literal(lit.toString()));
                lit.setLength(0);
            }
            out.add(new FormatSegment.Conversion(flags.toString(), width, precision, qualifier, conv, ext, col,
                    fmt.substring(start, i)));
        }
        if (lit.length() > 0) {
            out.add(new FormatSegment.Literal(lit.toString()));
        }
        return out;
    }

    /** The index after the decimal digits that start at {@code from}. */
    private static int digitsEnd(String fmt, int from) {
        int i = from;
        while (i < fmt.length() && Character.isDigit(fmt.charAt(i))) {
            i++;
        }
        return i;
    }

    /** Decimal width/precision, saturated at {@link Integer#MAX_VALUE}; renderers cap it further. */
    private static int parseBounded(String digits) {
        if (digits.length() > 9) {
            return Integer.MAX_VALUE;
        }
        return Integer.parseInt(digits);
    }
}
