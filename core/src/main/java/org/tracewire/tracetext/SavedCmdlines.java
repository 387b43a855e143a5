package org.tracewire.tracetext;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The kernel's pid → comm cache as read from tracefs {@code saved_cmdlines} ({@code "PID COMM"}
 * per line), used to name tasks the way the text {@code trace} file does
 * ({@code kernel/trace/trace_sched_switch.c}, {@code __trace_find_cmdline()}): pid 0 is
 * {@code <idle>}, an unknown pid {@code <...>}.
 */
public final class SavedCmdlines {
    private final Map<Integer, String> comms;

    private SavedCmdlines(Map<Integer, String> comms) {
        this.comms = comms;
    }

    /** An empty cache: every pid but 0 shows as {@code <...>}. */
    public static SavedCmdlines empty() {
        return new SavedCmdlines(Map.of());
    }

    /**
     * A cache over a pid → comm map its owner keeps changing (not copied), for readers that learn
     * task names as a stream goes on ({@code org.tracewire.wire.WireContext}): lookups see later
     * changes; not safe against concurrent changes of the map.
     */
    public static SavedCmdlines view(Map<Integer, String> comms) {
        return new SavedCmdlines(Objects.requireNonNull(comms, "comms"));
    }

    /** Parses the text of {@code saved_cmdlines}; malformed lines are skipped. */
    public static SavedCmdlines parse(String text) {
        // line by line without split/substring, into a map sized for ~11 characters a line: every
        // trace.dat opened parses one (6,552 lines in the checked-in capture)
        Map<Integer, String> map = new HashMap<>(Math.max(16, text.length() / 8));
        for (int start = 0; start < text.length(); ) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = text.length();
            }
            int space = text.indexOf(' ', start); // the first space of the line, else its end
            if (space < 0 || space > end) {
                space = end;
            }
            if (space > start && space < end) {
                try {
                    map.put(Integer.parseInt(text, start, space, 10), text.substring(space + 1, end));
                } catch (NumberFormatException ignored) {
                    // not a "PID COMM" line
                }
            }
            start = end + 1;
        }
        // not Map.copyOf: its probing took 2.5 ms of the 3.3 ms for that cache; the map is private
        // to this instance, so a read-only view suffices
        return new SavedCmdlines(Collections.unmodifiableMap(map));
    }

    /** The task name the kernel would print for {@code pid}. */
    public String comm(int pid) {
        if (pid == 0) {
            return "<idle>";
        }
        if (pid < 0) {
            return "<XXX>";
        }
        return comms.getOrDefault(pid, "<...>");
    }
}
