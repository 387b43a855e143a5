package org.tracewire.printfmt;

import java.util.List;
import java.util.Set;
import org.tracewire.format.Field;
import org.tracewire.record.RecordException;

/**
 * The kernel helpers a print fmt calls, for an {@link Evaluator}: the dynamic field getters
 * ({@code __get_str}, {@code __get_dynamic_array}, {@code __get_bitmask}, ...), the
 * {@code __print_*} helpers of {@code include/trace/stages/stage3_trace_output.h} as
 * {@code kernel/trace/trace_output.c} implements them ({@code trace_print_flags_seq()},
 * {@code trace_print_symbols_seq()}, {@code trace_print_hex_seq()}, {@code trace_print_array_seq()}),
 * {@code jiffies_to_msecs()} of {@code kernel/time/time.c}, and {@code __builtin_expect} /
 * {@code __builtin_constant_p}. Every failure is an {@link EvalException}.
 */
final class HelperCalls {
    /** The helpers implemented. */
    static final Set<String> HELPERS = Set.of("__get_str", "__get_rel_str", "__get_dynamic_array",
            "__get_rel_dynamic_array", "__get_dynamic_array_len", "__get_rel_dynamic_array_len",
            "__get_bitmask", "__get_rel_bitmask", "__get_cpumask", "__get_rel_cpumask", "__get_sockaddr",
            "__get_rel_sockaddr", "__print_flags", "__print_flags_u64", "__print_symbolic", "__print_symbolic_u64",
            "__print_hex", "__print_hex_str", "__print_array", "__print_dynamic_array", "__print_ns_to_secs",
            "__print_ns_without_secs", "jiffies_to_msecs", "__builtin_expect", "__builtin_constant_p");

    private static final int MAX_HELPER_OUTPUT = 1 << 16;

    private final Evaluator ev;

    /** @param ev the evaluator whose record and context the helpers read */
    HelperCalls(Evaluator ev) {
        this.ev = ev;
    }

