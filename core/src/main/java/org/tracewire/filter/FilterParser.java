package org.tracewire.filter;

import java.math.BigInteger;

/**
 * Recursive-descent parser for the kernel's event filter syntax, as
 * {@code kernel/trace/trace_events_filter.c} ({@code predicate_parse()}, {@code parse_pred()})
 * reads it on Linux 6.18:
 *
 * <pre>
 * filter     := or
 * or         := and ( "||" and )*
 * and        := unary ( "&amp;&amp;" unary )*
 * unary      := "!" unary | "(" or ")" | predicate
 * predicate  := FIELD OP VALUE
 * FIELD      := [A-Za-z0-9_]+
 * OP         := "==" | "!=" | "&lt;=" | "&lt;" | "&gt;=" | "&gt;" | "&amp;" | "~"
 * VALUE      := '"' chars '"' | "'" chars "'" | "-"? [0-9] [A-Za-z0-9]*
 * </pre>
 *
 * Quoted strings have no escapes: they run to the next quote of the same kind (so a value may hold
 * the other quote and backslashes). Numbers are read like {@code kstrtoll(s, 0)}: {@code 0x}
 * hex, a leading {@code 0} octal, else decimal, optionally negative. Unquoted words are not
 * values (the kernel answers "did you forget quotes"), and field modifiers such as
 * {@code .function} are not supported. White space is the C {@code isspace} set.
 *
 * <p>As in the kernel, a {@code ~} pattern that starts with {@code !} is a negated match:
 * {@code f ~ "!x*"} parses as {@code !(f ~ "x*")}.
 */
final class FilterParser {
    private final String s;
    private int i;

    private FilterParser(String s) {
        this.s = s;
    }

    /** @see Filter#parse(String) */
    static Filter parse(String text) {
        if (text == null) {
            throw new FilterSyntaxException(0, "no filter text");
        }
        FilterParser p = new FilterParser(text);
        p.skipSpace();
        if (p.i >= text.length()) {
            throw new FilterSyntaxException(p.i, "empty filter");
        }
        Filter f = p.or(0);
        p.skipSpace();
        if (p.i < text.length()) {
            if (text.charAt(p.i) == ')') {
                throw new FilterSyntaxException(p.i, "')' without a matching '('");
            }
            throw new FilterSyntaxException(p.i, "expected && or || here");
        }
        return f;
    }

    private static final int MAX_DEPTH = 500;
    /** Most predicates in one filter (the kernel takes at most 4095 bytes of filter text anyway). */
    static final int MAX_PREDICATES = 2000;
    private int predicates;

    private Filter or(int depth) {
        Filter left = and(depth);
        while (true) {
            skipSpace();
            if (s.startsWith("||", i)) {
                i += 2;
                left = new Or(left, and(depth));
            } else {
                return left;
            }
        }
    }

    private Filter and(int depth) {
        Filter left = unary(depth);
        while (true) {
            skipSpace();
            if (s.startsWith("&&", i)) {
                i += 2;
                left = new And(left, unary(depth));
            } else {
                return left;
            }
        }
    }

    private Filter unary(int depth) {
        if (depth > MAX_DEPTH) {
            throw new FilterSyntaxException(i, "nested too deeply (more than " + MAX_DEPTH + " levels)");
        }
        skipSpace();
        if (i >= s.length()) {
            throw new FilterSyntaxException(i, "expected a predicate (field op value), '!' or '(' at the end");
        }
        char c = s.charAt(i);
        if (c == '!') {
            i++;
            return new Not(unary(depth + 1));
        }
        if (c == '(') {
            int open = i;
            i++;
            skipSpace();
            if (i < s.length() && s.charAt(i) == ')') {
                throw new FilterSyntaxException(i, "empty parentheses");
            }
            Filter inner = or(depth + 1);
            skipSpace();
            if (i >= s.length() || s.charAt(i) != ')') {
                throw new FilterSyntaxException(i >= s.length() ? open : i,
                        i >= s.length() ? "'(' without a matching ')'" : "expected ')' here");
            }
            i++;
            return inner;
        }
        return predicate();
    }

