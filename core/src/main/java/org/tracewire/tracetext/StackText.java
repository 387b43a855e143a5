package org.tracewire.tracetext;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.symbols.UserSymbolResolver;

/**
 * The kernel's own text of its stack trace records, which their print fmts ({@code "\t=> %ps\n"} × 8)
 * do not give: {@code trace_stack_print()} and {@code trace_user_stack_print()} in
 * {@code kernel/trace/trace_output.c}, with the default trace options ({@code nosym-offset},
 * {@code nosym-addr}, {@code nosym-userobj}).
 *
 * <ul>
 * <li>{@code ftrace:kernel_stack}: {@code <stack trace>}, then a line {@code " => NAME"} per return
 *     address of the {@code caller} array, which runs to the record's end (it holds {@code size}
 *     entries, not the format's 8) or to an address {@code ULONG_MAX}. NAME is the symbol's name as
 *     {@code kallsyms_lookup()} gives it (no module, no offset), {@code 0x%08lx} when no symbol
 *     covers the address, {@code 0} for 0.
 * <li>{@code ftrace:user_stack}: {@code <user stack trace>}, then {@code " =>  <%016lx>"} per address
 *     of its 8 up to the first 0; where the capture resolved the address in its process
 *     ({@link UserSymbolResolver}), followed by {@code " NAME+0xOFF [FILE]"} (not the kernel's text).
 * </ul>
 */
public final class StackText {
    private StackText() {
    }

    /** Which stack a format records, or null for any other event. */
    public enum Kind {
        /** {@code ftrace:kernel_stack}. */
        KERNEL,
        /** {@code ftrace:user_stack}. */
        USER
    }

    /** The stack record a format describes ({@code ftrace:kernel_stack} / {@code user_stack} with a {@code caller} array), or null. */
    public static Kind kind(EventFormat format) {
        if (!format.system().equals("ftrace")) {
            return null;
        }
        Field c = format.field("caller");
        if (c == null || c.kind() != FieldKind.ARRAY || (c.elementSize() != 8 && c.elementSize() != 4)) {
            return null;
        }
        return switch (format.name()) {
            case "kernel_stack" -> Kind.KERNEL;
            case "user_stack" -> Kind.USER;
            default -> null;
        };
    }

    /**
     * The addresses a stack record holds, as the kernel's text prints them (see the class comment):
     * a kernel stack's up to the record's end or {@code ULONG_MAX}, a user stack's up to the first 0.
     *
     * @param record a record of a format {@link #kind} recognises
     * @return the addresses (unsigned, as {@code long}s), outermost call last
     */
    public static long[] addresses(EventRecord record) {
        Kind kind = kind(record.format());
        Field c = record.format().field("caller");
        if (kind == null) {
            throw new IllegalArgumentException(record.format().fullName() + " is no stack record");
        }
        int step = c.elementSize();
        long end = step == 8 ? -1L : 0xffff_ffffL;
        int stop = kind == Kind.KERNEL ? record.length() : Math.min(record.length(), c.offset() + c.size());
        List<Long> out = new ArrayList<>();
        for (int off = c.offset(); off + step <= stop; off += step) {
            long v = step == 8 ? record.payload().getLong(off) : record.payload().getInt(off) & 0xffff_ffffL;
            if (kind == Kind.KERNEL ? v == end : v == 0) {
                break;
            }
            out.add(v);
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * Appends the kernel's text of a stack record (without a final newline).
     *
     * @param sb      where to append
     * @param record  a record of a format {@link #kind} recognises
     * @param symbols resolves kernel addresses (null: none known)
     */
    public static void append(StringBuilder sb, EventRecord record, SymbolResolver symbols) {
        append(sb, record, symbols, null);
    }

    /**
     * As {@link #append(StringBuilder, EventRecord, SymbolResolver)}, with the user addresses a
     * capture resolved: a user frame known to {@code users} gets {@code " NAME+0xOFF [FILE]"} after
     * the kernel's {@code <%016lx>} (the kernel's text when none is known).
     *
     * @param users the capture's user symbols, by the record's {@code tgid} (null: none)
     */
    public static void append(StringBuilder sb, EventRecord record, SymbolResolver symbols, UserSymbolResolver users) {
        Kind kind = kind(record.format());
        sb.append(kind == Kind.KERNEL ? "<stack trace>" : "<user stack trace>");
        Field tgidField = kind == Kind.USER && users != null ? record.format().field("tgid") : null;
        int tgid = tgidField != null && tgidField.size() == 4 ? (int) record.integer(tgidField) : -1;
        for (long a : addresses(record)) {
            sb.append("\n => ");
            if (kind == Kind.USER) {
                sb.append(String.format(Locale.ROOT, " <%016x>", a));
                SymbolResolver.Symbol s = tgid > 0 ? users.lookup(tgid, a) : null;
                if (s != null) {
                    sb.append(' ').append(s.name()).append("+0x").append(Long.toHexString(a - s.start()));
                    if (s.module() != null) {
                        sb.append(" [").append(s.module()).append(']');
                    }
                }
            } else {
                sb.append(kernelSymbol(a, symbols));
            }
        }
    }

    /** A kernel address as a stack line names it: the symbol, {@code 0x%08lx} when unknown, {@code 0} for 0. */
    public static String kernelSymbol(long address, SymbolResolver symbols) {
        if (address == 0) {
            return "0";
        }
        SymbolResolver.Symbol s = symbols == null ? null : symbols.lookup(address);
        return s != null && !s.name().isEmpty() ? s.name() : String.format(Locale.ROOT, "0x%08x", address);
    }
}
