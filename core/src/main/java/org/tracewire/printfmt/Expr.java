package org.tracewire.printfmt;

import java.util.List;
import java.util.Set;
import org.tracewire.format.Field;

/**
 * A C expression of a print fmt's argument list (libtraceevent's {@code tep_print_arg} tree, in
 * spirit). Every node carries the 1-based column of its first character in the print fmt text.
 * Immutable.
 */
public sealed interface Expr {

    /** 1-based column in the print fmt text. */
    int column();

    /**
     * An integer literal (decimal, hex, octal or character constant) with its C type.
     *
     * @param value  the value's bit pattern
     * @param size   4 or 8 (C int/unsigned int or (unsigned) long long / long)
     * @param signed whether the literal's C type is signed
     * @param longLiteral true when the type is {@code long}/{@code unsigned long} (size follows the kernel's long)
     */
    record IntLit(long value, int size, boolean signed, boolean longLiteral, int column) implements Expr {
    }

    /** A string literal (adjacent literals already joined, escapes resolved). */
    record StrLit(String value, int column) implements Expr {
    }

    /** {@code REC->name}: a field of the record; {@code field} is null when the format has no such field. */
    record FieldRef(String name, Field field, int column) implements Expr {
    }

    /** A bare identifier: a field name as a helper argument, or an enum/macro name the kernel left unresolved. */
    record Ident(String name, int column) implements Expr {
    }

    /** {@code base[index]}. */
    record Index(Expr base, Expr index, int column) implements Expr {
    }

    /** {@code base.member} or {@code base->member} on something that is not {@code REC}. */
    record Member(Expr base, String member, boolean arrow, int column) implements Expr {
    }

    /** A prefix operator: one of {@code - + ! ~ * &}. */
    record Unary(String op, Expr operand, int column) implements Expr {
    }

    /** A binary operator: {@code * / % + - << >> < <= > >= == != & ^ | && ||} or the comma operator {@code ,}. */
    record Binary(String op, Expr left, Expr right, int column) implements Expr {
    }

    /** {@code cond ? then : otherwise}. */
    record Ternary(Expr cond, Expr then, Expr otherwise, int column) implements Expr {
    }

    /** {@code (type) operand}. */
    record Cast(CType type, Expr operand, int column) implements Expr {
    }

    /** {@code sizeof(type)}. */
    record SizeofType(CType type, int column) implements Expr {
    }

    /** {@code sizeof(expr)} / {@code sizeof expr}. */
    record SizeofExpr(Expr operand, int column) implements Expr {
    }

    /** A call {@code name(args...)}: a print helper ({@code __print_flags}, {@code __get_str}, …) or another function. */
    record Call(String name, List<Expr> args, int column) implements Expr {
        public Call {
            args = List.copyOf(args);
        }
    }

    /** A brace initializer {@code { a, b }}: an entry of a {@code __print_flags}/{@code __print_symbolic} table. */
    record Braced(List<Expr> items, int column) implements Expr {
        public Braced {
            items = List.copyOf(items);
        }
    }

    /**
     * Adds to {@code out} the names of the event's own fields ({@code own}) that {@code e} reads:
     * {@code REC->x}, or a helper's field-name argument ({@code __get_str(x)}, {@code __get_dynamic_array(x)}).
     * Nodes deeper than 256 are not visited (a hostile print fmt).
     *
     * @param e   an argument of a print fmt (null: nothing)
     * @param own the event's field names
     * @param out receives the names read
     */
    static void fieldRefs(Expr e, Set<String> own, Set<String> out) {
        fieldRefs(e, own, out, 0);
    }

    private static void fieldRefs(Expr e, Set<String> own, Set<String> out, int depth) {
        if (e == null || depth > 256) {
            return;
        }
        if (e instanceof FieldRef r) {
            if (own.contains(r.name())) {
                out.add(r.name());
            }
            return;
        }
        List<Expr> sub = children(e);
        for (int i = 0; i < sub.size(); i++) {
            Expr a = sub.get(i);
            if (i == 0 && e instanceof Call && a instanceof Ident id && own.contains(id.name())) {
                out.add(id.name());
            } else {
                fieldRefs(a, own, out, depth + 1);
            }
        }
    }

    /**
     * The operands of an expression node, in order: a call's arguments, a brace list's items, the
     * operands of an operator, cast, index, member access or sizeof; none for literals, names and
     * field references.
     */
    static List<Expr> children(Expr e) {
        if (e instanceof Cast c) {
            return List.of(c.operand());
        } else if (e instanceof Unary u) {
            return List.of(u.operand());
        } else if (e instanceof Binary b) {
            return List.of(b.left(), b.right());
        } else if (e instanceof Ternary t) {
            return List.of(t.cond(), t.then(), t.otherwise());
        } else if (e instanceof Index ix) {
            return List.of(ix.base(), ix.index());
        } else if (e instanceof Member m) {
            return List.of(m.base());
        } else if (e instanceof SizeofExpr se) {
            return List.of(se.operand());
        } else if (e instanceof Call call) {
            return call.args();
        } else if (e instanceof Braced br) {
            return br.items();
        }
        return List.of();
    }
}
