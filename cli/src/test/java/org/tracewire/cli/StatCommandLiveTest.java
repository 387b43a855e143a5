package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.TestInstances;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsInstance;

/** {@code stat} shows an instance's state as tracefs holds it: enabled events, filter, pid list, CPUs. */
@Tag("live")
class StatCommandLiveTest {
    @Test
    void showsAnInstancesEventsFilterAndCounters() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        try (TracefsInstance inst = TestInstances.create(top, "stat")) {
            inst.setTracingOn(false);
            inst.write("events/sched/sched_switch/filter", "prev_pid == 1");
            inst.setEnabled("sched", "sched_switch", true);
            inst.write("set_event_pid", Long.toString(ProcessHandle.current().pid()));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int rc = Main.run(new String[] {"stat", "-B", inst.name()}, new PrintStream(out), new PrintStream(err));
            String text = out.toString(StandardCharsets.UTF_8);
            assertEquals(0, rc, text + err);
            assertTrue(text.startsWith("instance " + inst.name() + " (tracewire's):\n"), text);
            assertTrue(text.contains("  tracing:  off"), text);
            assertTrue(text.contains("  events:   1 enabled\n    sched:sched_switch  filter: prev_pid == 1"), text);
            assertTrue(text.contains("set_event_pid: " + ProcessHandle.current().pid()), text);
            for (int cpu : top.cpus()) {
                assertTrue(text.contains("\n  cpu" + cpu + " "), text);
            }
            assertEquals(Main.EXIT_USAGE, Main.run(new String[] {"stat", "-B", "no-such-instance-here"},
                    new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream())));
        }
    }
}
