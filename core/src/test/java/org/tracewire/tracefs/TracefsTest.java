package org.tracewire.tracefs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.nio.file.Files;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;

class TracefsTest {
    @Test
    void snapshotReadsLikeTracefs() {
        Tracefs t = Tracefs.open(Prerequisites.snapshot());
        assertFalse(t.isLive());
        assertEquals("snapshot of Linux 6.18, read only", t.label());
        assertEquals(ByteOrder.LITTLE_ENDIAN, t.byteOrder());
        assertTrue(t.systems().contains("sched"));
        assertTrue(t.events("sched").contains("sched_switch"));
        assertEquals(t.format("sched", "sched_switch").id(), t.id("sched", "sched_switch"));
        assertEquals(4096, t.subBufferSize());
        assertTrue(t.traceClocks().contains("local"));
        assertEquals("local", t.currentClock());
        assertEquals("none", t.filter("sched", "sched_switch"));
        assertFalse(t.isEnabled("sched", "sched_switch"));
        assertTrue(t.allEvents().size() > 2300);
        assertThrows(TracefsException.class, () -> t.write("tracing_on", "0"));
        assertThrows(TracefsException.class, () -> t.createInstance("tracewire-x"));
    }

    @Test
    void craftedNamesNeverLeaveTheTree() {
        Tracefs t = Tracefs.open(Prerequisites.snapshot());
        assertThrows(IllegalArgumentException.class, () -> t.format("..", "sched"));
        assertThrows(IllegalArgumentException.class, () -> t.format("sched", "../../etc"));
        assertThrows(IllegalArgumentException.class, () -> t.events("a/b"));
        assertThrows(TracefsException.class, () -> Tracefs.open(Prerequisites.snapshot().resolve("events")));
    }

    @Test
    @Tag("live")
    void instanceLifecycleOnTheLiveKernel() {
        Tracefs top = Prerequisites.requireTracefs();
        String name = "tracewire-test-" + ProcessHandle.current().pid() + "-lifecycle";
        String topFilter = top.filter("sched", "sched_switch");
        boolean topEnabled = top.isEnabled("sched", "sched_switch");
        TracefsInstance inst = top.createInstance(name);
        try {
            assertTrue(top.instanceNames().contains(name));
            assertEquals(top.cpus(), inst.cpus());
            assertFalse(inst.cpus().isEmpty());
            inst.setBufferSizeKb(256);
            assertTrue(inst.bufferSizeKb() >= 256 && inst.bufferSizeKb() < 300, "rounded up to whole pages: " + inst.bufferSizeKb());
            inst.write("events/sched/sched_switch/filter", "prev_pid == 1");
            assertEquals("prev_pid == 1", inst.filter("sched", "sched_switch"));
            inst.setEnabled("sched", "sched_switch", true);
            assertTrue(inst.isEnabled("sched", "sched_switch"));
            TracefsException bad = assertThrows(TracefsException.class,
                    () -> inst.write("events/sched/sched_switch/filter", "no_such_field == 1"));
            assertTrue(bad.getMessage().contains("filter"), bad.getMessage());
            assertEquals(4096, inst.subBufferSize());
            // the instance leaves the top level alone
            assertEquals(topFilter, top.filter("sched", "sched_switch"));
            assertEquals(topEnabled, top.isEnabled("sched", "sched_switch"));
        } finally {
            inst.close();
        }
        assertFalse(Files.exists(inst.root()));
        assertFalse(top.instanceNames().contains(name));
        inst.close(); // idempotent
    }
}
