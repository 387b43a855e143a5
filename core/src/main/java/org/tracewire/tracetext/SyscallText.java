package org.tracewire.tracetext;

import java.util.List;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.SyscallEvents;
import org.tracewire.record.EventRecord;

/**
 * The text the kernel writes for {@code syscalls:sys_enter_*} and {@code sys_exit_*} records. It
 * does not come from their print fmt but from {@code print_syscall_enter()} /
 * {@code print_syscall_exit()} in {@code kernel/trace/trace_syscalls.c}, and replaces the
 * {@code "NAME: "} column too:
 * <pre>
 * sys_openat(dfd: 0xffffff9c, filename: 0x56490faf6d10, flags: 0x241, mode: 0x1b6)
 * sys_openat -> 0x3
 * </pre>
 * Arguments are the event's fields after {@code __syscall_nr}, as unsigned longs: below 10 in
 * decimal, else in hex with {@code 0x} (as Linux 6.18 prints them: {@code fd: 4},
 * {@code flags: 0x241}); the return value always in hex.
 */
public final class SyscallText {
    private SyscallText() {
    }

    /** True for the events of the {@code syscalls} system this class renders. */
    public static boolean handles(EventFormat format) {
        return format.system().equals("syscalls") && SyscallEvents.callName(format.name()) != null;
    }

    /**
     * Appends the kernel's text for a syscall record (everything after the time column's ": ").
     *
     * @throws org.tracewire.record.RecordException when a field lies outside the record
     */
    public static void append(StringBuilder out, EventRecord record) {
        EventFormat f = record.format();
        boolean enter = SyscallEvents.isEnter(f.name());
        String call = "sys_" + SyscallEvents.callName(f.name());
        List<Field> fields = f.fields();
        if (enter) {
            out.append(call).append('(');
            boolean first = true;
            for (Field field : fields) {
                if (field.name().equals("__syscall_nr")) {
                    continue;
                }
                if (!first) {
                    out.append(", ");
                }
                first = false;
                long v = unsignedLong(record, field);
                out.append(field.name()).append(": ");
                if (Long.compareUnsigned(v, 10) < 0) {
                    out.append(v);
                } else {
                    out.append("0x").append(Long.toHexString(v));
                }
            }
            out.append(')');
        } else {
            Field ret = f.field("ret");
            out.append(call).append(" -> 0x").append(ret == null ? "0" : Long.toHexString(unsignedLong(record, ret)));
        }
    }

    private static long unsignedLong(EventRecord record, Field field) {
        long v = record.integer(field);
        if (field.size() == 4 && record.layout().longSize() == 4) {
            return v & 0xffffffffL;
        }
        return v;
    }
}
