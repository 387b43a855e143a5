package org.tracewire.text;

/**
 * Text from outside (task names, strings in events, print fmts and file names read from a trace
 * file, paths a user gave) made harmless for a terminal or a line-oriented generated file: every
 * control character (Unicode category Cc: C0 {@code U+0000–U+001F}, DEL, C1 {@code U+0080–U+009F},
 * which terminals take as the start of escape sequences) and the invisible characters that reorder
 * or break lines (bidirectional controls {@code U+200E U+200F U+202A–U+202E U+2066–U+2069}, line and
 * paragraph separators {@code U+2028 U+2029}) are written as {@code \xNN} (below {@code U+0100}) or
 * {@code \\uNNNN} (a backslash, u, four hex digits); everything else is kept. So {@code ESC ] 0 ; PWN BEL} shows as
 * {@code \x1b]0;PWN\x07}.
 *
 * <p>The kernel's own {@code trace} text and {@code trace-cmd report} print such bytes raw (checked
 * on Linux 6.18 with a task named through {@code prctl(PR_SET_NAME)}), so text that holds none is
 * left exactly as the kernel prints it. A backslash is kept as it is, for the same reason: a
 * literal {@code \x1b} in a name and an escaped ESC look alike, but neither reaches the terminal
 * as a control.
 */
public final class SafeText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private SafeText() {
    }

    /**
     * Every control and invisible layout character escaped, newline and tab included: for one-line
     * text (a task name, a message, a file name).
     *
     * @param s the text (null gives "null")
     * @return the escaped text; {@code s} itself when nothing needed escaping
     */
    public static String escape(CharSequence s) {
        return escape(s, false);
    }

    /**
     * As {@link #escape(CharSequence)}, but newline and tab kept: for text whose lines are its own
     * (a rendered event whose print fmt writes {@code \n} or {@code \t}, as stack traces do).
     *
     * @param s the text (null gives "null")
     * @return the escaped text; {@code s} itself when nothing needed escaping
     */
    public static String escapeKeepingLines(CharSequence s) {
        return escape(s, true);
    }

    private static String escape(CharSequence s, boolean keepLines) {
        if (s == null) {
            return "null";
        }
        int n = s.length();
        int i = 0;
        while (i < n && !needsEscape(s.charAt(i), keepLines)) {
            i++;
        }
        if (i == n) {
            return s.toString();
        }
        StringBuilder sb = new StringBuilder(n + 16);
        sb.append(s, 0, i);
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (!needsEscape(c, keepLines)) {
                sb.append(c);
            } else if (c < 0x100) {
                sb.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xf]);
            } else {
                sb.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xf]).append(HEX[(c >> 4) & 0xf])
                        .append(HEX[c & 0xf]);
            }
        }
        return sb.toString();
    }

    /**
     * @param c         a UTF-16 unit
     * @param keepLines true to let newline and tab through
     * @return true when {@code c} is written escaped
     */
    static boolean needsEscape(char c, boolean keepLines) {
        if (c < 0x20) {
            return !(keepLines && (c == '\n' || c == '\t'));
        }
        if (c < 0x7f) {
            return false;
        }
        return c <= 0x9f || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)
                || c == 0x2028 || c == 0x2029;
    }
}
