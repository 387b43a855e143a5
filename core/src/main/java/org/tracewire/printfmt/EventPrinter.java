package org.tracewire.printfmt;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.tracewire.format.CTypes;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;

/**
 * Renders records of one event the way the kernel writes them into its {@code trace} file after
 * {@code event_name: } — i.e. what the generated {@code trace_raw_output_<event>()} functions of
 * {@code include/trace/stages/stage3_trace_output.h} print with {@code lib/vsprintf.c} semantics —
 * from the event's {@code print fmt}. Assumes the instance's {@code hash-ptr} option is off (the
 * kernel then turns a bare {@code %p} into {@code %px}: {@code kernel/trace/trace.c},
 * {@code trace_event_format()}).
 *
 * <p><b>Fallback.</b> When the print fmt cannot be parsed or uses something this class cannot
 * reproduce (an unknown helper such as {@code trace_seq_printf}, an unsupported {@code %p}
 * extension, an unknown field), the printer is a <em>fallback printer</em>: {@link #isFallback()}
 * is true and {@link #fallbackReason()} says why ({@code "col 57: unknown helper trace_seq_printf"}).
 * When evaluating one record fails (a record too short, an index out of range, a division by zero,
 * an identifier that is neither in the context's {@link PrintContext#enums() enum constants} nor in
 * a small built-in table of ABI-stable ones — e.g. the run-time variables {@code vmemmap_base} or
 * {@code jiffies} —, a {@code %pS} without a symbol table, a {@code %s} whose string is not in
 * {@code printk_formats}, {@code jiffies_to_msecs} without HZ, {@code %pK} …) that record is
 * rendered in the fallback format and {@link #renderDetailed} reports the reason. The fallback
 * format follows libtraceevent's {@code tep_print_fields()}: each of the event's own (non-common)
 * fields as {@code name=value}, separated by single spaces, where
 * <ul>
 *   <li>char arrays and {@code __data_loc char[]} strings print as their text (up to the first NUL);</li>
 *   <li>integers print in decimal, signed or unsigned per the field's {@code signed:} flag, except
 *       {@code long}/{@code unsigned long} fields which print as {@code 0x} hex;</li>
 *   <li>pointers print as {@code 0x} hex;</li>
 *   <li>other arrays, dynamic arrays, cpumasks and opaque fields print their bytes as
 *       {@code ARRAY[0a, 1b, ...]} (two hex digits per byte);</li>
 *   <li>a field that cannot be read from the record prints as {@code name=?}.</li>
 * </ul>
 *
 * <p>Thread-safe and immutable; {@link #render} never throws on a bad record.
 */
public final class EventPrinter {
    private final EventFormat format;
    private final KernelLayout layout;
    private final PrintFmt printFmt;
    private final String fallbackReason;

    private EventPrinter(EventFormat format, KernelLayout layout, PrintFmt printFmt, String fallbackReason) {
        this.format = format;
        this.layout = layout;
        this.printFmt = printFmt;
        this.fallbackReason = fallbackReason;
    }

    /**
     * Compiles an event's print fmt. Never throws: a print fmt that fails to parse or uses an
     * unknown helper yields a fallback printer.
     *
     * @param format the event's format (its {@code printFmt} is compiled)
     * @param layout the traced kernel's byte order and long size (records passed to {@link #render}
     *               carry their own layout; this one is used for checks only)
     */
    public static EventPrinter compile(EventFormat format, KernelLayout layout) {
        Key key = new Key(format, layout);
        EventPrinter p = COMPILED.get(key);
        if (p == null) {
            p = compileNew(format, layout);
            COMPILED.put(key, p);
        }
        return p;
    }

