package org.tracewire.filter;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;

/**
 * A field name of a filter resolved against one event, as the kernel resolves it
 * ({@code trace_find_event_field()}: the event's own fields first, then the generic fields
 * {@code CPU}/{@code cpu}/{@code common_cpu}/{@code COMM}/{@code comm}, then the common fields),
 * with the type the kernel's filter gives it ({@code filter_assign_type()}).
 *
 * @param name      the name as written
 * @param type      number, string, or not filterable
 * @param size      bytes of a number (1, 2, 4, 8); 0 for strings
 * @param signed    whether a number is signed (the format file's {@code signed:})
 * @param maxLength longest string the field can hold in bytes ({@code char[16]} → 15,
 *                  {@code COMM} → 15), or -1 when unbounded (dynamic strings, {@code char *})
 * @param source    where the field comes from
 * @param field     the format's field, or null for {@code CPU} and {@code COMM}
 * @param reason    for {@link Type#UNSUPPORTED}: why; else null
 */
public record FilterField(String name, Type type, int size, boolean signed, int maxLength,
                          Source source, Field field, String reason) {

    /** What a filter can do with a field. */
    public enum Type {
        /** Compared with {@code == != < <= > >= &} and an integer. */
        NUMBER,
        /** Compared with {@code == != ~} and a quoted string. */
        STRING,
        /** Not usable in a filter here (arrays, cpumasks, structs, {@code common_type}). */
        UNSUPPORTED;

        /**
         * The operators a field of this type takes (what {@link FilterValidator} accepts), the
         * default first: numbers {@code == != < <= > >= &}, strings {@code == != ~}.
         *
         * @return an immutable list; empty for {@link #UNSUPPORTED}
         */
        public List<Op> operators() {
            return switch (this) {
                case NUMBER -> List.of(Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.BAND);
                case STRING -> List.of(Op.EQ, Op.NE, Op.GLOB);
                case UNSUPPORTED -> List.of();
            };
        }
    }

    /** Where a field name points. */
    public enum Source {
        /** One of the event's own fields. */
        EVENT,
        /** {@code common_pid}, {@code common_flags}, {@code common_preempt_count}. */
        COMMON,
        /** The generic {@code CPU}/{@code cpu}/{@code common_cpu}: the CPU the event ran on (an int). */
        CPU,
        /** The generic {@code COMM}/{@code comm}: the current task's name (at most 15 characters). */
        COMM
    }

    /**
     * Resolves a name for an event.
     *
     * @return the field, or null when the event has no field and there is no generic field of that name
     */
    public static FilterField resolve(EventFormat format, String name) {
        for (Field f : format.fields()) {
            if (f.name().equals(name)) {
                return of(f, Source.EVENT);
            }
        }
        switch (name) {
            case "CPU", "cpu", "common_cpu" -> {
                return new FilterField(name, Type.NUMBER, 4, true, -1, Source.CPU, null, null);
            }
            case "COMM", "comm" -> {
                return new FilterField(name, Type.STRING, 0, false, 15, Source.COMM, null, null);
            }
            default -> {
            }
        }
        for (Field f : format.commonFields()) {
            if (f.name().equals(name)) {
                if (name.equals("common_type")) {
                    return new FilterField(name, Type.UNSUPPORTED, f.size(), f.signed(), -1, Source.COMMON, f,
                            "common_type is the event id: the event selector already fixes it");
                }
                return of(f, Source.COMMON);
            }
        }
        return null;
    }

    /**
     * The fields a filter on this event can use, each under the name that resolves to it: the
     * event's own fields (in format order), then the generic {@code CPU} and {@code COMM}, then the
     * common fields ({@code common_pid}, {@code common_flags}, {@code common_preempt_count}).
     * Unsupported fields ({@link Type#UNSUPPORTED}: arrays, cpumasks, {@code common_type}) and
     * names shadowed by an earlier field are left out; the aliases {@code cpu},
     * {@code common_cpu} and {@code comm} are not listed again.
     *
     * @param format the event
     * @return the filterable fields, event fields first
     */
    public static List<FilterField> filterable(EventFormat format) {
        Set<String> names = new LinkedHashSet<>();
        format.fields().forEach(f -> names.add(f.name()));
        names.add("CPU");
        names.add("COMM");
        format.commonFields().forEach(f -> names.add(f.name()));
        List<FilterField> out = new ArrayList<>();
        for (String n : names) {
            FilterField f = resolve(format, n);
            if (f != null && f.type() != Type.UNSUPPORTED) {
                out.add(f);
            }
        }
        return List.copyOf(out);
    }

    /** The operators this field takes, the default first ({@link Type#operators()}). */
    public List<Op> operators() {
        return type.operators();
    }

    private static FilterField of(Field f, Source source) {
        String t = f.type().strip();
        FieldKind k = f.kind();
        boolean charArray = k == FieldKind.CHAR_ARRAY || (k == FieldKind.ARRAY && t.contains("char"));
        if (charArray) {
            int n = f.arrayLength() > 0 ? f.arrayLength() : f.size();
            return new FilterField(f.name(), Type.STRING, 0, false, n > 0 ? n - 1 : -1, source, f, null);
        }
        if (k == FieldKind.DYNAMIC_STRING) {
            return new FilterField(f.name(), Type.STRING, 0, false, -1, source, f, null);
        }
        if (k == FieldKind.POINTER && (t.equals("char *") || t.equals("const char *"))) {
            return new FilterField(f.name(), Type.STRING, 0, false, -1, source, f, null);
        }
        if ((k == FieldKind.INTEGER || k == FieldKind.POINTER)
                && (f.size() == 1 || f.size() == 2 || f.size() == 4 || f.size() == 8)) {
            return new FilterField(f.name(), Type.NUMBER, f.size(), f.signed(), -1, source, f, null);
        }
        return new FilterField(f.name(), Type.UNSUPPORTED, f.size(), f.signed(), -1, source, f,
                f.name() + " (" + f.declaration() + ") is " + describe(k) + ": filters compare numbers and strings only");
    }

    private static String describe(FieldKind k) {
        return switch (k) {
            case ARRAY, DYNAMIC_ARRAY -> "an array";
            case DYNAMIC_CPUMASK -> "a cpumask";
            default -> "not a number or string";
        };
    }

    /** True for a {@code char *} field: the record holds a pointer, the kernel compares the string it points to. */
    public boolean isStringPointer() {
        return field != null && field.kind() == FieldKind.POINTER && type == Type.STRING;
    }

    /** Smallest number the field holds: -2^(8·size-1) when signed, else 0. */
    public BigInteger min() {
        return signed ? BigInteger.ONE.shiftLeft(size * 8 - 1).negate() : BigInteger.ZERO;
    }

    /** Largest number the field holds: 2^(8·size-1)-1 when signed, else 2^(8·size)-1. */
    public BigInteger max() {
        return signed ? BigInteger.ONE.shiftLeft(size * 8 - 1).subtract(BigInteger.ONE)
                : BigInteger.ONE.shiftLeft(size * 8).subtract(BigInteger.ONE);
    }

    /** {@code u8}, {@code s32}, {@code char[16]}, {@code string}: the type as messages name it. */
    public String typeName() {
        if (type == Type.NUMBER) {
            return (signed ? "s" : "u") + (size * 8);
        }
        if (type == Type.STRING) {
            if (source == Source.COMM) {
                return "comm";
            }
            return field.kind() == FieldKind.DYNAMIC_STRING ? "__data_loc char[]"
                    : isStringPointer() ? field.type().strip() : "char[" + (maxLength + 1) + "]";
        }
        return field != null ? field.type() : "?";
    }
}
