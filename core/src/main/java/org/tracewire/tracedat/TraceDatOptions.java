package org.tracewire.tracedat;

import java.util.List;

/**
 * The options a trace.dat carries (v6 and v7 option ids are the same; see
 * {@code trace-cmd.dat.v7(5)}). Absent options are null (or empty lists).
 *
 * @param date       {@code DATE} (id 1): offset in ns from the trace clock to the wall clock
 *                   (Unix epoch), as {@code trace-cmd record --date} stores it; null when absent
 * @param cpuStats   {@code CPUSTAT} (id 2): each CPU's {@code per_cpu/cpuN/stats} text
 * @param traceClock {@code TRACECLOCK} (id 4): the {@code trace_clock} file, the selected clock in brackets
 * @param uname      {@code UNAME} (id 5): {@code "sysname nodename release machine"}
 * @param offset     {@code OFFSET} (id 7): ns added to every time stamp on reading; null when absent
 * @param cpuCount   {@code CPUCOUNT} (id 8): CPUs of the traced system; null when absent
 * @param version    {@code VERSION} (id 9): the trace-cmd version that wrote the file
 * @param traceId    {@code TRACEID} (id 11): the session id; null when absent
 * @param timeShift  {@code TIME_SHIFT} (id 12): the peer's trace id when present (guest files), else null
 * @param tsc2nsec   {@code TSC2NSEC} (id 14): {@code {multiplier, shift, offset}}, or null
 * @param unknownIds ids of options this reader skipped
 */
public record TraceDatOptions(Long date, List<String> cpuStats, String traceClock, String uname, Long offset,
                              Integer cpuCount, String version, Long traceId, Long timeShift, long[] tsc2nsec,
                              List<Integer> unknownIds) {
    public TraceDatOptions {
        cpuStats = List.copyOf(cpuStats);
        unknownIds = List.copyOf(unknownIds);
    }

    /** The clock selected in {@link #traceClock} ({@code [local] global ...} → {@code local}), or null. */
    public String selectedClock() {
        if (traceClock == null) {
            return null;
        }
        int a = traceClock.indexOf('[');
        int b = traceClock.indexOf(']', a + 1);
        if (a >= 0 && b > a) {
            return traceClock.substring(a + 1, b);
        }
        String t = traceClock.strip();
        return t.isEmpty() || t.contains(" ") ? null : t;
    }
}
