package org.tracewire.filter;

/**
 * The kernel's glob patterns for {@code ~}: matching as {@code lib/glob.c glob_match()}, the
 * kernel's choice of matcher ({@code filter_parse_regex()} in
 * {@code kernel/trace/trace_events_filter.c}), and translation to an anchored regular expression.
 *
 * <p>Pattern language: {@code *} any run (also empty), {@code ?} any one character,
 * {@code [abc]}, {@code [a-z]}, {@code [!a-z]} one character of (not of) a class — the first
 * character after {@code [} or {@code [!} may be {@code ]}; {@code \x} the character x; a
 * {@code [} without its {@code ]} is a literal {@code [}. No {@code [^...]} negation (a
 * {@code ^} there is a member).
 */
public final class Glob {
    private Glob() {
    }

    /**
     * Why a pattern cannot be used, or null. Only a trailing lone backslash is refused (the kernel
     * would read past the pattern's end).
     */
    public static String problem(String pattern) {
        int i = 0;
        while (i < pattern.length()) {
            char c = pattern.charAt(i);
            if (c == '\\') {
                if (i + 1 >= pattern.length()) {
                    return "a glob cannot end in a lone backslash (write \\\\ for a backslash)";
                }
                i += 2;
            } else {
                i++;
            }
        }
        return null;
    }

    /**
     * Whether {@code str} matches {@code pattern}, exactly as the kernel's {@code glob_match()}.
     * Used by tests as the reference semantics of {@code ~}.
     */
    // Long: a statement-for-statement port of lib/glob.c glob_match(), to compare with it
    public static boolean matches(String pattern, String str) {
        String pat = pattern + '\0';
        String s = str + '\0';
        int p = 0;
        int si = 0;
        int backPat = -1;
        int backStr = -1;
        while (true) {
            char c = s.charAt(si++);
            char d = pat.charAt(p++);
            boolean literal = false;
            boolean backtrack = false;
            switch (d) {
                case '?' -> {
                    if (c == '\0') {
                        return false;
                    }
                }
                case '*' -> {
                    if (pat.charAt(p) == '\0') {
                        return true;
                    }
                    backPat = p;
                    backStr = --si;
                }
                case '[' -> {
                    if (c == '\0') {
                        return false; // a class never matches the end of the string
                    }
                    boolean match = false;
                    boolean inverted = pat.charAt(p) == '!';
                    int cls = p + (inverted ? 1 : 0);
                    char a = pat.charAt(cls++);
                    boolean malformed = false;
                    do {
                        char b = a;
                        if (a == '\0') {
                            malformed = true;
                            break;
                        }
                        if (pat.charAt(cls) == '-' && pat.charAt(cls + 1) != ']') {
                            b = pat.charAt(cls + 1);
                            if (b == '\0') {
                                malformed = true;
                                break;
                            }
                            cls += 2;
                        }
                        match |= a <= c && c <= b;
                        a = pat.charAt(cls++);
                    } while (a != ']');
                    if (malformed) {
                        literal = true;
                    } else if (match == inverted) {
                        backtrack = true;
                    } else {
                        p = cls;
                    }
                }
                case '\\' -> {
                    d = pat.charAt(p++);
                    literal = true;
                }
                default -> literal = true;
            }
            if (literal) {
                if (c == d) {
                    if (d == '\0') {
                        return true;
                    }
                    continue;
                }
                backtrack = true;
            }
            if (backtrack) {
                if (c == '\0' || backPat < 0) {
                    return false;
                }
                p = backPat;
                si = ++backStr;
            }
        }
    }

