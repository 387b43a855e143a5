package org.tracewire.filter;

import java.math.BigInteger;
import java.util.Set;
import org.tracewire.format.EventFormat;

/**
 * Compiles a {@link Filter} to a SQL {@code WHERE} condition (DuckDB's dialect) over an event's
 * typed table in the capture store ({@code docs/store.md}): a column per format field, of the
 * field's C type, plus {@code common_cpu}, {@code common_pid}; the same meaning as
 * {@link RecordFilter} (the kernel's, {@code kernel/trace/trace_events_filter.c}):
 * <ul>
 * <li>numbers compared as the field's C type: signed fields as {@code BIGINT}, unsigned ones as
 *     {@code UBIGINT} with the constant taken modulo 2<sup>64</sup> (as the kernel's unsigned
 *     compare of a negative constant); {@code f & m} → {@code (f & m) <> 0};</li>
 * <li>strings ({@code char[N]}, {@code __data_loc char[]}) compared whole; {@code ~} as the
 *     kernel's glob through {@link Glob#toRegex} and {@code regexp_full_match};</li>
 * <li>{@code CPU}/{@code cpu}/{@code common_cpu} → {@code common_cpu}; {@code COMM}/{@code comm}
 *     (when the event has no field of that name) → {@value #TASK_COMM}, the task's name, which the
 *     query must provide ({@link #relation} joins {@code events.comm} in); the common fields →
 *     their columns.</li>
 * </ul>
 * Column names are double-quoted; a field named like one of the typed tables' key columns
 * ({@link #KEY_COLUMNS}) is that name with {@code _} appended.
 */
public final class SqlFilterCompiler {
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);
    /**
     * The typed tables' key columns (the store's {@code TypedColumn} renames a field of one of these
     * names, as this compiler does): frame, times, common fields, file offset, capture, host.
     */
    public static final Set<String> KEY_COLUMNS = Set.of("frame", "ts", "trace_ts", "common_cpu", "common_pid",
            "common_flags", "common_preempt_count", "file_offset", "capture", "host");

    /** The column {@code COMM} compiles to: the current task's name, which a typed table does not hold. */
    public static final String TASK_COMM = "task_comm";

    private SqlFilterCompiler() {
    }

    /**
     * @param filter the filter
     * @param format the event whose typed table it runs on
     * @return the condition (no {@code WHERE} keyword)
     * @throws FilterSyntaxException when the filter does not fit the event ({@link FilterValidator}),
     *                               or compares a {@code char *} field (the store holds only the pointer)
     */
    public static String compile(Filter filter, EventFormat format) {
        FilterValidator.check(filter, format);
        return text(filter, format);
    }

    private static String text(Filter f, EventFormat format) {
        if (f instanceof And a) {
            return "(" + text(a.left(), format) + " AND " + text(a.right(), format) + ")";
        }
        if (f instanceof Or o) {
            return "(" + text(o.left(), format) + " OR " + text(o.right(), format) + ")";
        }
        if (f instanceof Not n) {
            return "(NOT " + text(n.operand(), format) + ")";
        }
        return comparison((Comparison) f, format);
    }

    private static String comparison(Comparison c, EventFormat format) {
        FilterField ff = FilterField.resolve(format, c.field());
        String col = switch (ff.source()) {
            case CPU -> "\"common_cpu\"";
            case COMM -> "\"" + TASK_COMM + "\"";
            case COMMON -> quote(ff.name());
            default -> quote(KEY_COLUMNS.contains(ff.name()) ? ff.name() + "_" : ff.name());
        };
        if (ff.type() == FilterField.Type.STRING) {
            if (ff.isStringPointer()) {
                throw new FilterSyntaxException(c.position(), c.field() + " (" + ff.typeName()
                        + ") is a pointer in the record: the kernel compares the string it points to, which the store does not hold");
            }
            String k = ((Value.Str) c.value()).value();
            return switch (c.op()) {
                case EQ -> "(" + col + " = " + literal(k) + ")";
                case NE -> "(" + col + " <> " + literal(k) + ")";
                case GLOB -> "regexp_full_match(" + col + ", " + literal(Glob.toRegex(k)) + ")";
                default -> throw new FilterSyntaxException(c.position(), c.field() + " is a string: use ==, != or ~");
            };
        }
        BigInteger v = ((Value.Num) c.value()).value();
        boolean signed = ff.signed();
        String lhs;
        String k;
        if (signed) {
            lhs = col + "::BIGINT";
            k = "(" + v.longValue() + ")::BIGINT"; // parenthesised: -9223372036854775808::BIGINT would cast before negating
        } else {
            lhs = col + "::UBIGINT";
            k = v.mod(TWO_64).toString() + "::UBIGINT";
        }
        return switch (c.op()) {
            case EQ -> "(" + lhs + " = " + k + ")";
            case NE -> "(" + lhs + " <> " + k + ")";
            case LT -> "(" + lhs + " < " + k + ")";
            case LE -> "(" + lhs + " <= " + k + ")";
            case GT -> "(" + lhs + " > " + k + ")";
            case GE -> "(" + lhs + " >= " + k + ")";
            case BAND -> "((" + lhs + " & " + k + ") <> 0)";
            case GLOB -> throw new FilterSyntaxException(c.position(), c.field() + " is a number: ~ is for strings");
        };
    }

    /**
     * The rows of a typed table that a {@link #compile compiled} condition reads: the table itself
     * (it holds the common fields), joined with the store's {@code events} view on host and frame
     * for {@value #TASK_COMM} when the condition names the task's name.
     *
     * @param table     the typed table's (view's) name, unquoted
     * @param condition the compiled condition, or null for none
     * @return a relation for a FROM clause
     */
    public static String relation(String table, String condition) {
        String t = quote(table);
        return condition != null && condition.contains(quote(TASK_COMM))
                ? "(SELECT t.*, e.comm AS " + TASK_COMM + " FROM " + t + " t JOIN events e ON e.host = t.host AND e.frame = t.frame)"
                : t;
    }

    private static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    private static String literal(String text) {
        return '\'' + text.replace("'", "''") + '\'';
    }
}
