package org.tracewire.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

class TaskFieldsTest {
    private static List<String> of(Tracefs t, String system, String event) {
        return TaskFields.of(t.format(system, event)).stream()
                .map(f -> f.pid().name() + "/" + (f.comm() == null ? "-" : f.comm().name())).toList();
    }

    @Test
    void pidFieldsWithTheirNamesThenTheRecordingTask() {
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        assertEquals(List.of("prev_pid/prev_comm", "next_pid/next_comm", "common_pid/-"),
                of(snap, "sched", "sched_switch"));
        assertEquals(List.of("pid/newcomm", "common_pid/-"), of(snap, "task", "task_rename"), "the new name, not the old");
        assertEquals(List.of("parent_pid/parent_comm", "child_pid/child_comm", "common_pid/-"),
                of(snap, "sched", "sched_process_fork"), "__data_loc names (6.18) count as names");
        assertEquals(List.of("pid/-", "old_pid/-", "common_pid/-"), of(snap, "sched", "sched_process_exec"));
        assertEquals(List.of("common_pid/-"), of(snap, "syscalls", "sys_enter_kill"),
                "a syscall's arguments are 8-byte longs, not pid_t fields");
        List<String> all = new ArrayList<>();
        for (EventFormat f : snap.formats().formats()) {
            for (TaskFields.TaskField t : TaskFields.of(f)) {
                assertTrue(t.pid().size() == 4 && t.pid().kind() == FieldKind.INTEGER, f.fullName() + " " + t);
                all.add(t.pid().name());
            }
        }
        assertTrue(all.size() > 2000, "every format has at least common_pid: " + all.size());
    }
}
