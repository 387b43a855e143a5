package org.tracewire.printfmt;

import java.nio.ByteOrder;
import java.util.List;
import java.util.Set;
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
 * Every failure is an {@link EvalException}.
 */
final class Evaluator {

    /** Helpers the evaluator implements. */
    static final Set<String> HELPERS = Set.of("__get_str", "__get_rel_str", "__get_dynamic_array",
            "__get_rel_dynamic_array", "__get_dynamic_array_len", "__get_rel_dynamic_array_len",
            "__get_bitmask", "__get_rel_bitmask", "__get_cpumask", "__get_rel_cpumask", "__get_sockaddr",
            "__get_rel_sockaddr", "__print_flags", "__print_flags_u64", "__print_symbolic", "__print_symbolic_u64",
            "__print_hex", "__print_hex_str", "__print_array", "__print_dynamic_array", "__print_ns_to_secs",
            "__print_ns_without_secs", "jiffies_to_msecs", "__builtin_expect", "__builtin_constant_p");

    private static final int MAX_HELPER_OUTPUT = 1 << 16;

    private final EventRecord record;
    private final byte[] data;
    private final KernelLayout layout;
    private final PrintContext ctx;
    private final int longSize;

    Evaluator(EventRecord record, PrintContext ctx) {
        this.record = record;
        this.layout = record.layout();
        this.longSize = layout.longSize();
        this.ctx = ctx;
        this.data = new byte[record.length()];
        record.payload().get(0, data);
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
            return call(c);
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

    private Val.Mem dynamic(Field f, String name) {
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
        Val.Int v = asInt(eval(u.operand()), "operator " + u.op());
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
        Val.Int l = asInt(lv, "operator " + op);
        Val.Int r = asInt(rv, "operator " + op);
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
            // both arms integers: the result has their common type (C11 6.5.15)
            Val other;
            try {
                other = eval(c ? t.otherwise() : t.then());
            } catch (EvalException ex) {
                return chosen;
            }
            if (other instanceof Val.Int oi && !oi.pointer()) {
                return c ? convert(ci, oi)[0] : convert(oi, ci)[1];
            }
        }
        return chosen;
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
                return Val.Int.of(i.bits() != 0 ? 1 : 0, 1, false);
            }
            if (size < 0) {
                return i; // unknown typedef: keep the value's type
            }
            return Val.Int.of(i.bits(), size, type.signed());
        }
        throw new EvalException("cannot cast " + describe(v) + " to " + type.text());
    }

    // ------------------------------------------------------------------ helpers

    private Field fieldArg(Expr e, String helper) {
        String name;
        Field f;
        if (e instanceof Expr.Ident id) {
            name = id.name();
            f = record.format().field(name);
        } else if (e instanceof Expr.FieldRef fr) {
            name = fr.name();
            f = fr.field();
        } else {
            throw new EvalException("col " + e.column() + ": " + helper + " needs a field name");
        }
        if (f == null) {
            throw new EvalException("col " + e.column() + ": " + helper + ": no field " + name);
        }
        return f;
    }

    private Val.Mem memArg(Expr e, String helper) {
        Val v = eval(e);
        if (v instanceof Val.Mem m) {
            return m;
        }
        throw new EvalException("col " + e.column() + ": " + helper + " needs a pointer into the record, got " + describe(v));
    }

    private Val call(Expr.Call c) {
        String name = c.name();
        List<Expr> a = c.args();
        switch (name) {
            case "__get_str", "__get_rel_str", "__get_dynamic_array", "__get_rel_dynamic_array",
                 "__get_sockaddr", "__get_rel_sockaddr" -> {
                need(c, 1);
                Field f = fieldArg(a.get(0), name);
                return dynamic(f, f.name());
            }
            case "__get_dynamic_array_len", "__get_rel_dynamic_array_len" -> {
                need(c, 1);
                Field f = fieldArg(a.get(0), name);
                try {
                    return Val.Int.of(record.dynamicLength(f), 4, false);
                } catch (RecordException ex) {
                    throw new EvalException(ex.getMessage());
                }
            }
            case "__get_bitmask", "__get_rel_bitmask", "__get_cpumask", "__get_rel_cpumask" -> {
                need(c, 1);
                Field f = fieldArg(a.get(0), name);
                Val.Mem m = dynamic(f, f.name());
                return new Val.Text(Vsprintf.bitmap(this, m, m.available() * 8, false));
            }
            case "__print_flags", "__print_flags_u64" -> {
                if (a.size() < 2) {
                    throw new EvalException("col " + c.column() + ": " + name + " needs a value and a delimiter");
                }
                return printFlags(c, name.endsWith("u64"));
            }
            case "__print_symbolic", "__print_symbolic_u64" -> {
                if (a.isEmpty()) {
                    throw new EvalException("col " + c.column() + ": " + name + " needs a value");
                }
                return printSymbolic(c, name.endsWith("u64"));
            }
            case "__print_hex", "__print_hex_str" -> {
                need(c, 2);
                Val.Mem m = memArg(a.get(0), name);
                long len = asInt(eval(a.get(1)), name).bits();
                return new Val.Text(hex(m, len, name.endsWith("str")));
            }
            case "__print_array" -> {
                need(c, 3);
                Val.Mem m = memArg(a.get(0), name);
                long count = asInt(eval(a.get(1)), name).bits();
                long el = asInt(eval(a.get(2)), name).bits();
                return new Val.Text(array(m, count, el));
            }
            case "__print_dynamic_array" -> {
                need(c, 2);
                Field f = fieldArg(a.get(0), name);
                Val.Mem m = dynamic(f, f.name());
                long el = asInt(eval(a.get(1)), name).bits();
                if (el <= 0) {
                    throw new EvalException("col " + c.column() + ": bad element size " + el);
                }
                return new Val.Text(array(m, m.available() / el, el));
            }
            case "__print_ns_to_secs" -> {
                need(c, 1);
                long v = asInt(eval(a.get(0)), name).bits();
                return Val.Int.of(Long.divideUnsigned(v, 1_000_000_000L), 8, false);
            }
            case "__print_ns_without_secs" -> {
                need(c, 1);
                long v = asInt(eval(a.get(0)), name).bits();
                return Val.Int.of(Long.remainderUnsigned(v, 1_000_000_000L), 4, false);
            }
            case "jiffies_to_msecs" -> {
                need(c, 1);
                long j = asInt(eval(a.get(0)), name).bits() & 0xffffffffL;
                if (longSize == 8) {
                    j = asInt(eval(a.get(0)), name).bits();
                }
                return Val.Int.of(jiffiesToMsecs(j), 4, false);
            }
            case "__builtin_expect" -> {
                need(c, 2);
                return eval(a.get(0));
            }
            case "__builtin_constant_p" -> {
                return Val.Int.of(0, 4, true);
            }
            default -> throw new EvalException("col " + c.column() + ": unknown helper " + name);
        }
    }

    /** {@code jiffies_to_msecs()} of {@code kernel/time/time.c} for the context's HZ. */
    private long jiffiesToMsecs(long j) {
        int hz = ctx.hz();
        if (hz <= 0) {
            throw new EvalException("jiffies_to_msecs needs HZ, which the print context does not give");
        }
        if (hz <= 1000 && 1000 % hz == 0) {
            return (1000L / hz) * j;
        }
        if (hz > 1000 && hz % 1000 == 0) {
            long d = hz / 1000;
            return Long.divideUnsigned(j + d - 1, d);
        }
        return Long.divideUnsigned(j * 1000L, hz);
    }

    private void need(Expr.Call c, int n) {
        if (c.args().size() != n) {
            throw new EvalException("col " + c.column() + ": " + c.name() + " takes " + n + " argument(s), got "
                    + c.args().size());
        }
    }

    /** {@code trace_print_flags_seq()} / {@code trace_print_flags_seq_u64()} of {@code kernel/trace/trace_output.c}. */
    private Val printFlags(Expr.Call c, boolean u64) {
        List<Expr> a = c.args();
        long flags = asInt(eval(a.get(0)), c.name()).bits();
        if (!u64) {
            flags = Val.Int.extend(flags, longSize, false);
        }
        Val delimV = eval(a.get(1));
        String delim = delimV instanceof Val.Text t ? t.text() : delimV instanceof Val.Mem m ? m.cString(4096) : null;
        StringBuilder sb = new StringBuilder();
        boolean first = true;
        boolean unknown = false;
        for (int i = 2; i < a.size() && flags != 0; i++) {
            Expr.Braced entry = entry(a.get(i), c);
            long mask;
            try {
                mask = asInt(eval(entry.items().get(0)), c.name()).bits();
            } catch (EvalException ex) {
                unknown = true;
                continue;
            }
            if (!u64) {
                mask = Val.Int.extend(mask, longSize, false);
            }
            if ((flags & mask) != mask) {
                continue;
            }
            String str = entryName(entry, c);
            flags &= ~mask;
            if (!first && delim != null) {
                sb.append(delim);
            } else {
                first = false;
            }
            sb.append(str);
            if (sb.length() > MAX_HELPER_OUTPUT) {
                break;
            }
        }
        if (flags != 0) {
            if (unknown) {
                throw new EvalException("col " + c.column() + ": " + c.name() + " table has unresolved names");
            }
            if (!first && delim != null) {
                sb.append(delim);
            }
            sb.append("0x").append(Long.toHexString(flags));
        }
        return new Val.Text(sb.toString());
    }

    /** {@code trace_print_symbols_seq()} / {@code trace_print_symbols_seq_u64()}. */
    private Val printSymbolic(Expr.Call c, boolean u64) {
        List<Expr> a = c.args();
        long val = asInt(eval(a.get(0)), c.name()).bits();
        if (!u64) {
            val = Val.Int.extend(val, longSize, false);
        }
        boolean unknown = false;
        for (int i = 1; i < a.size(); i++) {
            Expr.Braced entry = entry(a.get(i), c);
            long key;
            try {
                key = asInt(eval(entry.items().get(0)), c.name()).bits();
            } catch (EvalException ex) {
                unknown = true;
                continue;
            }
            if (!u64) {
                key = Val.Int.extend(key, longSize, false);
            }
            if (key == val) {
                String name = entryName(entry, c);
                if (!name.isEmpty()) {
                    return new Val.Text(name);
                }
                break;
            }
        }
        if (unknown) {
            throw new EvalException("col " + c.column() + ": " + c.name() + " table has unresolved names");
        }
        return new Val.Text("0x" + Long.toHexString(val));
    }

    private static Expr.Braced entry(Expr e, Expr.Call c) {
        if (e instanceof Expr.Braced b && b.items().size() == 2) {
            return b;
        }
        throw new EvalException("col " + e.column() + ": " + c.name() + " entries must be { value, \"name\" }");
    }

    private String entryName(Expr.Braced entry, Expr.Call c) {
        Val v = eval(entry.items().get(1));
        if (v instanceof Val.Text t) {
            return t.text();
        }
        throw new EvalException("col " + entry.column() + ": " + c.name() + " entry name is not a string");
    }

    /** {@code trace_print_hex_seq()}: {@code %2.2x} per byte, space-separated unless concatenated. */
    private String hex(Val.Mem m, long len, boolean concatenate) {
        if (len < 0 || len > m.available()) {
            throw new EvalException("hex dump of " + len + " bytes, only " + m.available() + " in the record");
        }
        StringBuilder sb = new StringBuilder((int) len * 3);
        for (int i = 0; i < len; i++) {
            if (!concatenate && i > 0) {
                sb.append(' ');
            }
            int b = m.data()[m.offset() + i] & 0xff;
            sb.append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 15, 16));
        }
        return sb.toString();
    }

    /** {@code trace_print_array_seq()}: {@code {0x1,0x2}}. */
    private String array(Val.Mem m, long count, long el) {
        if (el != 1 && el != 2 && el != 4 && el != 8) {
            throw new EvalException("array element size " + el + " is not 1, 2, 4 or 8");
        }
        if (count < 0 || count * el > m.available()) {
            throw new EvalException("array of " + count + " x " + el + " bytes, only " + m.available() + " in the record");
        }
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                sb.append(',');
            }
            long v = readInt(m.data(), m.offset() + i * (int) el, (int) el, false);
            sb.append("0x").append(Long.toHexString(v));
        }
        return sb.append('}').toString();
    }
}