    private Field fieldArg(Expr e, String helper) {
        String name;
        Field f;
        if (e instanceof Expr.Ident id) {
            name = id.name();
            f = ev.record().format().field(name);
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
        Val v = ev.eval(e);
        if (v instanceof Val.Mem m) {
            return m;
        }
        throw new EvalException("col " + e.column() + ": " + helper + " needs a pointer into the record, got " + Evaluator.describe(v));
    }

    /**
     * A helper call's value; an unknown helper or bad arguments are an {@link EvalException}.
     */
    // Long: a dispatch table, one case per kernel helper name, a few lines each
    Val call(Expr.Call c) {
        String name = c.name();
        List<Expr> a = c.args();
        switch (name) {
            case "__get_str", "__get_rel_str", "__get_dynamic_array", "__get_rel_dynamic_array",
                 "__get_sockaddr", "__get_rel_sockaddr" -> {
                need(c, 1);
                Field f = fieldArg(a.get(0), name);
                return ev.dynamic(f, f.name());
            }
            case "__get_dynamic_array_len", "__get_rel_dynamic_array_len" -> {
                need(c, 1);
                Field f = fieldArg(a.get(0), name);
                try {
                    return Val.Int.of(ev.record().dynamicLength(f), 4, false);
                } catch (RecordException ex) {
                    throw new EvalException(ex.getMessage());
                }
            }
            case "__get_bitmask", "__get_rel_bitmask", "__get_cpumask", "__get_rel_cpumask" -> {
                need(c, 1);
                Field f = fieldArg(a.get(0), name);
                Val.Mem m = ev.dynamic(f, f.name());
                return new Val.Text(Vsprintf.bitmap(ev, m, m.available() * 8, false));
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
                long len = ev.asInt(ev.eval(a.get(1)), name).bits();
                return new Val.Text(hex(m, len, name.endsWith("str")));
            }
            case "__print_array" -> {
                need(c, 3);
                Val.Mem m = memArg(a.get(0), name);
                long count = ev.asInt(ev.eval(a.get(1)), name).bits();
                long el = ev.asInt(ev.eval(a.get(2)), name).bits();
                return new Val.Text(array(m, count, el));
            }
            case "__print_dynamic_array" -> {
                need(c, 2);
                Field f = fieldArg(a.get(0), name);
                Val.Mem m = ev.dynamic(f, f.name());
                long el = ev.asInt(ev.eval(a.get(1)), name).bits();
                if (el <= 0) {
                    throw new EvalException("col " + c.column() + ": bad element size " + el);
                }
                return new Val.Text(array(m, m.available() / el, el));
            }
            case "__print_ns_to_secs" -> {
                need(c, 1);
                long v = ev.asInt(ev.eval(a.get(0)), name).bits();
                return Val.Int.of(Long.divideUnsigned(v, 1_000_000_000L), 8, false);
            }
            case "__print_ns_without_secs" -> {
                need(c, 1);
                long v = ev.asInt(ev.eval(a.get(0)), name).bits();
                return Val.Int.of(Long.remainderUnsigned(v, 1_000_000_000L), 4, false);
            }
            case "jiffies_to_msecs" -> {
                need(c, 1);
                long j = ev.asInt(ev.eval(a.get(0)), name).bits() & 0xffffffffL;
                if (ev.longSize() == 8) {
                    j = ev.asInt(ev.eval(a.get(0)), name).bits();
                }
                return Val.Int.of(jiffiesToMsecs(j), 4, false);
            }
            case "__builtin_expect" -> {
                need(c, 2);
                return ev.eval(a.get(0));
            }
            case "__builtin_constant_p" -> {
                return Val.Int.of(0, 4, true);
            }
            default -> throw new EvalException("col " + c.column() + ": unknown helper " + name);
        }
    }

    /** {@code jiffies_to_msecs()} of {@code kernel/time/time.c} for the context's HZ. */
    private long jiffiesToMsecs(long j) {
        int hz = ev.context().hz();
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
        long flags = tableValue(a.get(0), c, u64);
        Val delimV = ev.eval(a.get(1));
        String delim = delimV instanceof Val.Text t ? t.text() : delimV instanceof Val.Mem m ? m.cString(4096) : null;
        StringBuilder sb = new StringBuilder();
        boolean first = true;
        boolean unknown = false;
        for (int i = 2; i < a.size() && flags != 0; i++) {
            Expr.Braced entry = entry(a.get(i), c);
            long mask;
            try {
                mask = tableValue(entry.items().get(0), c, u64);
            } catch (EvalException ex) {
                unknown = true;
                continue;
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
        long val = tableValue(a.get(0), c, u64);
        boolean unknown = false;
        for (int i = 1; i < a.size(); i++) {
            Expr.Braced entry = entry(a.get(i), c);
            long key;
            try {
                key = tableValue(entry.items().get(0), c, u64);
            } catch (EvalException ex) {
                unknown = true;
                continue;
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

    /** A flags / symbols value or table key as the kernel compares it: an unsigned long unless {@code u64}. */
    private long tableValue(Expr e, Expr.Call c, boolean u64) {
        long v = ev.asInt(ev.eval(e), c.name()).bits();
        return u64 ? v : Val.Int.extend(v, ev.longSize(), false);
    }

    private static Expr.Braced entry(Expr e, Expr.Call c) {
        if (e instanceof Expr.Braced b && b.items().size() == 2) {
            return b;
        }
        throw new EvalException("col " + e.column() + ": " + c.name() + " entries must be { value, \"name\" }");
    }

    private String entryName(Expr.Braced entry, Expr.Call c) {
        Val v = ev.eval(entry.items().get(1));
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
            long v = ev.readInt(m.data(), m.offset() + i * (int) el, (int) el, false);
            sb.append("0x").append(Long.toHexString(v));
        }
        return sb.append('}').toString();
    }
}
