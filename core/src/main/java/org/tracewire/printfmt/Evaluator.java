package org.tracewire.printfmt;

import java.nio.ByteOrder;
import java.util.List;
import org.tracewire.format.CTypes;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.record.RecordException;

/**
 * Evaluates print fmt expressions against one record with C semantics (internal). Integer
 * promotions and the usual arithmetic conversions follow C11 6.3.1; helper semantics follow
 * {@code include/trace/stages/stage3_trace_output.h} and {@code kernel/trace/trace_output.c}.
 * Every failure is an {@link EvalException}. The kernel's helpers ({@code __print_flags},
 * {@code __get_str}, ...) are {@link HelperCalls}'.
 */
final class Evaluator {

    private final EventRecord record;
    private final byte[] data;
    private final KernelLayout layout;
    private final PrintContext ctx;
    private final int longSize;
    /** Made on the first helper call (most print fmts call none). */
    private HelperCalls helpers;

    Evaluator(EventRecord record, PrintContext ctx) {
        this.record = record;
        this.layout = record.layout();
        this.longSize = layout.longSize();
        this.ctx = ctx;
        this.data = new byte[record.length()];
        record.payload().get(0, data);
    }

    /** The record being evaluated. */
    EventRecord record() {
        return record;
    }

    int longSize() {
        return longSize;
    }

    PrintContext context() {
        return ctx;
    }

    long readInt(byte[] bytes, int off, int size, boolean signed) {
        if (off < 0 || size <= 0 || off + size > bytes.length) {
            throw new EvalException("read of " + size + " bytes at " + off + " outside " + bytes.length + " bytes");
        }
        long v = 0;
        if (layout.byteOrder() == ByteOrder.LITTLE_ENDIAN) {
            for (int i = size - 1; i >= 0; i--) {
                v = (v << 8) | (bytes[off + i] & 0xffL);
            }
        } else {
            for (int i = 0; i < size; i++) {
                v = (v << 8) | (bytes[off + i] & 0xffL);
            }
        }
        return Val.Int.extend(v, size, signed);
    }

    // ------------------------------------------------------------------ expressions

    Val eval(Expr e) {
        if (e instanceof Expr.IntLit lit) {
            int size = lit.size();
            if (lit.longLiteral() && longSize == 4) {
                boolean fits = lit.signed() ? lit.value() == (int) lit.value() : (lit.value() >>> 32) == 0;
                size = fits ? 4 : 8;
            }
            return Val.Int.of(lit.value(), size, lit.signed());
        } else if (e instanceof Expr.StrLit s) {
            return new Val.Text(s.value());
        } else if (e instanceof Expr.FieldRef f) {
            return field(f.field(), f.name());
        } else if (e instanceof Expr.Ident id) {
            Long variable = ctx.variables().value(id.name());
            if (variable != null) {
                return new Val.Int(Val.Int.extend(variable, longSize, false), longSize, false, false);
            }
            Long known = ctx.enums().value(id.name());
            if (known == null) {
                known = KnownConstants.VALUES.get(id.name());
            }
            if (known != null) {
                // C: an enum constant is an int; gcc widens the enum type when its values need it
                long k = known;
                if (k == (int) k) {
                    return Val.Int.of(k, 4, true);
                }
                return (k >>> 32) == 0 ? Val.Int.of(k, 4, false) : Val.Int.of(k, 8, k < 0);
            }
            throw new EvalException("col " + id.column() + ": unresolved identifier " + id.name());
        } else if (e instanceof Expr.Index ix) {
            return index(eval(ix.base()), toInt(eval(ix.index())));
        } else if (e instanceof Expr.Member m) {
            throw new EvalException("col " + m.column() + ": member access ." + m.member() + " is not supported");
        } else if (e instanceof Expr.Unary u) {
            return unary(u);
        } else if (e instanceof Expr.Binary b) {
            return binary(b);
        } else if (e instanceof Expr.Ternary t) {
            return ternary(t);
        } else if (e instanceof Expr.Cast c) {
            return cast(c.type(), eval(c.operand()));
        } else if (e instanceof Expr.SizeofType s) {
            int size = s.type().size(longSize);
            if (size < 0) {
                throw new EvalException("col " + s.column() + ": unknown type " + s.type().text());
            }
            return Val.Int.of(size, longSize, false);
        } else if (e instanceof Expr.SizeofExpr s) {
            return Val.Int.of(sizeOf(s.operand()), longSize, false);
        } else if (e instanceof Expr.Call c) {
            if (helpers == null) {
                helpers = new HelperCalls(this);
            }
            return helpers.call(c);
        } else if (e instanceof Expr.Braced b) {
            throw new EvalException("col " + b.column() + ": brace list outside a print table");
        }
        throw new EvalException("unknown expression " + e);
    }