    /**
     * The pattern as the kernel should receive it so that it matches as {@link #matches} says.
     * The kernel picks a cheaper matcher for some patterns, and two of those differ from
     * {@code glob_match()}: a pattern starting with a digit is taken as a function index and
     * matches nothing, and {@code *suffix} on a fixed {@code char[N]} field compares the last bytes
     * of the array, not of the string. Escaping the first literal character ({@code \x}) makes the
     * kernel use {@code glob_match()}; a leading {@code !} is escaped too (unescaped it negates).
     */
    public static String forKernel(String pattern) {
        if (pattern.isEmpty()) {
            return pattern;
        }
        char first = pattern.charAt(0);
        boolean needs = first == '!' || Character.isDigit(first) || kernelEndOnly(pattern);
        if (!needs) {
            return pattern;
        }
        int i = 0;
        while (i < pattern.length() && pattern.charAt(i) == '*') {
            i++;
        }
        if (i >= pattern.length()) {
            return pattern;
        }
        char c = pattern.charAt(i);
        if (c == '\\' || c == '[' || c == '?') {
            return pattern; // already a full glob for the kernel
        }
        return pattern.substring(0, i) + "\\" + pattern.substring(i);
    }

    /** True when {@code filter_parse_regex()} would choose its "ends with" matcher. */
    private static boolean kernelEndOnly(String buff) {
        boolean endOnly = false;
        for (int i = 0; i < buff.length(); i++) {
            char ch = buff.charAt(i);
            if (ch == '*') {
                if (i == 0) {
                    endOnly = true;
                } else if (i == buff.length() - 1) {
                    return false; // middle or front matcher: both agree with glob_match
                } else {
                    return false; // full glob
                }
            } else if (ch == '[' || ch == '?' || ch == '\\') {
                return false;
            }
        }
        return endOnly;
    }

    /**
     * An anchored regular expression ({@code (?s)^...$}, valid for PCRE2 and
     * {@code java.util.regex}) matching the same strings as the pattern: {@code *} → {@code .*},
     * {@code ?} → {@code .}, classes → {@code [...]}/{@code [^...]}, every other character
     * escaped. {@code (?s)} lets {@code .} match line breaks, as {@code ?} does.
     */
    public static String toRegex(String pattern) {
        StringBuilder re = new StringBuilder("(?s)^");
        String p = pattern + '\0';
        int i = 0;
        int n = pattern.length();
        while (i < n) {
            char c = p.charAt(i);
            if (c == '*') {
                re.append(".*");
                i++;
            } else if (c == '?') {
                re.append('.');
                i++;
            } else if (c == '\\' && i + 1 < n) {
                literal(p.charAt(i + 1), re);
                i += 2;
            } else if (c == '[') {
                i = klass(p, i, re);
            } else {
                literal(c, re);
                i++;
            }
        }
        return re.append('$').toString();
    }

    /**
     * Translates the class at {@code open} (scanned as {@code glob_match()} does) and returns the
     * index after it; a malformed class appends a literal {@code [} and returns {@code open + 1}.
     */
    private static int klass(String p, int open, StringBuilder re) {
        int cls = open + 1;
        boolean inverted = p.charAt(cls) == '!';
        if (inverted) {
            cls++;
        }
        StringBuilder members = new StringBuilder();
        char a = p.charAt(cls++);
        do {
            char b = a;
            if (a == '\0') {
                literal('[', re);
                return open + 1;
            }
            if (p.charAt(cls) == '-' && p.charAt(cls + 1) != ']') {
                b = p.charAt(cls + 1);
                if (b == '\0') {
                    literal('[', re);
                    return open + 1;
                }
                cls += 2;
            }
            if (a <= b) {
                classChar(a, members);
                if (b != a) {
                    members.append('-');
                    classChar(b, members);
                }
            }
            a = p.charAt(cls++);
        } while (a != ']');
        if (members.length() == 0) {
            re.append(inverted ? "." : "(?!)");
        } else {
            re.append(inverted ? "[^" : "[").append(members).append(']');
        }
        return cls;
    }

    private static void classChar(char c, StringBuilder re) {
        literal(c, re);
    }

    private static void literal(char c, StringBuilder re) {
        if (c < 0x20 || c == 0x7f) {
            re.append(String.format("\\x{%x}", (int) c));
        } else if (c < 0x80 && !Character.isLetterOrDigit(c) && c != '_') {
            re.append('\\').append(c);
        } else {
            re.append(c);
        }
    }
}
