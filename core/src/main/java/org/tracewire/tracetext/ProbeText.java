package org.tracewire.tracetext;

import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.record.EventRecord;

/**
 * The head the kernel writes for a dynamic probe's record (uprobes; kprobes alike), which its
 * print fmt does not give: {@code print_uprobe_event()} in {@code kernel/trace/trace_uprobe.c}
 * prints {@code (0xIP)} for an entry probe and {@code (0xRET_IP <- 0xFUNC)} for a return probe,
 * where the format's print fmt says {@code "(%lx)"} and {@code "(%lx <- %lx)", REC->__probe_func,
 * REC->__probe_ret_ip}. The arguments after the head are the same in both.
 */
final class ProbeText {
    private ProbeText() {
    }

    /** True for a probe's format: it has {@code __probe_ip}, or {@code __probe_func} and {@code __probe_ret_ip}. */
    static boolean handles(EventFormat format) {
        return format.field("__probe_ip") != null
                || format.field("__probe_func") != null && format.field("__probe_ret_ip") != null;
    }

    /**
     * Rewrites the head of a probe's text rendered from its print fmt into the kernel's.
     *
     * @param rendered the print fmt's text, starting {@code (HEX)} or {@code (HEX <- HEX)}
     * @param record   the record, whose probe fields give the addresses
     * @return the kernel's text; {@code rendered} unchanged when it does not start with the head
     */
    static String kernelHead(String rendered, EventRecord record) {
        int close = rendered.indexOf(')');
        if (!rendered.startsWith("(") || close < 0) {
            return rendered;
        }
        EventFormat f = record.format();
        Field ip = f.field("__probe_ip");
        String head = ip != null
                ? "(0x" + Long.toHexString(record.integer(ip)) + ")"
                : "(0x" + Long.toHexString(record.integer(f.field("__probe_ret_ip"))) + " <- 0x"
                        + Long.toHexString(record.integer(f.field("__probe_func"))) + ")";
        return head + rendered.substring(close + 1);
    }
}