    private int sizeOf(Expr e) {
        if (e instanceof Expr.FieldRef f && f.field() != null) {
            return f.field().size();
        }
        Val v = eval(e);
        if (v instanceof Val.Int i) {
            return i.size();
        }
        if (v instanceof Val.Mem m && e instanceof Expr.Index) {
            return m.elemSize();
        }
        throw new EvalException("col " + e.column() + ": sizeof of this expression is not supported");
    }

    Val field(Field f, String name) {
        if (f == null) {
            throw new EvalException("no field " + name);
        }
        try {
            switch (f.kind()) {
                case INTEGER -> {
                    if (f.size() != 1 && f.size() != 2 && f.size() != 4 && f.size() != 8) {
                        throw new EvalException("field " + name + " has size " + f.size());
                    }
                    return Val.Int.of(readInt(data, f.offset(), f.size(), f.signed()), f.size(), f.signed());
                }
                case POINTER -> {
                    long v = readInt(data, f.offset(), f.size(), false);
                    return new Val.Int(v, f.size(), false, true);
                }
                case CHAR_ARRAY, ARRAY, OPAQUE -> {
                    int off = f.offset();
                    int end = f.isFlexible() ? data.length : off + f.size();
                    if (off < 0 || end > data.length || end < off) {
                        throw new EvalException("field " + name + " outside the record");
                    }
                    int es = f.kind() == FieldKind.ARRAY ? Math.max(1, f.elementSize()) : 1;
                    return new Val.Mem(data, off, end, es, f.signed());
                }
                default -> {
                    return dynamic(f, name);
                }
            }
        } catch (RecordException ex) {
            throw new EvalException(ex.getMessage());
        }
    }

    /** A dynamic field's data ({@code __data_loc} / {@code __rel_loc}) as memory of the record. */
    Val.Mem dynamic(Field f, String name) {
        if (!f.kind().isDynamic()) {
            throw new EvalException("field " + name + " is not a dynamic array");
        }
        int off;
        int len;
        try {
            off = record.dynamicOffset(f);
            len = record.dynamicLength(f);
        } catch (RecordException ex) {
            throw new EvalException(ex.getMessage());
        }
        if (off < 0 || off + len > data.length) {
            throw new EvalException("dynamic field " + name + " (" + off + "+" + len + ") outside the record of "
                    + data.length + " bytes");
        }
        int es = Math.max(1, f.elementSize());
        boolean signed = f.signed();
        return new Val.Mem(data, off, off + len, es, signed);
    }

    private Val index(Val base, long idx) {
        if (base instanceof Val.Mem m) {
            long off = m.offset() + idx * m.elemSize();
            if (idx < 0 || off + m.elemSize() > m.limit()) {
                throw new EvalException("index " + idx + " outside an array of " + m.available() + " bytes");
            }
            return Val.Int.of(readInt(m.data(), (int) off, m.elemSize(), m.elemSigned()), m.elemSize(), m.elemSigned());
        }
        if (base instanceof Val.Text t) {
            if (idx < 0 || idx > t.text().length()) {
                throw new EvalException("index " + idx + " outside a string");
            }
            return Val.Int.of(idx == t.text().length() ? 0 : t.text().charAt((int) idx), 1, true);
        }
        throw new EvalException("cannot index a value that does not point into the record");
    }

    /** The usual arithmetic conversions ({@link CInt#convert}), as {a, b} in their common type. */
    static Val.Int[] convert(Val.Int a, Val.Int b) {
        CInt[] c = CInt.convert(a.c(), b.c());
        return new Val.Int[] {Val.Int.of(c[0]), Val.Int.of(c[1])};
    }

    Val.Int asInt(Val v, String what) {
        if (v instanceof Val.Int i) {
            return i;
        }
        throw new EvalException(what + " needs an integer, got " + describe(v));
    }

    /** {@link #asInt} for an operand of {@code op}: the message is built only when it fails (every operator asks). */
    private Val.Int operand(Val v, String op) {
        return v instanceof Val.Int i ? i : asInt(v, "operator " + op);
    }

