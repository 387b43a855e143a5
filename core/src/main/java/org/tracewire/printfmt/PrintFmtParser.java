package org.tracewire.printfmt;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.tracewire.format.CTypes;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.printfmt.PrintFmtLexer.Kind;
import org.tracewire.printfmt.PrintFmtLexer.Token;

/**
 * Parses the text after {@code print fmt: } of a tracefs {@code format} file: one or more adjacent
 * C string literals (the format), then comma-separated C expressions (the arguments), into a
 * {@link PrintFmt}. The grammar follows what the kernel writes there ({@code __stringify} of a
 * {@code TP_printk}, see {@code include/trace/stages/stage7_class_define.h}) and what
 * libtraceevent's {@code event-parse.c} accepts: literals, {@code REC->field}, indexing, casts,
 * {@code sizeof}, unary, binary and conditional operators, calls and brace tables. The format string
 * is split per {@code format_decode()} of {@code lib/vsprintf.c}.
 *
 * <p>Tokens come from {@link PrintFmtLexer}, the format string's segments from
 * {@link FormatSplitter}; this class parses the expressions. Errors: {@link PrintFmtException}
 * with the event's name and the 1-based column.
 */
public final class PrintFmtParser {

    private static final Set<String> TYPE_WORDS = Set.of("const", "volatile", "unsigned", "signed", "struct",
            "enum", "union", "char", "short", "int", "long", "bool", "_Bool", "void", "float", "double");


    private final String src;
    private final String event;
    private final EventFormat format;
    private List<Token> tokens;
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
        tokens = PrintFmtLexer.tokenize(src, event);
        if (peek().kind() != Kind.STR) {
            throw error(peek().column(), "expected the format string literal, found " + describe(peek()));
        }
        StringBuilder fmt = new StringBuilder();
        List<Integer> cols = new ArrayList<>();
        while (peek().kind() == Kind.STR) {
            Token t = next();
            PrintFmtLexer.unescape(t, fmt, cols, event);
        }
        List<Expr> args = new ArrayList<>();
        while (peek().kind() != Kind.EOF) {
            expect(",");
            args.add(assignment());
        }
        List<FormatSegment> segments = FormatSplitter.split(fmt.toString(), cols, event);
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

    // ---------------------------------------------------------------- tokens

    private Token peek() {
        return tokens.get(pos);
    }

    private Token peek(int ahead) {
        return tokens.get(Math.min(pos + ahead, tokens.size() - 1));
    }

    private Token next() {
        Token t = tokens.get(pos);
        if (t.kind() != Kind.EOF) {
            pos++;
        }
        return t;
    }

