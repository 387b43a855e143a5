package org.tracewire.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsInstance;

/** {@link TestInstances} on the live tracefs. */
@Tag("live")
class TestInstancesTest {

    @Test
    void createdInstanceIsNamedAndRemovedOnClose() {
        Tracefs tracefs = Prerequisites.requireTracefs();
        String expected = TestInstances.nameFor(ProcessHandle.current().pid(), "selftest");
        TracefsInstance inst = TestInstances.create(tracefs, "selftest");
        try (inst) {
            assertTrue(tracefs.instanceNames().contains(expected), tracefs.instanceNames().toString());
            assertTrue(Files.isDirectory(inst.root().resolve("events")));
        }
        assertFalse(tracefs.instanceNames().contains(expected));
    }

    @Test
    void leftoversOfDeadPidsAreRemovedOthersKept() throws Exception {
        Tracefs tracefs = Prerequisites.requireTracefs();
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        long deadPid = p.pid();
        String dead = TestInstances.nameFor(deadPid, "leftover");
        tracefs.createInstance(dead);
        try (TracefsInstance mine = TestInstances.create(tracefs, "keeper")) {
            assertFalse(tracefs.instanceNames().contains(dead), "leftover of dead pid " + deadPid + " not removed");
            assertTrue(TestInstances.removeLeftovers(tracefs).isEmpty());
            assertTrue(tracefs.instanceNames().contains(mine.name()), "own instance must survive");
        } finally {
            if (tracefs.instanceNames().contains(dead)) {
                tracefs.instance(dead).close();
            }
        }
    }

    @Test
    void purposeIsValidated() {
        assertThrows(IllegalArgumentException.class,
                () -> TestInstances.create(Tracefs.open(Prerequisites.snapshot()), "../x"));
    }
}