    static String describe(Val v) {
        if (v instanceof Val.Mem) {
            return "a pointer into the record";
        }
        if (v instanceof Val.Text) {
            return "a string";
        }
        return "an integer";
    }

    long toInt(Val v) {
        return asInt(v, "index").bits();
    }

    boolean truth(Val v) {
        if (v instanceof Val.Int i) {
            return i.bits() != 0;
        }
        return true;
    }

    private Val unary(Expr.Unary u) {
        switch (u.op()) {
            case "!" -> {
                return Val.Int.bool(!truth(eval(u.operand())));
            }
            case "&" -> {
                return addressOf(u.operand());
            }
            case "*" -> {
                Val v = eval(u.operand());
                return index(v, 0);
            }
            default -> {
            }
        }
        Val.Int v = operand(eval(u.operand()), u.op());
        try {
            return Val.Int.of(v.c().unary(u.op()));
        } catch (IllegalArgumentException ex) {
            throw new EvalException("col " + u.column() + ": " + ex.getMessage());
        }
    }

    private Val addressOf(Expr e) {
        if (e instanceof Expr.Index ix) {
            Val base = eval(ix.base());
            long idx = toInt(eval(ix.index()));
            if (base instanceof Val.Mem m) {
                long off = m.offset() + idx * m.elemSize();
                if (idx < 0 || off > m.limit()) {
                    throw new EvalException("index " + idx + " outside an array");
                }
                return new Val.Mem(m.data(), (int) off, m.limit(), m.elemSize(), m.elemSigned());
            }
        }
        if (e instanceof Expr.FieldRef f && f.field() != null && f.field().kind() != FieldKind.POINTER) {
            Field fl = f.field();
            if (fl.kind() == FieldKind.INTEGER) {
                if (fl.offset() + fl.size() > data.length) {
                    throw new EvalException("field " + fl.name() + " outside the record");
                }
                return new Val.Mem(data, fl.offset(), fl.offset() + fl.size(), fl.size(), fl.signed());
            }
            Val v = eval(e);
            if (v instanceof Val.Mem) {
                return v;
            }
        }
        throw new EvalException("col " + e.column() + ": cannot take this address");
    }

    private Val binary(Expr.Binary b) {
        String op = b.op();
        switch (op) {
            case "&&" -> {
                return Val.Int.bool(truth(eval(b.left())) && truth(eval(b.right())));
            }
            case "||" -> {
                return Val.Int.bool(truth(eval(b.left())) || truth(eval(b.right())));
            }
            case "," -> {
                eval(b.left());
                return eval(b.right());
            }
            default -> {
            }
        }
        Val lv = eval(b.left());
        Val rv = eval(b.right());
        if (b.left() instanceof Expr.Cast c && c.type().pointer() && lv instanceof Val.Int p && p.pointer()
                && rv instanceof Val.Int i && (op.equals("+") || op.equals("-"))) {
            // C pointer arithmetic on a kernel address: scale by the pointee's size; a struct's
            // size is only known when calibrated (KernelVariables), else the record falls back
            String pointee = c.type().pointee();
            int size = CTypes.sizeOf(pointee, longSize);
            if (size <= 0) {
                size = ctx.variables().sizeOf(CTypes.normalize(pointee));
            }
            if (pointee.equals("void")) {
                size = 1;
            }
            if (size <= 0) {
                throw new EvalException("col " + b.column() + ": size of " + pointee + " unknown for pointer arithmetic");
            }
            long scaled = i.bits() * size;
            long bits = op.equals("+") ? p.bits() + scaled : p.bits() - scaled;
            return new Val.Int(Val.Int.extend(bits, longSize, false), longSize, false, true);
        }
        if (lv instanceof Val.Mem m && rv instanceof Val.Int i && (op.equals("+") || op.equals("-"))) {
            long off = m.offset() + (op.equals("+") ? i.bits() : -i.bits()) * m.elemSize();
            if (off < 0 || off > m.limit()) {
                throw new EvalException("pointer arithmetic leaves the record");
            }
            return new Val.Mem(m.data(), (int) off, m.limit(), m.elemSize(), m.elemSigned());
        }
        Val.Int l = operand(lv, op);
        Val.Int r = operand(rv, op);
        try {
            return Val.Int.of(CInt.binary(op, l.c(), r.c()));
        } catch (ArithmeticException | IllegalArgumentException ex) {
            throw new EvalException("col " + b.column() + ": " + ex.getMessage());
        }
    }

