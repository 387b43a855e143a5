package org.tracewire.printfmt;

import java.util.ArrayList;
import java.util.List;

/**
 * The tokens of a print fmt for {@link PrintFmtParser}: C numbers, string and character literals,
 * identifiers and punctuators, each with its 1-based column; and the unescaping of a string
 * literal's text. Errors: {@link PrintFmtException} with the event's name and the column.
 */
final class PrintFmtLexer {
    /** A token's kind. */
    enum Kind { NUM, STR, CHAR, IDENT, PUNCT, EOF }

    /**
     * A token.
     *
     * @param kind   its kind
     * @param text   its source text
     * @param value  a literal's text between its quotes, else null
     * @param column its 1-based column
     */
    record Token(Kind kind, String text, String value, int column) {
    }

    private PrintFmtLexer() {
    }

    /**
     * The tokens of a print fmt, ending with an {@link Kind#EOF} token.
     *
     * @param src   the print fmt text
     * @param event the event's name, for errors
     * @throws PrintFmtException on an unterminated literal or an unexpected character
     */
    static List<Token> tokenize(String src, String event) {
        List<Token> tokens = new ArrayList<>();
        int i = 0;
        int n = src.length();
        while (i < n) {
            char c = src.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            int start = i;
            if (c == '"' || c == '\'') {
                i++;
                while (i < n && src.charAt(i) != c) {
                    if (src.charAt(i) == '\\') {
                        i++;
                    }
                    i++;
                }
                if (i >= n) {
                    throw error(event, start + 1, "unterminated " + (c == '"' ? "string" : "character") + " literal");
                }
                i++;
                String raw = src.substring(start, i);
                tokens.add(new Token(c == '"' ? Kind.STR : Kind.CHAR, raw, raw.substring(1, raw.length() - 1), start + 1));
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(src.charAt(i + 1)))) {
                while (i < n && (Character.isLetterOrDigit(src.charAt(i)) || src.charAt(i) == '.')) {
                    i++;
                }
                tokens.add(new Token(Kind.NUM, src.substring(start, i), null, start + 1));
            } else if (Character.isLetter(c) || c == '_' || c == '$') {
                while (i < n && (Character.isLetterOrDigit(src.charAt(i)) || src.charAt(i) == '_' || src.charAt(i) == '$')) {
                    i++;
                }
                tokens.add(new Token(Kind.IDENT, src.substring(start, i), null, start + 1));
            } else {
                int len = punctLength(src, i);
                if (len == 0) {
                    throw error(event, start + 1, "unexpected character '" + c + "'");
                }
                i += len;
                tokens.add(new Token(Kind.PUNCT, src.substring(start, i), null, start + 1));
            }
        }
        tokens.add(new Token(Kind.EOF, "", null, n + 1));
        return tokens;
    }

    /**
     * The length of the punctuator at {@code i}: 3 for {@code <<= >>= ...}, 2 for {@code -> << >> <=
     * >= == != && || ++ --}, 1 for one of {@code ()[]{},?:;+-*}{@code /%<>=!~&|^.#}, 0 for none (chars
     * compared, not substrings looked up: every format of every file opened is lexed).
     */
    private static int punctLength(String src, int i) {
        int n = src.length();
        char c = src.charAt(i);
        char d = i + 1 < n ? src.charAt(i + 1) : 0;
        char e = i + 2 < n ? src.charAt(i + 2) : 0;
        if (((c == '<' || c == '>') && d == c && e == '=') || (c == '.' && d == '.' && e == '.')) {
            return 3;
        }
        boolean two = switch (c) {
            case '-' -> d == '>' || d == '-';
            case '<', '>' -> d == c || d == '=';
            case '=', '!' -> d == '=';
            case '&', '|', '+' -> d == c;
            default -> false;
        };
        if (two) {
            return 2;
        }
        return "()[]{},?:;+-*/%<>=!~&|^.#".indexOf(c) >= 0 ? 1 : 0;
    }

    /**
     * Appends the unescaped text of a string or char token (C11 6.4.4.4 escapes, and GNU
     * {@code \\e}); records each character's source column.
     */
    static void unescape(Token t, StringBuilder out, List<Integer> cols, String event) {
        String v = t.value;
        int base = t.column + 1;
        int i = 0;
        while (i < v.length()) {
            int col = base + i;
            char c = v.charAt(i++);
            if (c != '\\') {
                out.append(c);
                cols.add(col);
                continue;
            }
            if (i >= v.length()) {
                throw error(event, col, "dangling backslash");
            }
            char e = v.charAt(i++);
            switch (e) {
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case 'a' -> out.append('\007');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'v' -> out.append('\013');
                case 'e' -> out.append('\033');
                case '\\', '"', '\'', '?' -> out.append(e);
                case 'x' -> {
                    int start = i;
                    while (i < v.length() && Character.digit(v.charAt(i), 16) >= 0) {
                        i++;
                    }
                    if (start == i) {
                        throw error(event, col, "\\x without hex digits");
                    }
                    out.append((char) (Integer.parseInt(v.substring(start, Math.min(i, start + 8)), 16) & 0xff));
                }
                default -> {
                    if (e >= '0' && e <= '7') {
                        int start = i - 1;
                        while (i < v.length() && i - start < 3 && v.charAt(i) >= '0' && v.charAt(i) <= '7') {
                            i++;
                        }
                        out.append((char) (Integer.parseInt(v.substring(start, i), 8) & 0xff));
                    } else {
                        throw error(event, col, "unknown escape \\" + e);
                    }
                }
            }
            cols.add(col);
        }
    }

    private static PrintFmtException error(String event, int column, String detail) {
        return new PrintFmtException(event, column, detail);
    }
}
