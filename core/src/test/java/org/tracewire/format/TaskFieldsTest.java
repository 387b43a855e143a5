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
        assertEquals(List.of("pid/comm", "common_pid/-"), of(snap, "sched", "sched_wakeup"));
        assertEquals(List.of("src_pid/-", "dst_pid/-", "common_pid/-"), of(snap, "sched", "sched_swap_numa"));
        assertEquals(List.of("common_pid/-"), of(snap, "neigh", "neigh_update"), "u32 pid: a netlink port id");
        assertEquals(List.of("common_pid/-"), of(snap, "filelock", "posix_lock_inode"), "unsigned: a lock owner's");
        List<String> all = new ArrayList<>();
        int named = 0;
        for (EventFormat f : snap.formats().formats()) {
            List<TaskFields.TaskField> got = TaskFields.of(f);
            assertEquals("common_pid", got.get(got.size() - 1).pid().name(), f.fullName());
            for (TaskFields.TaskField t : got) {
                assertTrue(t.pid().size() == 4 && t.pid().kind() == FieldKind.INTEGER && t.pid().signed(),
                        f.fullName() + " " + t);
                all.add(t.pid().name());
                named += t.comm() == null ? 0 : 1;
            }
            // complete: every signed 4-byte pid / *_pid field is one, with its X_comm when the format has one
            for (Field fd : f.fields()) {
                boolean pid = !fd.common() && (fd.name().equals("pid") || fd.name().endsWith("_pid"))
                        && fd.size() == 4 && fd.signed() && fd.kind() == FieldKind.INTEGER;
                if (pid) {
                    TaskFields.TaskField t = got.stream().filter(x -> x.pid() == fd).findFirst().orElseThrow();
                    Field comm = f.field(fd.name().substring(0, fd.name().length() - 3) + "comm");
                    if (comm != null && !f.fullName().equals("task:task_rename")) {
                        assertEquals(comm, t.comm(), f.fullName() + "." + fd.name());
                    }
                }
            }
        }
        assertTrue(all.size() > 2000, "every format has at least common_pid: " + all.size());
        assertTrue(named >= 10, "pid fields named by a comm field: " + named);
    }
}
