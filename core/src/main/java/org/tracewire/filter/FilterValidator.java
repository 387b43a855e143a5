package org.tracewire.filter;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.text.EditDistance;

/**
 * Checks a {@link Filter} against one event's format: every field exists (see
 * {@link FilterField#resolve}), every operator suits the field's type, every number fits the
 * field's size and sign, every string fits the field and can be written in the kernel's syntax.
 * What the kernel itself rejects is rejected here with a clearer message and a position; some
 * filters the kernel accepts are rejected too (a value that can never match, such as 256 for a
 * {@code u8} or a 16-character comm).
 */
public final class FilterValidator {
    /** The kernel's limit on one string operand ({@code MAX_FILTER_STR_VAL} - 1), in bytes. */
    public static final int MAX_STRING_BYTES = 255;

    private FilterValidator() {
    }

    /**
     * All problems of {@code filter} for {@code format}, in text order.
     *
     * @return an empty list when the filter is valid for the event
     */
    public static List<FilterProblem> validate(Filter filter, EventFormat format) {
        List<FilterProblem> out = new ArrayList<>();
        walk(filter, format, out);
        return out;
    }

    /**
     * Like {@link #validate} but throws the first problem.
     *
     * @throws FilterSyntaxException with the position and message of the first problem
     */
    public static void check(Filter filter, EventFormat format) {
        List<FilterProblem> problems = validate(filter, format);
        if (!problems.isEmpty()) {
            FilterProblem p = problems.get(0);
            throw new FilterSyntaxException(p.position(), p.message());
        }
    }

    /**
     * Reads a value typed for a field on its own (as a form's value box holds it, without
     * quotes), as the filter syntax would read it after the operator: for a number field an
     * integer like the kernel's {@code kstrtoll(s, 0)} ({@code 0x} hex, a leading {@code 0}
     * octal, else decimal, optionally negative; white space around it is ignored); for a string
     * field the text itself, every character kept. Whether the value fits the field (range,
     * length, quotes, glob syntax) is {@link #validate}'s question: check the comparison built
     * from it.
     *
     * @param field the field the value is for ({@link FilterField#resolve})
     * @param text  the value as typed; null is read as empty
     * @return a {@link Value.Num} for a number field, a {@link Value.Str} for a string field
     * @throws FilterSyntaxException with a 0-based position in {@code text} when a number field's
     *                               text is empty or not an integer, or when the field is
     *                               {@link FilterField.Type#UNSUPPORTED} (position 0, the field's reason)
     */
    public static Value parseValue(FilterField field, String text) {
        String t = text == null ? "" : text;
        switch (field.type()) {
            case STRING:
                return new Value.Str(t);
            case UNSUPPORTED:
                throw new FilterSyntaxException(0, field.reason());
            default:
                break;
        }
        String token = t.strip();
        int pos = token.isEmpty() ? 0 : t.indexOf(token);
        if (token.isEmpty()) {
            throw new FilterSyntaxException(0, "enter a number");
        }
        BigInteger v = token.matches("-?[0-9][A-Za-z0-9]*") ? FilterParser.readInteger(token) : null;
        if (v == null) {
            throw new FilterSyntaxException(pos, "'" + token + "' is not a number (decimal, 0x hex or 0 octal)");
        }
        if (!FilterParser.fits64(v)) {
            throw new FilterSyntaxException(pos, "'" + token + "' is out of the 64-bit range");
        }
        return new Value.Num(v);
    }

    private static void walk(Filter f, EventFormat format, List<FilterProblem> out) {
        if (f instanceof And a) {
            walk(a.left(), format, out);
            walk(a.right(), format, out);
        } else if (f instanceof Or o) {
            walk(o.left(), format, out);
            walk(o.right(), format, out);
        } else if (f instanceof Not n) {
            walk(n.operand(), format, out);
        } else {
            FilterProblem problem = check((Comparison) f, format);
            if (problem != null) {
                out.add(problem);
            }
        }
    }

    /** The problem with one comparison (positioned at the field or at the value at fault), or null. */
    private static FilterProblem check(Comparison c, EventFormat format) {
        FilterField field = FilterField.resolve(format, c.field());
        if (field == null) {
            return new FilterProblem(c.position(), "no field '" + c.field() + "' in " + format.fullName() + suggestion(c.field(), format));
        }
        if (field.type() == FilterField.Type.UNSUPPORTED) {
            return new FilterProblem(c.position(), field.reason());
        }
        String name = c.field();
        if (field.type() == FilterField.Type.STRING) {
            if (!c.op().forStrings()) {
                return new FilterProblem(c.position(), name + " is a string: use ==, != or ~");
            }
            if (!(c.value() instanceof Value.Str s)) {
                return new FilterProblem(c.valuePosition(), name + " is a string: compare it with a quoted value");
            }
            String v = s.value();
            String why = FilterPrinter.unquotable(v);
            if (why != null) {
                return new FilterProblem(c.valuePosition(), why);
            }
            int bytes = v.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_STRING_BYTES) {
                return new FilterProblem(c.valuePosition(), "a string value is at most " + MAX_STRING_BYTES + " bytes (this one: " + bytes + ")");
            }
            if (c.op() == Op.GLOB) {
                String glob = Glob.problem(v);
                if (glob != null) {
                    return new FilterProblem(c.valuePosition(), glob);
                }
            } else if (field.maxLength() >= 0 && bytes > field.maxLength()) {
                return new FilterProblem(c.valuePosition(), "\"" + v + "\" is longer than " + name + " (" + field.typeName() + ") can hold: at most "
                        + field.maxLength() + " characters");
            }
            return null;
        }
        if (!c.op().numeric()) {
            return new FilterProblem(c.position(), name + " is a number (" + field.typeName() + "): use ==, !=, <, <=, >, >= or &");
        }
        if (!(c.value() instanceof Value.Num n)) {
            return new FilterProblem(c.valuePosition(), name + " is a number (" + field.typeName() + "): compare it with an integer, not a string");
        }
        if (n.value().compareTo(field.min()) < 0 || n.value().compareTo(field.max()) > 0) {
            return new FilterProblem(c.valuePosition(), n.value() + " does not fit " + field.typeName() + " field '" + name + "' ("
                    + field.min() + ".." + field.max() + ")");
        }
        return null;
    }

    private static String suggestion(String name, EventFormat format) {
        String best = null;
        int bestDistance = 3;
        List<String> names = new ArrayList<>();
        for (Field f : format.allFields()) {
            names.add(f.name());
        }
        names.addAll(List.of("CPU", "COMM"));
        for (String n : names) {
            int d = EditDistance.between(name.toLowerCase(), n.toLowerCase());
            if (d < bestDistance && !n.equals("common_type")) {
                bestDistance = d;
                best = n;
            }
        }
        return best == null ? "" : " (did you mean '" + best + "'?)";
    }
}
