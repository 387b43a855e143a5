package org.tracewire.app.capture;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.TaskFields;
import org.tracewire.input.RecordInput;
import org.tracewire.record.EventRecord;
import org.tracewire.record.RecordValues;

/**
 * Turns decoded events ({@link RecordInput.Event}: from a capture file, opened or live, through
 * core's one decoder) into the event table's {@link EventRow}s: the event's time
 * ({@link RecordInput.Event#timeNs()}, ns since the epoch when known), the kernel's text of its
 * record (its own capture's renderer), its field values ({@link RecordValues}) and the record itself.
 * The task name is the one its capture's context gives (a pcapng's PROCESS frames, a trace.dat's
 * saved cmdlines), else the one the records themselves named last (the fields that name a task,
 * {@link TaskFields}: {@code prev_comm} of a {@code sched_switch}, {@code comm} of a wakeup, …),
 * else {@code <...>}. Not thread-safe.
 */
public final class RecordRows {
    /** Most task names learned from records (a bound on memory, not on correctness). */
    static final int MAX_LEARNED = 1 << 18;

    private final Map<Integer, String> learned = new HashMap<>();
    /** Per format, its fields that name a task with their comm. */
    private final Map<EventFormat, List<TaskFields.TaskField>> named = new IdentityHashMap<>();

    /** The row of one event. */
    public EventRow row(RecordInput.Event e) {
        EventRecord r = e.record();
        Map<String, Object> fields = RecordValues.strings(r);
        learn(r);
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

    /** The pid → comm pairs a record names about tasks ({@link TaskFields}: the fields with a comm). */
    private void learn(EventRecord r) {
        List<TaskFields.TaskField> fields = named.computeIfAbsent(r.format(),
                f -> TaskFields.of(f).stream().filter(t -> t.comm() != null).toList());
        for (TaskFields.TaskField t : fields) {
            try {
                put((int) r.integer(t.pid()), r.string(t.comm()));
            } catch (RuntimeException e) {
                // a field outside a cut record: nothing learned
            }
        }
    }

    private void put(int pid, String comm) {
        if (pid > 0 && !comm.isEmpty() && (learned.size() < MAX_LEARNED || learned.containsKey(pid))) {
            learned.put(pid, comm);
        }
    }
}