    private Val ternary(Expr.Ternary t) {
        boolean c = truth(eval(t.cond()));
        Val chosen = eval(c ? t.then() : t.otherwise());
        if (chosen instanceof Val.Int ci && !ci.pointer()) {
            // both arms integers: the result has their common type (C11 6.5.15), whichever is taken;
            // the other arm's type from its expression, else (a helper call, an identifier) its value
            Expr otherArm = c ? t.otherwise() : t.then();
            CInt type = typeOf(otherArm);
            Val other;
            if (type != null) {
                other = Val.Int.of(type);
            } else {
                try {
                    other = eval(otherArm);
                } catch (EvalException ex) {
                    return chosen;
                }
            }
            if (other instanceof Val.Int oi && !oi.pointer()) {
                return c ? convert(ci, oi)[0] : convert(oi, ci)[1];
            }
        }
        return chosen;
    }

    /**
     * The C type of an integer expression, found without evaluating it (C11 6.5: an arm C does not
     * take may divide by zero), as a {@link CInt} of value 0; null when the expression is not an
     * integer of a type known from its text (pointers, strings, helper calls, identifiers).
     */
    private CInt typeOf(Expr e) {
        if (e instanceof Expr.IntLit l) {
            return CInt.of(0, l.size(), l.signed());
        } else if (e instanceof Expr.FieldRef f && f.field() != null && f.field().kind() == FieldKind.INTEGER) {
            return CInt.of(0, f.field().size(), f.field().signed());
        } else if (e instanceof Expr.Cast k && !k.type().pointer()) {
            String n = k.type().normalized();
            if (n.equals("bool") || n.equals("_Bool")) {
                return CInt.of(0, CArith.BOOL.size(), CArith.BOOL.signed());
            }
            int size = k.type().size(longSize);
            return size > 0 && !n.equals("void") ? CInt.of(0, size, k.type().signed()) : null;
        } else if (e instanceof Expr.Unary u) {
            CInt o = u.op().equals("!") ? CInt.bool(false) : typeOf(u.operand());
            return o == null || u.op().equals("!") ? o : switch (u.op()) {
                case "-", "~", "+" -> o.promote();
                default -> null;
            };
        } else if (e instanceof Expr.Binary b) {
            return binaryType(b);
        } else if (e instanceof Expr.Ternary t) {
            CInt a = typeOf(t.then());
            CInt o = typeOf(t.otherwise());
            return a == null || o == null ? null : CInt.convert(a, o)[0];
        } else if (e instanceof Expr.SizeofType || e instanceof Expr.SizeofExpr) {
            return CInt.of(0, longSize, false);
        }
        return null;
    }

    private CInt binaryType(Expr.Binary b) {
        switch (b.op()) {
            case "&&", "||", "==", "!=", "<", "<=", ">", ">=" -> {
                return CInt.bool(false);
            }
            case "<<", ">>" -> {
                CInt l = typeOf(b.left());
                return l == null ? null : l.promote();
            }
            case "+", "-", "*", "/", "%", "&", "|", "^" -> {
                CInt l = typeOf(b.left());
                CInt r = typeOf(b.right());
                return l == null || r == null ? null : CInt.convert(l, r)[0];
            }
            default -> {
                return null;
            }
        }
    }

    Val cast(CType type, Val v) {
        if (type.pointer()) {
            if (v instanceof Val.Mem m) {
                int es = CTypes.sizeOf(type.pointee(), longSize);
                return new Val.Mem(m.data(), m.offset(), m.limit(), es > 0 ? es : 1,
                        CTypes.isSigned(type.pointee()));
            }
            if (v instanceof Val.Text) {
                return v;
            }
            Val.Int i = (Val.Int) v;
            return new Val.Int(Val.Int.extend(i.bits(), longSize, false), longSize, false, true);
        }
        String n = type.normalized();
        if (n.equals("void")) {
            return Val.Int.of(0, 4, true);
        }
        int size = type.size(longSize);
        if (v instanceof Val.Int i) {
            if (n.equals("bool") || n.equals("_Bool")) {
                return Val.Int.of(i.bits() != 0 ? 1 : 0, CArith.BOOL.size(), CArith.BOOL.signed());
            }
            if (size < 0) {
                return i; // unknown typedef: keep the value's type
            }
            return Val.Int.of(i.bits(), size, type.signed());
        }
        throw new EvalException("cannot cast " + describe(v) + " to " + type.text());
    }
}
