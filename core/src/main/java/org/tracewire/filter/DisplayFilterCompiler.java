package org.tracewire.filter;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.tracewire.format.EventFormat;

/**
 * Compiles a {@link Filter} to a Wireshark display filter (syntax of Wireshark 4.0, checked with
 * tshark 4.0.17) over tracewire's dissector fields.
 *
 * <p>Fields: an event field is {@code tracewire.<system>.<event>.<field>} in lower case; the
 * common fields map to the frame header: {@code common_pid} → {@value #PID},
 * {@code common_flags} → {@value #FLAGS}, {@code common_preempt_count} → {@value #PREEMPT_COUNT},
 * {@code CPU}/{@code cpu} → {@value #CPU}. The whole filter is prefixed by the event selector
 * {@code tracewire.event == "system:event"}.
 *
 * <p>Translation: {@code == != < <= > >=} as they are; {@code f & m} → {@code f & 0xm} (Wireshark
 * tests the result for non-zero, as the kernel does); strings {@code ==}/{@code !=} with Wireshark
 * string escapes; {@code f ~ "glob"} → {@code f matches "(?-i)(?s)^regex$"} (case-sensitive, see
 * {@link Glob#toRegex}); {@code !} → {@code !( )}; every compound operand is parenthesised.
 *
 * <p>{@code CPU} is a u16 on the wire: comparisons with values outside 0..65535 become constants.
 *
 * <p>Not expressible (the condition is dropped so that the filter widens, with a warning):
 * {@code COMM} (the task name is not on the wire) and string comparisons of {@code char *} fields
 * (the record holds only the pointer).
 */
public final class DisplayFilterCompiler {
    /** Display filter field of the event's {@code system:event} name. */
    public static final String EVENT = "tracewire.event";
    /** Header field of {@code common_pid}. */
    public static final String PID = "tracewire.pid";
    /** Header field of {@code common_flags}. */
    public static final String FLAGS = "tracewire.common_flags";
    /** Header field of {@code common_preempt_count}. */
    public static final String PREEMPT_COUNT = "tracewire.preempt_count";
    /** Header field of the CPU the event was recorded on. */
    public static final String CPU = "tracewire.cpu";

    /**
     * A display filter and what it could not express.
     *
     * @param filter   the display filter
     * @param exact    true when it selects exactly what the kernel filter selects
     * @param warnings one line per dropped condition
     */
    public record Result(String filter, boolean exact, List<String> warnings) {
        public Result {
            warnings = List.copyOf(warnings);
        }
    }

    private DisplayFilterCompiler() {
    }

    /**
     * @throws FilterSyntaxException when the filter does not fit the event ({@link FilterValidator})
     */
    public static Result compile(Filter filter, EventFormat format) {
        FilterValidator.check(filter, format);
        List<String> warnings = new ArrayList<>();
        Approx approx = new Approx(new Approx.Syntax(" && ", " || ", "!"), c -> leaf(c, format, warnings));
        Approx.Expr upper = approx.of(filter, true);
        String selector = EVENT + " == " + string(format.fullName());
        String text;
        if (upper instanceof Approx.True) {
            text = selector;
        } else if (upper instanceof Approx.False) {
            text = selector + " && !frame";
        } else {
            Approx.Text t = (Approx.Text) upper;
            text = selector + " && " + (t.compound() ? "(" + t.text() + ")" : t.text());
        }
        return new Result(text, warnings.isEmpty(), warnings);
    }

    /** The display filter field name of a filter field, or null when it is not on the wire. */
    public static String fieldName(FilterField f, EventFormat format) {
        switch (f.source()) {
            case CPU:
                return CPU;
            case COMM:
                return null;
            case COMMON:
                return switch (f.name()) {
                    case "common_pid" -> PID;
                    case "common_flags" -> FLAGS;
                    case "common_preempt_count" -> PREEMPT_COUNT;
                    default -> null;
                };
            default:
                return ("tracewire." + format.system() + "." + format.name() + "." + f.name()).toLowerCase(Locale.ROOT);
        }
    }

    /** The wire's cpu is a u16. */
    private static final BigInteger CPU_MAX = BigInteger.valueOf(0xffff);

    private static Approx.Expr leaf(Comparison c, EventFormat format, List<String> warnings) {
        String t = leafText(c, format, warnings);
        if (t == null || t.equals("TRUE") || t.equals("FALSE")) {
            return t == null ? null : t.equals("TRUE") ? new Approx.True() : new Approx.False();
        }
        return new Approx.Text(t, false);
    }

    private static String leafText(Comparison c, EventFormat format, List<String> warnings) {
        FilterField f = FilterField.resolve(format, c.field());
        String name = fieldName(f, format);
        if (name == null) {
            warnings.add("display filter: " + c.toText() + " dropped (widens): " + c.field()
                    + " (the current task's name) is not in the frame");
            return null;
        }
        if (f.isStringPointer()) {
            warnings.add("display filter: " + c.toText() + " dropped (widens): " + c.field()
                    + " is a char * the kernel follows; the frame holds only the pointer");
            return null;
        }
        if (c.value() instanceof Value.Str s) {
            if (c.op() == Op.GLOB) {
                return name + " matches " + string("(?-i)" + Glob.toRegex(s.value()));
            }
            return name + " " + c.op().symbol() + " " + string(s.value());
        }
        BigInteger v = ((Value.Num) c.value()).value();
        if (f.source() == FilterField.Source.CPU) {
            Approx.Expr k = Approx.constant(c.op(), v, CPU_MAX);
            if (k != null) {
                return k instanceof Approx.True ? "TRUE" : "FALSE";
            }
            v = c.op() == Op.BAND ? v.and(CPU_MAX) : v;
            String literal = c.op() == Op.BAND ? "0x" + v.toString(16) : v.toString();
            return name + " " + c.op().symbol() + " " + literal;
        }
        if (f.signed() && v.equals(f.min())) {
            // Wireshark 4.0 reads -2147483648 as -(2147483648) and refuses it: say it without the literal
            String next = v.add(BigInteger.ONE).toString();
            return switch (c.op()) {
                case EQ, LE -> name + " < " + next;
                case NE, GT -> name + " >= " + next;
                case LT -> "(" + name + " < " + next + " && " + name + " > " + next + ")"; // never
                case GE -> "(" + name + " >= " + next + " || " + name + " < " + next + ")"; // always
                case BAND -> name + " < 0";
                default -> throw new IllegalStateException(c.op().toString());
            };
        }
        String literal = c.op() == Op.BAND && v.signum() >= 0 ? "0x" + v.toString(16) : v.toString();
        return name + " " + c.op().symbol() + " " + literal;
    }

    /** A Wireshark string literal: {@code "..."} with {@code \\}, {@code \"} and {@code \xhh} escapes. */
    public static String string(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' || c == '"') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                sb.append(String.format("\\x%02x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
