package org.tracewire.tracetext;

/**
 * The five-character irq-info column of the text {@code trace} file ({@code dNs5.}), from
 * {@code common_flags} and {@code common_preempt_count}, as {@code trace_print_lat_fmt()} in
 * {@code kernel/trace/trace_output.c} writes it. Flag bits: {@code enum trace_flag_type} in
 * {@code include/linux/trace_events.h}.
 */
public final class LatencyFormat {
    /** Interrupts were disabled. */
    public static final int IRQS_OFF = 0x01;
    /** TIF_NEED_RESCHED_LAZY was set. */
    public static final int NEED_RESCHED_LAZY = 0x02;
    /** TIF_NEED_RESCHED was set. */
    public static final int NEED_RESCHED = 0x04;
    /** In hard interrupt context. */
    public static final int HARDIRQ = 0x08;
    /** In soft interrupt context. */
    public static final int SOFTIRQ = 0x10;
    /** PREEMPT_NEED_RESCHED was set. */
    public static final int PREEMPT_RESCHED = 0x20;
    /** In NMI context. */
    public static final int NMI = 0x40;
    /** Bottom halves were disabled. */
    public static final int BH_OFF = 0x80;

    private LatencyFormat() {
    }

    /**
     * The column text: irqs-off ({@code d}, {@code D} with BH off, {@code b} BH off only),
     * need-resched ({@code N n p l L b B}), hardirq/softirq ({@code Z z H h s}), preempt depth and
     * migrate-disable depth in hex, {@code .} for each that is off.
     *
     * @param flags        {@code common_flags}
     * @param preemptCount {@code common_preempt_count}
     * @return five characters
     */
    public static String format(int flags, int preemptCount) {
        boolean nmi = (flags & NMI) != 0;
        boolean hardirq = (flags & HARDIRQ) != 0;
        boolean softirq = (flags & SOFTIRQ) != 0;
        boolean bhOff = (flags & BH_OFF) != 0;
        boolean irqsOff = (flags & IRQS_OFF) != 0;
        char irq = irqsOff && bhOff ? 'D' : irqsOff ? 'd' : bhOff ? 'b' : '.';
        int resched = flags & (NEED_RESCHED | NEED_RESCHED_LAZY | PREEMPT_RESCHED);
        char need = switch (resched) {
            case NEED_RESCHED | NEED_RESCHED_LAZY | PREEMPT_RESCHED -> 'B';
            case NEED_RESCHED | PREEMPT_RESCHED -> 'N';
            case NEED_RESCHED_LAZY | PREEMPT_RESCHED -> 'L';
            case NEED_RESCHED | NEED_RESCHED_LAZY -> 'b';
            case NEED_RESCHED -> 'n';
            case PREEMPT_RESCHED -> 'p';
            case NEED_RESCHED_LAZY -> 'l';
            default -> '.';
        };
        char ctx = nmi && hardirq ? 'Z' : nmi ? 'z' : hardirq && softirq ? 'H' : hardirq ? 'h' : softirq ? 's' : '.';
        StringBuilder sb = new StringBuilder(5).append(irq).append(need).append(ctx);
        sb.append((preemptCount & 0xf) != 0 ? Integer.toHexString(preemptCount & 0xf) : ".");
        sb.append((preemptCount & 0xf0) != 0 ? Integer.toHexString((preemptCount >> 4) & 0xf) : ".");
        return sb.toString();
    }
}