    /** One predicate: FIELD OP VALUE, each part with its error. */
    private Filter predicate() {
        int fieldPos = i;
        if (++predicates > MAX_PREDICATES) {
            throw new FilterSyntaxException(i, "too many predicates (more than " + MAX_PREDICATES + ")");
        }
        String field = fieldName();
        skipSpace();
        int opPos = i;
        Op op = readOp();
        if (op == null) {
            if (i < s.length() && s.charAt(i) == '=') {
                throw new FilterSyntaxException(opPos, "'=' is not an operator: use ==");
            }
            throw new FilterSyntaxException(opPos, i >= s.length()
                    ? "expected an operator after '" + field + "' (== != < <= > >= & ~)"
                    : "expected an operator (== != < <= > >= & ~) after '" + field + "'");
        }
        skipSpace();
        int valuePos = i;
        if (i >= s.length()) {
            throw new FilterSyntaxException(i, "expected a value after '" + op.symbol() + "'");
        }
        char c = s.charAt(i);
        if (c == '"' || c == '\'') {
            int end = s.indexOf(c, i + 1);
            if (end < 0) {
                throw new FilterSyntaxException(i, "missing matching quote (" + c + ")");
            }
            String str = s.substring(i + 1, end);
            i = end + 1;
            if (op == Op.GLOB && str.startsWith("!")) {
                // the kernel's filter_parse_regex(): a leading '!' negates the match
                return new Not(new Comparison(field, op, new Value.Str(str.substring(1)), fieldPos, valuePos));
            }
            return new Comparison(field, op, new Value.Str(str), fieldPos, valuePos);
        }
        if (isDigit(c) || c == '-') {
            int start = i;
            if (c == '-') {
                i++;
            }
            while (i < s.length() && isAlnum(s.charAt(i))) {
                i++;
            }
            String token = s.substring(start, i);
            return new Comparison(field, op, new Value.Num(parseNumber(token, start)), fieldPos, valuePos);
        }
        if (isWordChar(c)) {
            throw new FilterSyntaxException(i, "string values need quotes: \"" + word(i) + "\"");
        }
        throw new FilterSyntaxException(i, "expected a number or a quoted string but found '" + printable(c) + "'");
    }

    /** A predicate's field name, read from here. */
    private String fieldName() {
        int fieldPos = i;
        while (i < s.length() && isWordChar(s.charAt(i))) {
            i++;
        }
        if (i == fieldPos) {
            char c = s.charAt(i);
            throw new FilterSyntaxException(i, c == ')' ? "')' without a matching '('"
                    : "expected a field name, '!' or '(' but found '" + printable(c) + "'");
        }
        String field = s.substring(fieldPos, i);
        if (i < s.length() && s.charAt(i) == '.') {
            throw new FilterSyntaxException(i, "field modifiers such as '" + field + ".function' are not supported");
        }
        return field;
    }

    private String word(int from) {
        int j = from;
        while (j < s.length() && isWordChar(s.charAt(j))) {
            j++;
        }
        return s.substring(from, j);
    }

    private Op readOp() {
        for (Op op : new Op[] {Op.EQ, Op.NE, Op.LE, Op.LT, Op.GE, Op.GT, Op.BAND, Op.GLOB}) {
            if (s.startsWith(op.symbol(), i)) {
                if (op == Op.BAND && s.startsWith("&&", i)) {
                    return null;
                }
                i += op.symbol().length();
                return op;
            }
        }
        return null;
    }

    /**
     * Reads an integer as {@code kstrtoll(token, 0)} does: optional '-', {@code 0x}/{@code 0X} hex,
     * leading 0 octal, else decimal; the whole token must be digits of that base.
     */
    static BigInteger parseNumber(String token, int pos) {
        BigInteger v = readInteger(token);
        if (v == null) {
            throw new FilterSyntaxException(pos, "'" + token + "' is not an integer (decimal, 0x hex or 0 octal)");
        }
        if (!fits64(v)) {
            throw new FilterSyntaxException(pos, "'" + token + "' is out of the 64-bit range");
        }
        return v;
    }

    /**
     * The digits of {@code token} read as {@code kstrtoll(token, 0)} reads them (optional '-',
     * {@code 0x}/{@code 0X} hex, leading 0 octal, else decimal), without a range check.
     *
     * @return the value, or null when the token is not all digits of its base
     */
    static BigInteger readInteger(String token) {
        boolean negative = token.startsWith("-");
        String t = negative ? token.substring(1) : token;
        int radix = 10;
        String digits = t;
        if (t.length() > 2 && (t.startsWith("0x") || t.startsWith("0X"))) {
            radix = 16;
            digits = t.substring(2);
        } else if (t.length() > 1 && t.startsWith("0")) {
            radix = 8;
            digits = t.substring(1);
        }
        final int base = radix;
        if (digits.isEmpty() || !digits.chars().allMatch(ch -> ch < 128 && Character.digit(ch, base) >= 0)) {
            return null;
        }
        BigInteger v = new BigInteger(digits, radix);
        return negative ? v.negate() : v;
    }

    /** True when {@code v} is in the range the kernel's parser reads: -2^63 .. 2^64-1. */
    static boolean fits64(BigInteger v) {
        return v.compareTo(Value.Num.MIN) >= 0 && v.compareTo(Value.Num.MAX) <= 0;
    }

    private void skipSpace() {
        while (i < s.length() && isSpace(s.charAt(i))) {
            i++;
        }
    }

    /** C {@code isspace}: space, \t, \n, \v, \f, \r. */
    static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0b || c == '\f' || c == '\r';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isAlnum(char c) {
        return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isWordChar(char c) {
        return isAlnum(c) || c == '_';
    }

    private static String printable(char c) {
        return c < 0x20 || c == 0x7f ? String.format("\\x%02x", (int) c) : String.valueOf(c);
    }
}