    private boolean isPunct(String p) {
        return peek().kind() == Kind.PUNCT && peek().text().equals(p);
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
            throw error(peek().column(), "expected '" + p + "', found " + describe(peek()));
        }
        return next();
    }

    private static String describe(Token t) {
        return t.kind() == Kind.EOF ? "end of text" : "'" + t.text() + "'";
    }

    private PrintFmtException error(int column, String detail) {
        return new PrintFmtException(event, column, detail);
    }

    // ---------------------------------------------------------------- expressions

    private Expr comma() {
        Expr e = assignment();
        while (isPunct(",")) {
            Token t = next();
            e = new Expr.Binary(",", e, assignment(), t.column());
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
            return new Expr.Ternary(cond, then, otherwise, cond.column() > 0 ? cond.column() : q.column());
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
            if (t.kind() != Kind.PUNCT) {
                return left;
            }
            int prec = precedence(t.text());
            if (prec < minPrec) {
                return left;
            }
            next();
            Expr right = binary(prec + 1);
            left = new Expr.Binary(t.text(), left, right, left.column());
        }
    }

    private Expr unary() {
        Token t = peek();
        if (t.kind() == Kind.PUNCT) {
            switch (t.text()) {
                case "-", "+", "!", "~", "*", "&" -> {
                    next();
                    return new Expr.Unary(t.text(), unary(), t.column());
                }
                case "++", "--" -> throw error(t.column(), "increment/decrement operators are not allowed");
                case "(" -> {
                    if (looksLikeType(pos + 1)) {
                        next();
                        CType type = typeName();
                        expect(")");
                        if (isPunct("{")) {
                            throw error(peek().column(), "compound literals are not supported");
                        }
                        return new Expr.Cast(type, unary(), t.column());
                    }
                }
                default -> {
                }
            }
        }
        if (t.kind() == Kind.IDENT && t.text().equals("sizeof")) {
            next();
            if (isPunct("(") && looksLikeType(pos + 1)) {
                next();
                CType type = typeName();
                expect(")");
                return new Expr.SizeofType(type, t.column());
            }
            return new Expr.SizeofExpr(unary(), t.column());
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
            if (t.kind() == Kind.IDENT) {
                if (star) {
                    return false;
                }
                words.add(t.text());
            } else if (t.kind() == Kind.PUNCT && t.text().equals("*")) {
                star = true;
            } else if (t.kind() == Kind.PUNCT && t.text().equals(")")) {
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
            if (t.kind() == Kind.EOF) {
                throw error(t.column(), "unterminated type name");
            }
            if (t.text().equals("*")) {
                pointer = true;
                sb.append(" *");
            } else {
                if (sb.length() > 0) {
                    sb.append(' ');
                }
                sb.append(t.text());
            }
        }
        return new CType(sb.toString().trim(), pointer);
    }

    /** A primary expression. */
    // Long: the grammar's primary rule, one case per token kind, a few lines each
    private Expr primary() {
        Token t = next();
        switch (t.kind()) {
            case NUM -> {
                return number(t);
            }
            case CHAR -> {
                StringBuilder sb = new StringBuilder();
                PrintFmtLexer.unescape(t, sb, new ArrayList<>(), event);
                if (sb.length() != 1) {
                    throw error(t.column(), "character constant must hold one character: " + t.text());
                }
                return new Expr.IntLit((byte) sb.charAt(0), 4, true, false, t.column());
            }
            case STR -> {
                StringBuilder sb = new StringBuilder();
                PrintFmtLexer.unescape(t, sb, new ArrayList<>(), event);
                while (peek().kind() == Kind.STR) {
                    PrintFmtLexer.unescape(next(), sb, new ArrayList<>(), event);
                }
                return new Expr.StrLit(sb.toString(), t.column());
            }
            case IDENT -> {
                if (t.text().equals("REC") && isPunct("->")) {
                    next();
                    Token name = next();
                    if (name.kind() != Kind.IDENT) {
                        throw error(name.column(), "expected a field name after REC->, found " + describe(name));
                    }
                    Field f = format == null ? null : format.field(name.text());
                    return new Expr.FieldRef(name.text(), f, t.column());
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
                    return new Expr.Call(t.text(), args, t.column());
                }
                return new Expr.Ident(t.text(), t.column());
            }
            case PUNCT -> {
                if (t.text().equals("(")) {
                    if (isPunct("{")) {
                        throw error(peek().column(), "statement expressions are not supported");
                    }
                    Expr e = comma();
                    expect(")");
                    return e;
                }
                if (t.text().equals("{")) {
                    List<Expr> items = new ArrayList<>();
                    while (!isPunct("}")) {
                        items.add(assignment());
                        if (!accept(",")) {
                            break;
                        }
                    }
                    expect("}");
                    return new Expr.Braced(items, t.column());
                }
                throw error(t.column(), "unexpected " + describe(t));
            }
            default -> throw error(t.column(), "unexpected " + describe(t));
        }
    }

    private Expr postfix(Expr e) {
        while (true) {
            if (isPunct("[")) {
                Token t = next();
                Expr index = comma();
                expect("]");
                e = new Expr.Index(e, index, e.column() > 0 ? e.column() : t.column());
            } else if (isPunct(".") || isPunct("->")) {
                Token t = next();
                Token m = next();
                if (m.kind() != Kind.IDENT) {
                    throw error(m.column(), "expected a member name, found " + describe(m));
                }
                e = new Expr.Member(e, m.text(), t.text().equals("->"), e.column());
            } else if (isPunct("++") || isPunct("--")) {
                throw error(peek().column(), "increment/decrement operators are not allowed");
            } else {
                return e;
            }
        }
    }

    private Expr number(Token t) {
        String s = t.text().toLowerCase();
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
            throw error(t.column(), "bad number " + t.text());
        }
        boolean unsignedSuffix = suffix.contains("u");
        int ls = suffix.length() - (unsignedSuffix ? 1 : 0);
        // C11 6.4.4.1: the first type in the list that can represent the value
        boolean fitsInt = Long.compareUnsigned(value, 0x7fffffffL) <= 0;
        boolean fitsUint = Long.compareUnsigned(value, 0xffffffffL) <= 0;
        boolean fitsLong = value >= 0;
        if (ls == 0) {
            if (!unsignedSuffix && fitsInt) {
                return new Expr.IntLit(value, 4, true, false, t.column());
            }
            if ((unsignedSuffix || radix != 10) && fitsUint) {
                return new Expr.IntLit(value, 4, false, false, t.column());
            }
        }
        if (ls <= 1) {
            // long / unsigned long: sized by the kernel's long at evaluation time
            if (!unsignedSuffix && fitsLong) {
                return new Expr.IntLit(value, 8, true, true, t.column());
            }
            if (unsignedSuffix || radix != 10) {
                return new Expr.IntLit(value, 8, false, true, t.column());
            }
        }
        boolean signed = !unsignedSuffix && (fitsLong || radix == 10);
        if (!signed && !unsignedSuffix && radix == 10) {
            throw error(t.column(), "integer constant too large: " + t.text());
        }
        return new Expr.IntLit(value, 8, signed && fitsLong, false, t.column());
    }
}
