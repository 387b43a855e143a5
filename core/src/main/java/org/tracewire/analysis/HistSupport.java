package org.tracewire.analysis;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsException;

/**
 * Which path a histogram takes: the kernel's own hist trigger (when the kernel has
 * {@code CONFIG_HIST_TRIGGERS}) or {@link HistAggregator} over captured records. Read from an event's
 * {@code trigger} file, whose first lines list the trigger commands the kernel knows:
 *
 * <pre>
 * # Available triggers:
 * # traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist
 * </pre>
 *
 * @param available the trigger commands listed (empty when the file lists none)
 * @param source    the file read, relative to the tracefs root, or null for a parsed string
 */
public record HistSupport(Set<String> available, String source) {
    /** Events whose {@code trigger} file {@link #of(Tracefs)} tries first, in order. */
    static final List<String[]> PROBES = List.of(new String[] {"sched", "sched_switch"},
            new String[] {"raw_syscalls", "sys_enter"}, new String[] {"irq", "irq_handler_entry"});

    private static final String HEADER = "# Available triggers:";

    public HistSupport {
        available = Set.copyOf(available);
    }

    /** Whether the kernel has hist triggers (the {@code hist} command is available). */
    public boolean hist() {
        return available.contains("hist");
    }

    /**
     * Reads the available triggers from an event's {@code trigger} file: the first of
     * {@code sched/sched_switch}, {@code raw_syscalls/sys_enter}, {@code irq/irq_handler_entry} that
     * lists them, else the first event whose file does (an event with triggers attached lists those
     * instead).
     *
     * @throws TracefsException when no event's {@code trigger} file lists the available triggers, or
     *                          a file cannot be read (a tracefs readable only by root)
     */
    public static HistSupport of(Tracefs tracefs) {
        Objects.requireNonNull(tracefs, "tracefs");
        List<String> candidates = new ArrayList<>();
        for (String[] p : PROBES) {
            candidates.add("events/" + p[0] + "/" + p[1] + "/trigger");
        }
        for (String system : tracefs.systems()) {
            for (String event : tracefs.events(system)) {
                candidates.add("events/" + system + "/" + event + "/trigger");
            }
        }
        for (String rel : candidates) {
            if (tracefs.exists(rel)) {
                String text = tracefs.read(rel);
                if (text.lines().findFirst().orElse("").strip().equals(HEADER)) {
                    return parse(text, rel);
                }
            }
        }
        throw new TracefsException("no event's trigger file in " + tracefs.label()
                + " lists the available triggers: cannot tell whether hist triggers exist");
    }

    /**
     * Reads the text of a {@code trigger} file: the words of the comment lines after
     * {@code # Available triggers:}.
     *
     * @param text   the file's text
     * @param source where it came from (for messages), or null
     * @throws IllegalArgumentException when the text has no {@code # Available triggers:} line
     *                                  (naming {@code source})
     */
    public static HistSupport parse(String text, String source) {
        Set<String> words = new LinkedHashSet<>();
        boolean header = false;
        for (String line : text.split("\n")) {
            String l = line.strip();
            if (l.equals(HEADER)) {
                header = true;
            } else if (header && l.startsWith("#")) {
                for (String w : l.substring(1).trim().split("\\s+")) {
                    if (!w.isEmpty()) {
                        words.add(w);
                    }
                }
            } else {
                break;
            }
        }
        if (!header) {
            throw new IllegalArgumentException((source == null ? "trigger text" : source)
                    + ": no '# Available triggers:' line (not an event's trigger file?)");
        }
        return new HistSupport(words, source);
    }
}
