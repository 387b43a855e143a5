package org.tracewire.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** The syscalls system's event names taken apart, on every one of this kernel's snapshot. */
class SyscallEventsTest {
    @Test
    void namesOfEntryAndExitEvents() {
        assertEquals("write", SyscallEvents.callName("sys_enter_write"));
        assertEquals("exit_group", SyscallEvents.callName("sys_exit_exit_group"));
        assertTrue(SyscallEvents.isEnter("sys_enter_openat"));
        assertFalse(SyscallEvents.isExit("sys_enter_openat"));
        assertTrue(SyscallEvents.isExit("sys_exit_openat"));
        for (String other : new String[] {"sched_switch", "sys_enter", "sys_exit", "sys_enter_", "sys_exit_", ""}) {
            assertNull(SyscallEvents.callName(other), other);
            assertFalse(SyscallEvents.isEnter(other) || SyscallEvents.isExit(other), other);
        }
    }

    @Test
    void everySyscallsEventOfTheSnapshotHasAPairedCall() {
        Map<Integer, EventFormat> byId = Tracefs.open(Prerequisites.snapshot()).formats().byId();
        int enters = 0;
        for (EventFormat f : byId.values()) {
            if (!f.system().equals("syscalls")) {
                continue;
            }
            String call = SyscallEvents.callName(f.name());
            assertTrue(call != null && !call.isEmpty(), f.fullName());
            // the other half of the pair has the same call (SYSCALL_DEFINE makes both)
            String pair = (SyscallEvents.isEnter(f.name()) ? SyscallEvents.EXIT_PREFIX : SyscallEvents.ENTER_PREFIX)
                    + call;
            assertTrue(byId.values().stream().anyMatch(g -> g.system().equals("syscalls") && g.name().equals(pair)),
                    f.fullName() + " has no " + pair);
            if (SyscallEvents.isEnter(f.name())) {
                enters++;
            }
        }
        assertTrue(enters > 300, enters + " entry events in the snapshot");
    }
}
