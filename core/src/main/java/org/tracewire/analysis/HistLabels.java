package org.tracewire.analysis;

/**
 * Names the kernel prints beside numeric keys: {@code .execname} (a task's comm), {@code .sym} /
 * {@code .sym-offset} (a kernel symbol), {@code .syscall} (a syscall's name). Return null when unknown.
 * The aggregator asks once per entry, when the entry is created (as the kernel saves the comm of the
 * first hit). {@link #execname} also answers a filter's {@code COMM}.
 */
public interface HistLabels {
    /** Knows no names: every label is null, and filters on {@code COMM} are refused. */
    HistLabels NONE = new HistLabels() {
    };

    /** The task name of {@code pid} (e.g. from {@code saved_cmdlines}), or null. */
    default String execname(int pid) {
        return null;
    }

    /**
     * The symbol of a kernel address, or null.
     *
     * @param address    the address (u64 bits)
     * @param withOffset true for {@code .sym-offset} ({@code name+0xoff/0xsize}), false for {@code .sym}
     */
    default String symbol(long address, boolean withOffset) {
        return null;
    }

    /** The syscall's name for {@code .syscall} (the kernel prints e.g. {@code sys_read}), or null. */
    default String syscall(long nr) {
        return null;
    }
}