    /**
     * Printers compiled before, by format and layout (records: equal by value), the most recently
     * used 4,096: each file opened compiles its formats' printers, mostly the ones of the file
     * before (a file reopened, files merged, the tests' thousands of mutated files).
     */
    private static final Map<Key, EventPrinter> COMPILED = Collections.synchronizedMap(
            new LinkedHashMap<>(256, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Key, EventPrinter> eldest) {
                    return size() > 4096;
                }
            });

    private record Key(EventFormat format, KernelLayout layout) {
    }

    private static EventPrinter compileNew(EventFormat format, KernelLayout layout) {
        PrintFmt pf;
        try {
            if (format.printFmt().isBlank()) {
                return new EventPrinter(format, layout, null, "col 1: empty print fmt");
            }
            pf = PrintFmtParser.parse(format.printFmt(), format);
        } catch (PrintFmtException e) {
            return new EventPrinter(format, layout, null, "col " + e.column() + ": "
                    + e.getMessage().substring(e.getMessage().indexOf(": ", e.getMessage().indexOf("col ")) + 2));
        } catch (RuntimeException e) {
            return new EventPrinter(format, layout, null, "col 1: parser failure: " + e);
        }
        String reason = Support.check(pf, format.fieldsByName().keySet());
        return new EventPrinter(format, layout, reason == null ? pf : null, reason);
    }

    /** True when every record is rendered as name=value pairs. */
    public boolean isFallback() {
        return fallbackReason != null;
    }

    /** Null when not a fallback printer; else why, starting with the column, e.g. {@code col 57: unknown helper trace_seq_printf}. */
    public String fallbackReason() {
        return fallbackReason;
    }

    /** The parsed print fmt, or null for a fallback printer. */
    public PrintFmt printFmt() {
        return printFmt;
    }

    /** The event this printer renders. */
    public EventFormat format() {
        return format;
    }

    /**
     * Renders one record: the kernel's text after {@code event_name: } (no trailing newline), or
     * the name=value fallback. Never throws on a bad record.
     */
    public String render(EventRecord record, PrintContext context) {
        return renderDetailed(record, context).text();
    }

    /** Like {@link #render} but also says whether, and why, the fallback format was used. */
    public RenderResult renderDetailed(EventRecord record, PrintContext context) {
        if (context == null) {
            context = PrintContext.empty();
        }
        if (printFmt == null) {
            return new RenderResult(fallbackText(record), true, fallbackReason);
        }
        try {
            return new RenderResult(renderFormat(record, context), false, null);
        } catch (EvalException e) {
            return new RenderResult(fallbackText(record), true, e.getMessage());
        } catch (RuntimeException | StackOverflowError e) {
            return new RenderResult(fallbackText(record), true, "evaluation failed: " + e);
        }
    }

    private String renderFormat(EventRecord record, PrintContext ctx) {
        Evaluator ev = new Evaluator(record, ctx);
        StringBuilder out = new StringBuilder();
        List<Expr> args = printFmt.args();
        int ai = 0;
        for (FormatSegment seg : printFmt.segments()) {
            if (seg instanceof FormatSegment.Literal lit) {
                out.append(lit.text());
                continue;
            }
            FormatSegment.Conversion c = (FormatSegment.Conversion) seg;
            int flags = Vsprintf.flags(c.flags());
            int width = c.width();
            int precision = c.precision();
            if (width == FormatSegment.Conversion.STAR) {
                long w = (int) ev.asInt(ev.eval(args.get(ai++)), c.text() + " width").bits();
                if (w < 0) {
                    flags |= Vsprintf.LEFT;
                    w = -w;
                }
                width = (int) Math.min(w, Vsprintf.MAX_WIDTH);
            }
            if (precision == FormatSegment.Conversion.STAR) {
                long p = (int) ev.asInt(ev.eval(args.get(ai++)), c.text() + " precision").bits();
                precision = (int) Math.max(0, Math.min(p, Vsprintf.MAX_WIDTH));
            }
            Expr argExpr = args.get(ai++);
            Val v = ev.eval(argExpr);
            try {
                convert(out, c, flags, width, precision, v, ev, ctx);
            } catch (EvalException e) {
                throw new EvalException("col " + c.column() + ": " + c.text() + ": " + e.getMessage());
            }
        }
        return out.toString();
    }

    private void convert(StringBuilder out, FormatSegment.Conversion c, int flags, int width, int precision,
                         Val v, Evaluator ev, PrintContext ctx) {
        int longSize = ev.longSize();
        switch (c.conversion()) {
            case 'c' -> {
                long ch = ev.asInt(v, c.text()).bits() & 0xff;
                Vsprintf.string(out, String.valueOf((char) ch), flags, width, -1);
            }
            case 's' -> Vsprintf.string(out, stringOf(v, precision, ctx), flags, width, precision);
            case 'p' -> pointer(out, c, flags, width, precision, v, ev, ctx);
            default -> {
                Val.Int i = ev.asInt(v, c.text());
                boolean signed = c.conversion() == 'd' || c.conversion() == 'i';
                int size = switch (c.qualifier()) {
                    case "hh" -> 1;
                    case "h" -> 2;
                    case "l", "z", "Z", "t" -> longSize;
                    case "ll", "L", "j" -> 8;
                    default -> 4;
                };
                long num = Val.Int.extend(i.bits(), size, signed);
                int base = 10;
                switch (c.conversion()) {
                    case 'o' -> base = 8;
                    case 'x' -> {
                        base = 16;
                        flags |= Vsprintf.SMALL;
                    }
                    case 'X' -> base = 16;
                    default -> {
                    }
                }
                if (signed) {
                    flags |= Vsprintf.SIGN;
                }
                Vsprintf.number(out, num, base, flags, width, precision);
            }
        }
    }

    private static String stringOf(Val v, int precision, PrintContext ctx) {
        if (v instanceof Val.Text t) {
            return t.text();
        }
        if (v instanceof Val.Mem m) {
            return m.cString(precision >= 0 ? precision : Integer.MAX_VALUE);
        }
        Val.Int i = (Val.Int) v;
        if (i.bits() == 0) {
            return "(null)";
        }
        String s = ctx.printkFormats().lookup(i.bits());
        if (s == null) {
            throw new EvalException("string at 0x" + Long.toHexString(i.bits()) + " is not in printk_formats");
        }
        return s;
    }

    private void pointer(StringBuilder out, FormatSegment.Conversion c, int flags, int width, int precision,
                         Val v, Evaluator ev, PrintContext ctx) {
        String ext = c.extension();
        int longSize = ev.longSize();
        final int w0 = width;
        char k = ext.isEmpty() ? 'x' : ext.charAt(0);
        switch (k) {
            case 'x' -> {
                long addr = address(v, c);
                if (width < 0) {
                    width = 2 * longSize;
                    flags |= Vsprintf.ZEROPAD;
                }
                Vsprintf.number(out, Val.Int.extend(addr, longSize, false), 16, flags | Vsprintf.SMALL, width, precision);
            }
            case 'S', 's', 'B', 'F', 'f' -> Vsprintf.string(out,
                    Vsprintf.symbol(address(v, c), ext, ctx.symbols(), longSize), flags, width, precision);
            case 'M', 'm' -> Vsprintf.string(out, nullOr(v, m -> Vsprintf.mac(m, ext)), flags, width, precision);
            case 'I', 'i' -> Vsprintf.string(out, nullOr(v, m -> Vsprintf.ip(m, ext, ev)), flags, width, precision);
            case 'U' -> Vsprintf.string(out, nullOr(v, m -> Vsprintf.uuid(m, ext)), flags, width, precision);
            case 'b' -> Vsprintf.string(out, nullOr(v, m -> Vsprintf.bitmap(ev, m, Math.max(w0, 0),
                    ext.length() > 1 && ext.charAt(1) == 'l')), 0, -1, -1);
            case 'h' -> Vsprintf.string(out, nullOr(v, m -> Vsprintf.hexString(m, ext, w0)), 0, -1, -1);
            case 'K' -> throw new EvalException("%pK prints a hashed pointer");
            default -> throw new EvalException("unsupported pointer extension");
        }
    }

    private static String nullOr(Val v, Function<Val.Mem, String> f) {
        if (v instanceof Val.Mem m) {
            return f.apply(m);
        }
        if (v instanceof Val.Int i && i.bits() == 0) {
            return "(null)";
        }
        throw new EvalException("needs memory inside the record, got " + Evaluator.describe(v));
    }

    private static long address(Val v, FormatSegment.Conversion c) {
        if (v instanceof Val.Int i) {
            return i.bits();
        }
        throw new EvalException("the address of " + Evaluator.describe(v) + " is not known");
    }

    // ------------------------------------------------------------------ fallback

    /** The name=value rendering described in the class comment. */
    public String fallbackText(EventRecord record) {
        StringBuilder sb = new StringBuilder();
        for (Field f : format.fields()) {
            if (f.common()) {
                continue;
            }
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append(f.name()).append('=');
            try {
                sb.append(fieldText(record, f));
            } catch (RuntimeException e) {
                sb.append('?');
            }
        }
        return sb.toString();
    }

    private static String fieldText(EventRecord record, Field f) {
        switch (f.kind()) {
            case CHAR_ARRAY, DYNAMIC_STRING -> {
                return record.string(f);
            }
            case POINTER -> {
                return "0x" + Long.toHexString(record.integer(f));
            }
            case INTEGER -> {
                if (f.size() != 1 && f.size() != 2 && f.size() != 4 && f.size() != 8) {
                    return bytesText(record.bytes(f));
                }
                long v = record.integer(f);
                String t = CTypes.normalize(f.type());
                if (t.equals("long") || t.equals("unsigned long") || t.equals("long int")
                        || t.equals("long unsigned int") || t.equals("unsigned long int") || t.equals("signed long")) {
                    return "0x" + Long.toHexString(Val.Int.extend(v, f.size(), false));
                }
                return f.signed() ? Long.toString(v) : Long.toUnsignedString(v);
            }
            default -> {
                return bytesText(record.bytes(f));
            }
        }
    }

    private static String bytesText(byte[] b) {
        StringBuilder sb = new StringBuilder("ARRAY[");
        int n = Math.min(b.length, 1 << 16);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(Character.forDigit((b[i] >> 4) & 15, 16)).append(Character.forDigit(b[i] & 15, 16));
        }
        return sb.append(']').toString();
    }

    @Override
    public String toString() {
        return "EventPrinter[" + format.fullName() + (isFallback() ? ", fallback: " + fallbackReason : "") + "]";
    }
}
