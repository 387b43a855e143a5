package org.tracewire.tracefs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;

/** One naming rule for tracewire's instances, and one cleanup that removes every dead one. */
class OwnInstancesLiveTest {
    @Test
    void theNamingRule() {
        long pid = ProcessHandle.current().pid();
        assertEquals("tracewire-" + pid, OwnInstances.name(null));
        assertEquals("tracewire-filtercheck-" + pid, OwnInstances.name("filtercheck"));
        assertEquals(OptionalLong.of(pid), OwnInstances.pid(OwnInstances.name("calib")));
        assertEquals(OptionalLong.of(42), OwnInstances.pid("tracewire-42"));
        assertEquals(OptionalLong.empty(), OwnInstances.pid("tracewire-test-42-x"), "test instances are the tests'");
        assertEquals(OptionalLong.empty(), OwnInstances.pid("tracewire-"));
        assertEquals(OptionalLong.empty(), OwnInstances.pid("mine-42"));
        assertThrows(IllegalArgumentException.class, () -> OwnInstances.name("Bad-1"));
    }

    /**
     * Instances of every name tracewire creates, left by a dead process, are removed by the next
     * instance any tracewire process creates (here a filter check); those of live processes and
     * names of other shapes stay.
     */
    @Test
    @Tag("live")
    void everyDeadNameIsRemovedByTheNextCreation() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        long dead = p.pid();
        long alive = ProcessHandle.current().pid();
        List<String> stale = List.of("tracewire-" + dead, "tracewire-filtercheck-" + dead, "tracewire-calib-" + dead);
        List<String> kept = List.of("tracewire-" + alive, "tracewire-calib-" + alive, "tracewire-test-" + dead + "-own");
        List<String> made = new ArrayList<>();
        try {
            for (String n : stale) {
                top.createInstance(n);
                made.add(n);
            }
            for (String n : kept) {
                top.createInstance(n);
                made.add(n);
            }
            try (KernelFilterCheck check = KernelFilterCheck.open(top)) {
                assertTrue(top.instanceNames().contains(OwnInstances.name("filtercheck")));
            }
            for (String n : stale) {
                assertFalse(top.instanceNames().contains(n), n + " of a dead process left behind");
            }
            for (String n : kept) {
                assertTrue(top.instanceNames().contains(n), n + " removed");
            }
            assertEquals(List.of(), OwnInstances.removeStale(top), "nothing more to remove");
        } finally {
            for (String n : made) {
                if (top.instanceNames().contains(n)) {
                    top.instance(n).close();
                }
            }
        }
    }
}
