package org.tracewire.analysis;

import java.util.Objects;

/**
 * A completed start/end pair of records and the time between them.
 *
 * <table>
 * <caption>What each field means per kind</caption>
 * <tr><th>kind</th><th>start → end</th><th>pid / comm</th><th>wakerPid</th><th>cpu</th><th>id / name</th><th>result</th></tr>
 * <tr><td>{@link Kind#SCHED_WAKEUP}</td><td>{@code sched_wakeup}/{@code sched_wakeup_new} → the next
 *     {@code sched_switch} with {@code next_pid} == pid, on any CPU</td><td>the wakee ({@code pid},
 *     {@code comm} of the wakeup)</td><td>{@code common_pid} of the wakeup</td><td>{@code target_cpu}</td>
 *     <td>-1 / null</td><td>the CPU it ran on (the switch's CPU)</td></tr>
 * <tr><td>{@link Kind#SYSCALL}</td><td>{@code raw_syscalls:sys_enter} → {@code sys_exit} (same
 *     {@code common_pid}, same {@code id}), or {@code syscalls:sys_enter_X} → {@code sys_exit_X}</td>
 *     <td>the task ({@code common_pid}) / null</td><td>-1</td><td>the CPU of the enter record</td>
 *     <td>syscall number / {@code X} (null for raw_syscalls)</td><td>{@code ret}</td></tr>
 * <tr><td>{@link Kind#IRQ}</td><td>{@code irq:irq_handler_entry} → {@code irq_handler_exit} on the
 *     same CPU for the same {@code irq}</td><td>the interrupted task / null</td><td>-1</td><td>the CPU</td>
 *     <td>irq number / handler {@code name}</td><td>{@code ret} (1 handled)</td></tr>
 * <tr><td>{@link Kind#SOFTIRQ}</td><td>{@code irq:softirq_entry} → {@code softirq_exit} on the same CPU
 *     for the same {@code vec}</td><td>the interrupted task / null</td><td>-1</td><td>the CPU</td>
 *     <td>{@code vec} / its name ({@code TIMER}, {@code NET_RX}, …)</td><td>0</td></tr>
 * </table>
 *
 * @param kind      what was measured
 * @param start     the start record
 * @param end       the end record
 * @param pid       the task (see the table)
 * @param comm      the wakee's name for {@link Kind#SCHED_WAKEUP}, else null
 * @param wakerPid  the waking task for {@link Kind#SCHED_WAKEUP}, else -1
 * @param cpu       target CPU ({@link Kind#SCHED_WAKEUP}) or the CPU of the start record
 * @param id        syscall number, irq number or softirq vector; -1 for {@link Kind#SCHED_WAKEUP}
 * @param name      syscall, irq handler or softirq name, or null
 * @param result    the end record's {@code ret}; for {@link Kind#SCHED_WAKEUP} the CPU the task ran on
 */
public record LatencyPair(Kind kind, RecordRef start, RecordRef end, int pid, String comm, int wakerPid, int cpu,
                          long id, String name, long result) {

    /** What a pair measures. */
    public enum Kind {
        /** Wakeup to running: {@code sched_wakeup}/{@code sched_wakeup_new} → {@code sched_switch}. */
        SCHED_WAKEUP,
        /** Syscall duration: sys_enter → sys_exit of one task. */
        SYSCALL,
        /** Hard interrupt handler time: {@code irq_handler_entry} → {@code irq_handler_exit}. */
        IRQ,
        /** Softirq time: {@code softirq_entry} → {@code softirq_exit}. */
        SOFTIRQ
    }

    public LatencyPair {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(end, "end");
    }

    /** {@code end − start} in ns (never negative: the tracker discards pairs whose end comes first). */
    public long latencyNs() {
        return end.timestampNs() - start.timestampNs();
    }
}
