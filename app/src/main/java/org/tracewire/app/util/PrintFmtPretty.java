package org.tracewire.app.util;

import java.util.ArrayList;
import java.util.List;

/**
 * Pretty-prints an event's {@code print fmt}: one line per top-level argument (a break after each
 * top-level comma), and parenthesised (or braced) groups that hold commas and do not fit on a line
 * broken one argument per line, indented by nesting depth. String and character literals are kept
 * intact. A pure function.
 */
public final class PrintFmtPretty {
    /** Lines longer than this (indent included) get their groups broken. */
    public static final int WIDTH = 72;
    private static final String INDENT = "    ";

    private PrintFmtPretty() {
    }

    /**
     * @param printFmt the raw print fmt, e.g. {@code "a=%d", REC->a}
     * @return the pretty-printed text, lines separated by {@code \n}
     */
    public static String pretty(String printFmt) {
        if (printFmt == null || printFmt.isBlank()) {
            return "";
        }
        Parser p = new Parser(printFmt.strip());
        List<Object> seq = p.sequence('\0');
        List<List<Object>> parts = splitOnCommas(seq);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < parts.size(); i++) {
            out.append(render(parts.get(i), 0).strip());
            if (i < parts.size() - 1) {
                out.append(",\n");
            }
        }
        return out.toString();
    }

    /** A bracketed group: open char, items (String atoms or nested groups), close char (0 if unclosed). */
    private record Group(char open, List<Object> items, char close) {
    }

    private static final Object COMMA = new Object() {
        @Override
        public String toString() {
            return ",";
        }
    };

    private static final class Parser {
        private final String s;
        private int pos;

        Parser(String s) {
            this.s = s;
        }

        List<Object> sequence(char close) {
            List<Object> items = new ArrayList<>();
            StringBuilder atom = new StringBuilder();
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c == close) {
                    break;
                }
                if (c == '"' || c == '\'') {
                    int end = literalEnd(pos);
                    atom.append(s, pos, end);
                    pos = end;
                } else if (c == '(' || c == '{' || c == '[') {
                    flush(atom, items);
                    pos++;
                    char want = c == '(' ? ')' : c == '{' ? '}' : ']';
                    List<Object> inner = sequence(want);
                    char got = 0;
                    if (pos < s.length() && s.charAt(pos) == want) {
                        got = want;
                        pos++;
                    }
                    items.add(new Group(c, inner, got));
                } else if (c == ',') {
                    flush(atom, items);
                    items.add(COMMA);
                    pos++;
                } else if (c == ')' || c == '}' || c == ']') {
                    // A stray closer at this level: keep it as text.
                    atom.append(c);
                    pos++;
                } else {
                    atom.append(c);
                    pos++;
                }
            }
            flush(atom, items);
            return items;
        }

        private int literalEnd(int start) {
            char q = s.charAt(start);
            int i = start + 1;
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c == '\\') {
                    i += 2;
                    continue;
                }
                if (c == q) {
                    return i + 1;
                }
                i++;
            }
            return s.length();
        }

        private static void flush(StringBuilder atom, List<Object> items) {
            if (atom.length() > 0) {
                items.add(atom.toString());
                atom.setLength(0);
            }
        }
    }

    private static List<List<Object>> splitOnCommas(List<Object> seq) {
        List<List<Object>> parts = new ArrayList<>();
        List<Object> cur = new ArrayList<>();
        for (Object o : seq) {
            if (o == COMMA) {
                parts.add(cur);
                cur = new ArrayList<>();
            } else {
                cur.add(o);
            }
        }
        parts.add(cur);
        return parts;
    }

    private static String flat(List<Object> seq) {
        StringBuilder b = new StringBuilder();
        for (Object o : seq) {
            if (o instanceof Group g) {
                b.append(g.open()).append(flat(g.items()));
                if (g.close() != 0) {
                    b.append(g.close());
                }
            } else {
                b.append(o);
            }
        }
        return b.toString();
    }

    private static String render(List<Object> seq, int depth) {
        StringBuilder b = new StringBuilder();
        for (Object o : seq) {
            if (o instanceof Group g) {
                String f = g.open() + flat(g.items()) + (g.close() != 0 ? String.valueOf(g.close()) : "");
                boolean hasComma = g.items().contains(COMMA);
                if (!hasComma || depth * INDENT.length() + f.length() <= WIDTH) {
                    b.append(f);
                    continue;
                }
                List<List<Object>> parts = splitOnCommas(g.items());
                b.append(g.open()).append('\n');
                for (int i = 0; i < parts.size(); i++) {
                    b.append(INDENT.repeat(depth + 1)).append(render(parts.get(i), depth + 1).strip());
                    b.append(i < parts.size() - 1 ? ",\n" : "\n");
                }
                b.append(INDENT.repeat(depth));
                if (g.close() != 0) {
                    b.append(g.close());
                }
            } else {
                b.append(o);
            }
        }
        return b.toString();
    }
}
