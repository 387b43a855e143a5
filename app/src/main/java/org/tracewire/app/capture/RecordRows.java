package org.tracewire.app.capture;

import java.util.HashMap;
import java.util.Map;
import org.tracewire.input.RecordInput;
import org.tracewire.record.EventRecord;
import org.tracewire.record.RecordValues;

/**
 * Turns decoded events ({@link RecordInput.Event}: from a capture file, opened or live, through
 * core's one decoder) into the event table's {@link EventRow}s: the event's time
 * ({@link RecordInput.Event#timeNs()}, ns since the epoch when known), the kernel's text of its
 * record (its own capture's renderer), its field values ({@link RecordValues}) and the record itself.
 * The task name is the one its capture's context gives (a pcapng's PROCESS frames, a trace.dat's
 * saved cmdlines), else the one the records themselves named last ({@code prev_comm} of a
 * {@code sched_switch}, {@code comm} of a wakeup, …), else {@code <...>}. Not thread-safe.
 */
public final class RecordRows {
    /** Most task names learned from records (a bound on memory, not on correctness). */
    static final int MAX_LEARNED = 1 << 18;

    private final Map<Integer, String> learned = new HashMap<>();

    /** The row of one event. */
    public EventRow row(RecordInput.Event e) {
        EventRecord r = e.record();
        Map<String, Object> fields = RecordValues.strings(r);
        learn(r.format().fullName(), fields);
        String text;
        try {
            text = e.renderer().body(r);
        } catch (RuntimeException ex) {
            text = "<" + ex.getMessage() + ">";
        }
        return new EventRow(e.timeNs(), r.cpu(), r.pid(), comm(e, r.pid()), r.format().fullName(), text, fields, e.frame(), r);
    }

    private String comm(RecordInput.Event e, int pid) {
        String c = e.renderer().comm(pid);
        if (pid <= 0 || !c.equals("<...>")) {
            return c;
        }
        String l = learned.get(pid);
        return l != null ? l : c;
    }

    /** The pid → comm pairs a record names about tasks. */
    private void learn(String event, Map<String, Object> f) {
        switch (event) {
            case "sched:sched_switch" -> {
                put(f.get("prev_pid"), f.get("prev_comm"));
                put(f.get("next_pid"), f.get("next_comm"));
            }
            case "sched:sched_wakeup", "sched:sched_waking", "sched:sched_wakeup_new", "sched:sched_migrate_task",
                 "sched:sched_process_exit", "sched:sched_process_free", "sched:sched_stat_runtime",
                 "task:task_newtask" -> put(f.get("pid"), f.get("comm"));
            case "sched:sched_process_fork" -> {
                put(f.get("parent_pid"), f.get("parent_comm"));
                put(f.get("child_pid"), f.get("child_comm"));
            }
            case "task:task_rename" -> put(f.get("pid"), f.get("newcomm"));
            default -> { }
        }
    }

    private void put(Object pid, Object comm) {
        if (pid == null || comm == null || comm.toString().isEmpty()) {
            return;
        }
        try {
            int p = Integer.parseInt(pid.toString());
            if (learned.size() < MAX_LEARNED || learned.containsKey(p)) {
                learned.put(p, comm.toString());
            }
        } catch (NumberFormatException ignored) {
            // not a pid
        }
    }
}
