package org.tracewire.capture;

import java.util.ArrayList;
import java.util.List;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.Tracefs;

/**
 * The events a capture reads to follow task names as the kernel changes them, whatever events
 * were selected: {@code sched_process_fork} (a new task, named as its parent), {@code
 * sched_process_exec} (named after the executed file, {@code begin_new_exec} in {@code fs/exec.c})
 * and {@code task_rename} ({@code prctl(PR_SET_NAME)}, writes to {@code /proc/PID/comm}). Their
 * records are read in stream order and turned into PROCESS context ({@code docs/wire-format.md}
 * §4.4) before the events they name; they are not framed unless selected. Without them a name
 * comes from {@code /proc} or {@code saved_cmdlines} when the task is first framed, which can be
 * after it exited or its pid was reused.
 */
public final class TaskNaming {
    /** The naming events, {@code system:event}. */
    public static final List<String> EVENTS = List.of("sched:sched_process_fork", "sched:sched_process_exec",
            "task:task_rename");

    private TaskNaming() {
    }

    /**
     * The naming events this kernel has that are not among {@code selected}, without filters.
     *
     * @param top      the live tracefs
     * @param selected the capture's events
     * @return the events to enable for naming only (possibly empty)
     */
    public static List<EventSelection> extra(Tracefs top, List<EventSelection> selected) {
        List<EventSelection> out = new ArrayList<>();
        for (String e : EVENTS) {
            EventSelection s = EventSelection.parse(e, null);
            boolean chosen = selected.stream().anyMatch(x -> x.fullName().equals(e));
            if (!chosen && top.exists("events/" + s.system() + "/" + s.event() + "/enable")) {
                out.add(s);
            }
        }
        return out;
    }
}
