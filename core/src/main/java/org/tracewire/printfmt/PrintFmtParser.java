package org.tracewire.printfmt;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.tracewire.format.CTypes;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;

/**
 * Parses the text after {@code print fmt: } of a tracefs {@code format} file: one or more adjacent
 * C string literals (the format), then comma-separated C expressions (the arguments), into a
 * {@link PrintFmt}. The grammar follows what the kernel writes there ({@code __stringify} of a
 * {@code TP_printk}, see {@code include/trace/stages/stage7_class_define.h}) and what
 * libtraceevent's {@code event-parse.c} accepts: literals, {@code REC->field}, indexing, casts,
 * {@code sizeof}, unary, binary and conditional operators, calls and brace tables. The format string
 * is split per {@code format_decode()} of {@code lib/vsprintf.c}.
 *
 * <p>Errors: {@link PrintFmtException} with the event's name and the 1-based column.
 */
public final class PrintFmtParser {

    private static final Set<String> TWO_CHAR_PUNCT = Set.of("->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++",
            "--");
    private static final Set<String> TYPE_WORDS = Set.of("const", "volatile", "unsigned", "signed", "struct",
            "enum", "union", "char", "short", "int", "long", "bool", "_Bool", "void", "float", "double");

    private enum Kind { NUM, STR, CHAR, IDENT, PUNCT, EOF }

    private record Token(Kind kind, String text, String value, int column) {
    }

    private final String src;
    private final String event;
    private final EventFormat format;
    private final List<Token> tokens = new ArrayList<>();
    private int pos;

    private PrintFmtParser(String src, EventFormat format) {
        this.src = src;
        this.format = format;
        this.event = format == null ? "?" : format.fullName();
    }

    /**
     * Parses a print fmt.
     *
     * @param printFmt the text after {@code print fmt: } (without the trailing newline)
     * @param format   the event whose fields {@code REC->name} refers to; may be null (then every
     *                 {@link Expr.FieldRef} has a null field)
     * @return the parsed print fmt
     * @throws PrintFmtException when the text is not a format string followed by expressions, when
     *                           a conversion is invalid, or when the number of arguments does not match
     */
    public static PrintFmt parse(String printFmt, EventFormat format) throws PrintFmtException {
        PrintFmtParser p = new PrintFmtParser(printFmt == null ? "" : printFmt, format);
        return p.run();
    }

    private PrintFmt run() {
        tokenize();
        if (peek().kind != Kind.STR) {
            throw error(peek().column, "expected the format string literal, found " + describe(peek()));
        }
        StringBuilder fmt = new StringBuilder();
        List<Integer> cols = new ArrayList<>();
        while (peek().kind == Kind.STR) {
            Token t = next();
            unescape(t, fmt, cols);
        }
        List<Expr> args = new ArrayList<>();
        while (peek().kind != Kind.EOF) {
            expect(",");
            args.add(assignment());
        }
        List<FormatSegment> segments = splitFormat(fmt.toString(), cols);
        int needed = 0;
        for (FormatSegment s : segments) {
            if (s instanceof FormatSegment.Conversion c) {
                needed += c.argumentCount();
            }
        }
        if (needed != args.size()) {
            int col = args.size() > needed ? args.get(needed).column() : 1;
            throw error(col, "format has " + needed + " conversion argument(s) but " + args.size() + " argument(s) follow");
        }
        return new PrintFmt(event, fmt.toString(), segments, args);
    }

    // ---------------------------------------------------------------- tokenizer

