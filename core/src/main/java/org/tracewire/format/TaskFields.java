package org.tracewire.format;

import java.util.ArrayList;
import java.util.List;

/**
 * The one rule for which fields of an event name a task, derived from its format alone: every
 * signed 4-byte integer field ({@code pid_t}, {@code int}) named {@code pid} or {@code *_pid}, each
 * paired with the field that holds that task's name in the same record when the format has one:
 * {@code comm} for {@code pid}, {@code X_comm} for {@code X_pid} (a fixed {@code char[16]} or a
 * {@code __data_loc} string), {@code task_rename}'s {@code newcomm} (the new name, not the old);
 * then {@code common_pid}, the recording task, which the record does not name. Examples from
 * Linux 6.18's formats:
 * <ul>
 * <li>{@code sched:sched_switch}: {@code prev_pid}/{@code prev_comm}, {@code next_pid}/{@code next_comm};</li>
 * <li>{@code sched:sched_wakeup}: {@code pid}/{@code comm};</li>
 * <li>{@code sched:sched_process_fork}: {@code parent_pid}/{@code parent_comm},
 *     {@code child_pid}/{@code child_comm} ({@code __data_loc} names);</li>
 * <li>{@code sched:sched_process_exec}: {@code pid} and {@code old_pid}, without a name;</li>
 * <li>not a task: a syscall's {@code pid} argument (an 8-byte long), {@code neigh:neigh_update}'s
 *     {@code u32 pid} (a netlink port id), {@code filelock}'s {@code unsigned int pid} (a lock
 *     owner's, possibly another host's).</li>
 * </ul>
 * Used by the context planner ({@code wire.ContextPlanner}: capture and import), the capture store
 * ({@code tasks}) and the app (the tasks a row names).
 */
public final class TaskFields {
    /**
     * A field naming a task.
     *
     * @param pid  the pid field (a signed 4-byte integer)
     * @param comm the field of the task's name in the same record (a 16-byte {@code char} array or a
     *             {@code __data_loc} string), or null
     */
    public record TaskField(Field pid, Field comm) {
    }

    private TaskFields() {
    }

    /**
     * The task fields of a format: those its fields name, in field order, then {@code common_pid}.
     *
     * @param f the format
     * @return the task fields (empty for a format without a 4-byte {@code common_pid} and pid fields)
     */
    public static List<TaskField> of(EventFormat f) {
        boolean rename = f.system().equals("task") && f.name().equals("task_rename");
        List<TaskField> out = new ArrayList<>();
        for (Field fd : f.fields()) {
            if (fd.common() || fd.kind() != FieldKind.INTEGER || fd.size() != 4 || !fd.signed()
                    || !(fd.name().equals("pid") || fd.name().endsWith("_pid"))) {
                continue;
            }
            String base = fd.name().substring(0, fd.name().length() - 3);
            Field comm = f.field(rename && fd.name().equals("pid") ? "newcomm" : base + "comm");
            boolean named = comm != null && (comm.kind() == FieldKind.CHAR_ARRAY && comm.size() == 16
                    || comm.kind() == FieldKind.DYNAMIC_STRING && comm.size() == 4);
            out.add(new TaskField(fd, named ? comm : null));
        }
        Field common = f.field("common_pid");
        if (common != null && common.size() == 4) {
            out.add(new TaskField(common, null));
        }
        return out;
    }
}
