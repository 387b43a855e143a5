package org.tracewire.capture;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.tracewire.tracefs.OwnInstances;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsException;

/**
 * The uprobes of one capture, in a group of its own ({@code tracewire_<pid>}) of the kernel's
 * {@code uprobe_events}: created before tracing, removed at the end, and removed by the next
 * capture when the process that made them is gone (a killed capture). Lines are only appended to
 * {@code uprobe_events}, never truncated: other tools' probes stay.
 */
public final class UprobeGroup implements AutoCloseable {
    /** Group names of captures: {@code tracewire_<pid>}. */
    public static final Pattern GROUP_NAME = Pattern.compile("tracewire_(\\d+)");
    static final String EVENTS_FILE = "uprobe_events";

    private final Tracefs top;
    private final String group;
    private final List<String> events = new ArrayList<>();

    private UprobeGroup(Tracefs top, String group) {
        this.top = top;
        this.group = group;
    }

    /**
     * Creates the probes, removing those of dead captures first.
     *
     * @param top    the live tracefs
     * @param probes the resolved probes
     * @return the group, whose events ({@code tracewire_<pid>:NAME}) now exist
     * @throws IllegalArgumentException with the kernel's own error text and position
     *         ({@code error_log}) when it refuses a probe; the probes made before it are removed
     * @throws TracefsException when this kernel has no {@code uprobe_events}
     */
    public static UprobeGroup create(Tracefs top, List<Uprobe> probes) {
        if (!top.exists(EVENTS_FILE)) {
            throw new TracefsException("this kernel has no uprobe_events (CONFIG_UPROBE_EVENTS)");
        }
        removeStale(top);
        UprobeGroup g = new UprobeGroup(top, "tracewire_" + ProcessHandle.current().pid());
        try {
            for (Uprobe p : probes) {
                String line = p.definition(g.group);
                try {
                    top.append(EVENTS_FILE, line + "\n");
                } catch (TracefsException e) {
                    throw new IllegalArgumentException("the kernel refused uprobe '" + line + "': " + kernelError(top, e));
                }
                g.events.add(g.group + ":" + p.eventName());
            }
            return g;
        } catch (RuntimeException e) {
            g.close();
            throw e;
        }
    }

    /** The last {@code error_log} entry (message, command and caret), else the write's error. */
    private static String kernelError(Tracefs top, TracefsException e) {
        try {
            List<String> log = top.read("error_log").lines().toList();
            for (int i = log.size() - 1; i >= 0; i--) {
                if (log.get(i).contains("error:")) {
                    return String.join("\n", log.subList(i, Math.min(log.size(), i + 3))).strip();
                }
            }
        } catch (RuntimeException ignored) {
            // no error_log: the write's own error below
        }
        return e.getMessage();
    }

    /** The events made, {@code group:name}, in the order of the probes. */
    public List<String> events() {
        return List.copyOf(events);
    }

    /** The group's name. */
    public String group() {
        return group;
    }

    /** Removes the group's probes (their events must be disabled in every instance by now). */
    @Override
    public void close() {
        remove(top, group);
        events.clear();
    }

    /**
     * Removes the probes of groups {@code tracewire_<pid>} whose process is gone, after the stale
     * instances that may still enable them ({@link OwnInstances#removeStale}).
     *
     * @return the groups removed
     */
    public static List<String> removeStale(Tracefs top) {
        List<String> removed = new ArrayList<>();
        if (!top.exists(EVENTS_FILE)) {
            return removed;
        }
        OwnInstances.removeStale(top);
        for (String system : top.systems()) {
            Matcher m = GROUP_NAME.matcher(system);
            if (m.matches() && !ProcessHandle.of(Long.parseLong(m.group(1))).map(ProcessHandle::isAlive).orElse(false)) {
                remove(top, system);
                removed.add(system);
            }
        }
        return removed;
    }

    private static void remove(Tracefs top, String group) {
        for (String line : top.read(EVENTS_FILE).lines().toList()) {
            // "p:GROUP/EVENT PATH:0xOFF ..." → "-:GROUP/EVENT"
            int colon = line.indexOf(':');
            int space = line.indexOf(' ');
            if (colon > 0 && space > colon && line.substring(colon + 1, space).startsWith(group + "/")) {
                try {
                    top.append(EVENTS_FILE, "-:" + line.substring(colon + 1, space) + "\n");
                } catch (TracefsException e) {
                    // still enabled somewhere (a stale instance): the next capture removes it
                }
            }
        }
    }
}