    private void tokenize() {
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
                    throw error(start + 1, "unterminated " + (c == '"' ? "string" : "character") + " literal");
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
                String three = i + 3 <= n ? src.substring(i, i + 3) : "";
                String two = i + 2 <= n ? src.substring(i, i + 2) : "";
                String op;
                if (three.equals("<<=") || three.equals(">>=") || three.equals("...")) {
                    op = three;
                } else if (TWO_CHAR_PUNCT.contains(two)) {
                    op = two;
                } else if ("()[]{},?:;+-*/%<>=!~&|^.#".indexOf(c) >= 0) {
                    op = String.valueOf(c);
                } else {
                    throw error(start + 1, "unexpected character '" + c + "'");
                }
                i += op.length();
                tokens.add(new Token(Kind.PUNCT, op, null, start + 1));
            }
        }
        tokens.add(new Token(Kind.EOF, "", null, n + 1));
    }

    private Token peek() {
        return tokens.get(pos);
    }

    private Token peek(int ahead) {
        return tokens.get(Math.min(pos + ahead, tokens.size() - 1));
    }

    private Token next() {
        Token t = tokens.get(pos);
        if (t.kind != Kind.EOF) {
            pos++;
        }
        return t;
    }

    private boolean isPunct(String p) {
        return peek().kind == Kind.PUNCT && peek().text.equals(p);
    }

    private boolean accept(String p) {
        if (isPunct(p)) {
            pos++;
            return true;
        }
        return false;
    }

    private Token expect(String p) {
        if (!isPunct(p)) {
            throw error(peek().column, "expected '" + p + "', found " + describe(peek()));
        }
        return next();
    }

    private static String describe(Token t) {
        return t.kind == Kind.EOF ? "end of text" : "'" + t.text + "'";
    }

    private PrintFmtException error(int column, String detail) {
        return new PrintFmtException(event, column, detail);
    }

    // ---------------------------------------------------------------- expressions

    private Expr comma() {
        Expr e = assignment();
        while (isPunct(",")) {
            Token t = next();
            e = new Expr.Binary(",", e, assignment(), t.column);
        }
        return e;
    }

    private Expr assignment() {
        return ternary();
    }

    private Expr ternary() {
        Expr cond = binary(1);
        if (isPunct("?")) {
            Token q = next();
            Expr then = comma();
            expect(":");
            Expr otherwise = ternary();
            return new Expr.Ternary(cond, then, otherwise, cond.column() > 0 ? cond.column() : q.column);
        }
        return cond;
    }

    private static int precedence(String op) {
        return switch (op) {
            case "||" -> 1;
            case "&&" -> 2;
            case "|" -> 3;
            case "^" -> 4;
            case "&" -> 5;
            case "==", "!=" -> 6;
            case "<", "<=", ">", ">=" -> 7;
            case "<<", ">>" -> 8;
            case "+", "-" -> 9;
            case "*", "/", "%" -> 10;
            default -> -1;
        };
    }

    private Expr binary(int minPrec) {
        Expr left = unary();
        while (true) {
            Token t = peek();
            if (t.kind != Kind.PUNCT) {
                return left;
            }
            int prec = precedence(t.text);
            if (prec < minPrec) {
                return left;
            }
            next();
            Expr right = binary(prec + 1);
            left = new Expr.Binary(t.text, left, right, left.column());
        }
    }

    private Expr unary() {
        Token t = peek();
        if (t.kind == Kind.PUNCT) {
            switch (t.text) {
                case "-", "+", "!", "~", "*", "&" -> {
                    next();
                    return new Expr.Unary(t.text, unary(), t.column);
                }
                case "++", "--" -> throw error(t.column, "increment/decrement operators are not allowed");
                case "(" -> {
                    if (looksLikeType(pos + 1)) {
                        next();
                        CType type = typeName();
                        expect(")");
                        if (isPunct("{")) {
                            throw error(peek().column, "compound literals are not supported");
                        }
                        return new Expr.Cast(type, unary(), t.column);
                    }
                }
                default -> {
                }
            }
        }
        if (t.kind == Kind.IDENT && t.text.equals("sizeof")) {
            next();
            if (isPunct("(") && looksLikeType(pos + 1)) {
                next();
                CType type = typeName();
                expect(")");
                return new Expr.SizeofType(type, t.column);
            }
            return new Expr.SizeofExpr(unary(), t.column);
        }
        return postfix(primary());
    }

    /** Whether the tokens from {@code at} up to the next ')' spell a type name. */
    private boolean looksLikeType(int at) {
        int i = at;
        List<String> words = new ArrayList<>();
        boolean star = false;
        while (i < tokens.size()) {
            Token t = tokens.get(i);
            if (t.kind == Kind.IDENT) {
                if (star) {
                    return false;
                }
                words.add(t.text);
            } else if (t.kind == Kind.PUNCT && t.text.equals("*")) {
                star = true;
            } else if (t.kind == Kind.PUNCT && t.text.equals(")")) {
                break;
            } else {
                return false;
            }
            i++;
        }
        if (words.isEmpty() || words.contains("REC")) {
            return false;
        }
        if (star) {
            return true;
        }
        String first = words.get(0);
        if (TYPE_WORDS.contains(first) || first.endsWith("_t")) {
            return true;
        }
        return CTypes.sizeOf(String.join(" ", words), 8) > 0;
    }

    private CType typeName() {
        StringBuilder sb = new StringBuilder();
        boolean pointer = false;
        while (!isPunct(")")) {
            Token t = next();
            if (t.kind == Kind.EOF) {
                throw error(t.column, "unterminated type name");
            }
            if (t.text.equals("*")) {
                pointer = true;
                sb.append(" *");
            } else {
                if (sb.length() > 0) {
                    sb.append(' ');
                }
                sb.append(t.text);
            }
        }
        return new CType(sb.toString().trim(), pointer);
    }

    private Expr primary() {
        Token t = next();
        switch (t.kind) {
            case NUM -> {
                return number(t);
            }
            case CHAR -> {
                StringBuilder sb = new StringBuilder();
                unescape(t, sb, new ArrayList<>());
                if (sb.length() != 1) {
                    throw error(t.column, "character constant must hold one character: " + t.text);
                }
                return new Expr.IntLit((byte) sb.charAt(0), 4, true, false, t.column);
            }
            case STR -> {
                StringBuilder sb = new StringBuilder();
                unescape(t, sb, new ArrayList<>());
                while (peek().kind == Kind.STR) {
                    unescape(next(), sb, new ArrayList<>());
                }
                return new Expr.StrLit(sb.toString(), t.column);
            }
            case IDENT -> {
                if (t.text.equals("REC") && isPunct("->")) {
                    next();
                    Token name = next();
                    if (name.kind != Kind.IDENT) {
                        throw error(name.column, "expected a field name after REC->, found " + describe(name));
                    }
                    Field f = format == null ? null : format.field(name.text);
                    return new Expr.FieldRef(name.text, f, t.column);
                }
                if (isPunct("(")) {
                    next();
                    List<Expr> args = new ArrayList<>();
                    if (!isPunct(")")) {
                        do {
                            args.add(assignment());
                        } while (accept(","));
                    }
                    expect(")");
                    return new Expr.Call(t.text, args, t.column);
                }
                return new Expr.Ident(t.text, t.column);
            }
            case PUNCT -> {
                if (t.text.equals("(")) {
                    if (isPunct("{")) {
                        throw error(peek().column, "statement expressions are not supported");
                    }
                    Expr e = comma();
                    expect(")");
                    return e;
                }
                if (t.text.equals("{")) {
                    List<Expr> items = new ArrayList<>();
                    while (!isPunct("}")) {
                        items.add(assignment());
                        if (!accept(",")) {
                            break;
                        }
                    }
                    expect("}");
                    return new Expr.Braced(items, t.column);
                }
                throw error(t.column, "unexpected " + describe(t));
            }
            default -> throw error(t.column, "unexpected " + describe(t));
        }
    }

    private Expr postfix(Expr e) {
        while (true) {
            if (isPunct("[")) {
                Token t = next();
                Expr index = comma();
                expect("]");
                e = new Expr.Index(e, index, e.column() > 0 ? e.column() : t.column);
            } else if (isPunct(".") || isPunct("->")) {
                Token t = next();
                Token m = next();
                if (m.kind != Kind.IDENT) {
                    throw error(m.column, "expected a member name, found " + describe(m));
                }
                e = new Expr.Member(e, m.text, t.text.equals("->"), e.column());
            } else if (isPunct("++") || isPunct("--")) {
                throw error(peek().column, "increment/decrement operators are not allowed");
            } else {
                return e;
            }
        }
    }

    private Expr number(Token t) {
        String s = t.text.toLowerCase();
        int end = s.length();
        while (end > 0 && (s.charAt(end - 1) == 'u' || s.charAt(end - 1) == 'l')) {
            end--;
        }
        String suffix = s.substring(end);
        String digits = s.substring(0, end);
        int radix = 10;
        if (digits.startsWith("0x")) {
            radix = 16;
            digits = digits.substring(2);
        } else if (digits.startsWith("0b")) {
            radix = 2;
            digits = digits.substring(2);
        } else if (digits.length() > 1 && digits.startsWith("0")) {
            radix = 8;
            digits = digits.substring(1);
        }
        long value;
        try {
            value = Long.parseUnsignedLong(digits, radix);
        } catch (NumberFormatException e) {
            throw error(t.column, "bad number " + t.text);
        }
        boolean unsignedSuffix = suffix.contains("u");
        int ls = suffix.length() - (unsignedSuffix ? 1 : 0);
        // C11 6.4.4.1: the first type in the list that can represent the value
        boolean fitsInt = Long.compareUnsigned(value, 0x7fffffffL) <= 0;
        boolean fitsUint = Long.compareUnsigned(value, 0xffffffffL) <= 0;
        boolean fitsLong = value >= 0;
        if (ls == 0) {
            if (!unsignedSuffix && fitsInt) {
                return new Expr.IntLit(value, 4, true, false, t.column);
            }
            if ((unsignedSuffix || radix != 10) && fitsUint) {
                return new Expr.IntLit(value, 4, false, false, t.column);
            }
        }
        if (ls <= 1) {
            // long / unsigned long: sized by the kernel's long at evaluation time
            if (!unsignedSuffix && fitsLong) {
                return new Expr.IntLit(value, 8, true, true, t.column);
            }
            if (unsignedSuffix || radix != 10) {
                return new Expr.IntLit(value, 8, false, true, t.column);
            }
        }
        boolean signed = !unsignedSuffix && (fitsLong || radix == 10);
        if (!signed && !unsignedSuffix && radix == 10) {
            throw error(t.column, "integer constant too large: " + t.text);
        }
        return new Expr.IntLit(value, 8, signed && fitsLong, false, t.column);
    }

    /** Appends the unescaped text of a string or char token; records each character's source column. */
    private void unescape(Token t, StringBuilder out, List<Integer> cols) {
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
                throw error(col, "dangling backslash");
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
                        throw error(col, "\\x without hex digits");
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
                        throw error(col, "unknown escape \\" + e);
                    }
                }
            }
            cols.add(col);
        }
    }

    // ---------------------------------------------------------------- format string

    private List<FormatSegment> splitFormat(String fmt, List<Integer> cols) {
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
                int ws = i;
                while (i < n && Character.isDigit(fmt.charAt(i))) {
                    i++;
                }
                if (i > ws) {
                    width = parseBounded(fmt.substring(ws, i));
                }
            }
            int precision = -1;
            if (i < n && fmt.charAt(i) == '.') {
                i++;
                if (i < n && fmt.charAt(i) == '*') {
                    precision = FormatSegment.Conversion.STAR;
                    i++;
                } else {
                    int ps = i;
                    while (i < n && Character.isDigit(fmt.charAt(i))) {
                        i++;
                    }
                    precision = i > ps ? parseBounded(fmt.substring(ps, i)) : 0;
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
                throw error(col, "incomplete conversion at the end of the format");
            }
            char conv = fmt.charAt(i++);
            if (conv == '%') {
                lit.append('%');
                continue;
            }
            if ("diuoxXcsp".indexOf(conv) < 0) {
                throw error(col, "invalid conversion '" + fmt.substring(start, i) + "'");
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

    /** Decimal width/precision, saturated at {@link Integer#MAX_VALUE}; renderers cap it further. */
    private static int parseBounded(String digits) {
        if (digits.length() > 9) {
            return Integer.MAX_VALUE;
        }
        return Integer.parseInt(digits);
    }
}
