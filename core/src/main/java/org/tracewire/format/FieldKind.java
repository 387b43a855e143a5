package org.tracewire.format;

/**
 * What a trace event field holds, as libtraceevent classifies it (see {@code event-parse.c},
 * {@code TEP_FIELD_IS_*}), derived from the field's C declaration in a tracefs {@code format} file.
 */
public enum FieldKind {
    /** An integer of 1, 2, 4 or 8 bytes (also {@code bool}, {@code enum}, {@code pid_t}, …); sign from {@code signed:}. */
    INTEGER,
    /** A pointer ({@code void *}, {@code const char *}, …): an integer of the kernel's long size, shown in hex. */
    POINTER,
    /** A fixed {@code char name[N]} array: a string up to the first NUL. {@code char name[]} (size 0) runs to the record's end. */
    CHAR_ARRAY,
    /** A fixed array of non-char elements {@code type name[N]}; element size = size / N. {@code name[]} runs to the record's end. */
    ARRAY,
    /** {@code __data_loc char[] name} (or {@code __rel_loc}): a string stored after the fixed fields, located by a 32-bit word. */
    DYNAMIC_STRING,
    /** {@code __data_loc type[] name} (or {@code __rel_loc}): an array stored after the fixed fields, located by a 32-bit word. */
    DYNAMIC_ARRAY,
    /** {@code __data_loc cpumask_t name}: a CPU bitmask of unsigned longs stored after the fixed fields. */
    DYNAMIC_CPUMASK,
    /** A field whose declaration is none of the above (a struct by value): its bytes are kept, shown in hex. */
    OPAQUE;

    /** True for the kinds whose bytes live behind a {@code __data_loc} / {@code __rel_loc} location word. */
    public boolean isDynamic() {
        return this == DYNAMIC_STRING || this == DYNAMIC_ARRAY || this == DYNAMIC_CPUMASK;
    }

    /** True for the kinds that are rendered as text. */
    public boolean isString() {
        return this == CHAR_ARRAY || this == DYNAMIC_STRING;
    }
}
