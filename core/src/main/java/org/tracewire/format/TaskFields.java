package org.tracewire.format;

import java.util.ArrayList;
import java.util.List;

/**
 * The one rule for which fields of an event name a task: every 4-byte integer field {@code pid} or
 * {@code *_pid} ({@code prev_pid}, {@code next_pid}, {@code child_pid}, {@code orig_pid}, …), each
 * with the field that holds that task's name in the same record when there is one ({@code prev_comm},
 * {@code next_comm}, {@code child_comm}, fixed {@code char[16]} or {@code __data_loc}; {@code comm}
 * for {@code pid}; {@code task_rename}'s {@code newcomm}), then {@code common_pid} (the recording
 * task, unnamed by the record). Used by capture ({@code ContextTracker}), import ({@code FirstSight})
 * and every reader that describes tasks.
 */
public final class TaskFields {
    /**
     * A field naming a task.
     *
     * @param pid  the pid field (4-byte integer)
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
            if (fd.common() || fd.kind() != FieldKind.INTEGER || fd.size() != 4
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
