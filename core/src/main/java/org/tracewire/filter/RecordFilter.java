package org.tracewire.filter;

import java.util.Objects;
import java.util.function.IntFunction;
import org.tracewire.format.EventFormat;
import org.tracewire.record.EventRecord;

/**
 * A {@link Filter} compiled for one event and evaluated against its {@link EventRecord}s, with the
 * meaning the kernel gives it ({@code kernel/trace/trace_events_filter.c}, Linux 6.18): numbers
 * compared as the field's C type (signed or unsigned, of the field's size), {@code &} true when
 * {@code (field & value) != 0}, strings ({@code char[N]}, {@code __data_loc char[]}) compared whole
 * up to their first NUL, {@code ~} as the kernel's glob ({@link Glob#matches}), {@code CPU} the
 * record's CPU, {@code COMM} the current task's name.
 *
 * <p>This is the one evaluator of the filter model over records (histograms with {@code if ...}, the
 * app's view filters). Immutable and thread-safe.
 */
public final class RecordFilter {
    private final EventFormat format;
    private final Node root;
    private final String text;

    private RecordFilter(EventFormat format, Node root, String text) {
        this.format = format;
        this.root = root;
        this.text = text;
    }

    /**
     * Compiles a filter for one event. {@code COMM}/{@code comm} (when the event has no field of that
     * name) cannot be evaluated: records do not carry the current task's name; use
     * {@link #compile(Filter, EventFormat, IntFunction)}.
     *
     * @throws FilterSyntaxException at the comparison at fault when the filter does not fit the event
     *                               ({@link FilterValidator}), names {@code COMM}, or compares a
     *                               {@code char *} field (the record holds only the pointer)
     */
    public static RecordFilter compile(Filter filter, EventFormat format) {
        return compile(filter, format, null);
    }

    /**
     * Compiles a filter for one event, with the task names {@code COMM} compares.
     *
     * @param commOfPid the current task's name for a {@code common_pid} (e.g. from
     *                  {@code saved_cmdlines}); null when there is none: then a filter on
     *                  {@code COMM} is refused
     * @throws FilterSyntaxException at the comparison at fault, as {@link #compile(Filter, EventFormat)}
     */
    public static RecordFilter compile(Filter filter, EventFormat format, IntFunction<String> commOfPid) {
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(format, "format");
        FilterValidator.check(filter, format);
        return new RecordFilter(format, build(filter, format, commOfPid), filter.toText());
    }

    /**
     * Parses the kernel's filter text and compiles it.
     *
     * @throws FilterSyntaxException with the position in {@code text}
     */
    public static RecordFilter compile(String text, EventFormat format) {
        return compile(Filter.parse(text), format);
    }

    /** The event this filter was compiled for. */
    public EventFormat format() {
        return format;
    }

    /** The filter's canonical text ({@link Filter#toText()}). */
    public String text() {
        return text;
    }

    /**
     * Whether the record passes.
     *
     * @throws IllegalArgumentException when the record is of another event than the filter's
     * @throws org.tracewire.record.RecordException when a field lies outside the record
     */
    public boolean test(EventRecord record) {
        if (record.format() != format && !record.format().equals(format)) {
            throw new IllegalArgumentException("filter compiled for " + format.fullName() + " tested on a "
                    + record.format().fullName() + " record");
        }
        return root.test(record);
    }

    @Override
    public String toString() {
        return format.fullName() + " if " + text;
    }

    private interface Node {
        boolean test(EventRecord r);
    }

    private static Node build(Filter f, EventFormat format, IntFunction<String> comms) {
        if (f instanceof And a) {
            Node l = build(a.left(), format, comms);
            Node r = build(a.right(), format, comms);
            return rec -> l.test(rec) && r.test(rec);
        }
        if (f instanceof Or o) {
            Node l = build(o.left(), format, comms);
            Node r = build(o.right(), format, comms);
            return rec -> l.test(rec) || r.test(rec);
        }
        if (f instanceof Not n) {
            Node x = build(n.operand(), format, comms);
            return rec -> !x.test(rec);
        }
        return comparison((Comparison) f, format, comms);
    }

    private static Node comparison(Comparison c, EventFormat format, IntFunction<String> comms) {
        FilterField ff = FilterField.resolve(format, c.field());
        if (ff.type() == FilterField.Type.STRING) {
            String k = ((Value.Str) c.value()).value();
            StringSource src;
            if (ff.source() == FilterField.Source.COMM) {
                if (comms == null) {
                    throw new FilterSyntaxException(c.position(), c.field()
                            + " is the current task's name, which records do not carry: give a comm lookup");
                }
                src = rec -> {
                    String s = comms.apply(rec.pid());
                    return s == null ? "" : s;
                };
            } else if (ff.isStringPointer()) {
                throw new FilterSyntaxException(c.position(), c.field() + " (" + ff.typeName()
                        + ") is a pointer in the record: the kernel compares the string it points to, which a record does not hold");
            } else {
                var field = ff.field();
                src = rec -> rec.string(field);
            }
            return switch (c.op()) {
                case EQ -> rec -> src.get(rec).equals(k);
                case NE -> rec -> !src.get(rec).equals(k);
                case GLOB -> rec -> Glob.matches(k, src.get(rec));
                default -> throw new FilterSyntaxException(c.position(), c.field() + " is a string: use ==, != or ~");
            };
        }
        long k = ((Value.Num) c.value()).value().longValue();
        LongSource src;
        if (ff.source() == FilterField.Source.CPU) {
            src = EventRecord::cpu;
        } else {
            var field = ff.field();
            src = rec -> rec.integer(field);
        }
        boolean signed = ff.signed();
        return switch (c.op()) {
            case EQ -> rec -> src.get(rec) == k;
            case NE -> rec -> src.get(rec) != k;
            case BAND -> rec -> (src.get(rec) & k) != 0;
            case LT -> rec -> cmp(src.get(rec), k, signed) < 0;
            case LE -> rec -> cmp(src.get(rec), k, signed) <= 0;
            case GT -> rec -> cmp(src.get(rec), k, signed) > 0;
            case GE -> rec -> cmp(src.get(rec), k, signed) >= 0;
            case GLOB -> throw new FilterSyntaxException(c.position(), c.field() + " is a number: ~ is for strings");
        };
    }

    /** Values and constants are of the field's type (the validator checked the range), so a long compare is exact. */
    private static int cmp(long v, long k, boolean signed) {
        return signed ? Long.compare(v, k) : Long.compareUnsigned(v, k);
    }

    private interface StringSource {
        String get(EventRecord r);
    }

    private interface LongSource {
        long get(EventRecord r);
    }
}
