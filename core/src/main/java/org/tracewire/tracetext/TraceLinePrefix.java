package org.tracewire.tracetext;

import java.util.Set;
import org.tracewire.record.EventRecord;
import org.tracewire.text.SafeText;

/**
 * The columns the text {@code trace} file writes before an event's own text, with the default
 * options ({@code irq-info} on, {@code record-tgid} off), as {@code trace_print_context()} in
 * {@code kernel/trace/trace_output.c} does:
 * <pre>{@code %16s-%-7d [%03d] FLAGS %5lu.%06lu: NAME: }</pre>
 * i.e. task name right-aligned in 16, pid left-aligned in 7, CPU, the {@link LatencyFormat}
 * column, the time in seconds with microseconds (ns rounded to the nearest µs, as
 * {@code ns2usecs()} does) for nanosecond clocks, or the raw count in 12 columns for counter
 * clocks ({@code counter}, {@code uptime}, {@code x86-tsc}).
 */
public final class TraceLinePrefix {
    private static final Set<String> COUNTER_CLOCKS = Set.of("counter", "uptime", "x86-tsc");
    private final SavedCmdlines cmdlines;
    private final boolean clockInNs;

    /**
     * @param cmdlines the kernel's pid → comm cache, read when the trace was read
     * @param clock    the instance's {@code trace_clock}
     */
    public TraceLinePrefix(SavedCmdlines cmdlines, String clock) {
        this.cmdlines = cmdlines;
        this.clockInNs = !COUNTER_CLOCKS.contains(clock);
    }

    /** The task name the line of an event of {@code pid} shows ({@code <idle>}, {@code <...>} when unknown). */
    public String comm(int pid) {
        return cmdlines.comm(pid);
    }

    /**
     * Appends the prefix of a record's line, up to and including {@code "NAME: "}.
     *
     * @param out       where to append
     * @param record    the record (pid, flags and preempt count from its common fields)
     * @param eventName the name shown, normally the event name
     */
    public void append(StringBuilder out, EventRecord record, String eventName) {
        appendContext(out, record);
        out.append(eventName).append(": ");
    }

    /**
     * Appends the context columns only, up to and including the {@code ": "} after the time, for
     * events whose text replaces the name column ({@link SyscallText}).
     */
    public void appendContext(StringBuilder out, EventRecord record) {
        int pid = record.pid();
        String comm = SafeText.escape(cmdlines.comm(pid)); // a task may name itself with any bytes
        pad(out, comm, 16, true);
        out.append('-');
        pad(out, Integer.toString(pid), 7, false);
        out.append(" [");
        String cpu = Integer.toString(record.cpu());
        for (int i = cpu.length(); i < 3; i++) {
            out.append('0');
        }
        out.append(cpu).append("] ");
        out.append(LatencyFormat.format(record.flags(), record.preemptCount()));
        appendTime(out, record.timestampNs());
        out.append(": ");
    }

    /** Appends the time column with its leading space: {@code " %5lu.%06lu"} or {@code " %12llu"}. */
    public void appendTime(StringBuilder out, long ts) {
        out.append(' ');
        if (clockInNs) {
            long usecs = Long.divideUnsigned(ts + 500, 1000);
            long secs = Long.divideUnsigned(usecs, 1_000_000);
            long rem = Long.remainderUnsigned(usecs, 1_000_000);
            pad(out, Long.toUnsignedString(secs), 5, true);
            out.append('.');
            String r = Long.toString(rem);
            for (int i = r.length(); i < 6; i++) {
                out.append('0');
            }
            out.append(r);
        } else {
            pad(out, Long.toUnsignedString(ts), 12, true);
        }
    }

    private static void pad(StringBuilder out, String s, int width, boolean right) {
        if (right) {
            for (int i = s.length(); i < width; i++) {
                out.append(' ');
            }
            out.append(s);
        } else {
            out.append(s);
            for (int i = s.length(); i < width; i++) {
                out.append(' ');
            }
        }
    }
}
