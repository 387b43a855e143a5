package org.tracewire.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.TestInstances;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsException;
import org.tracewire.tracefs.TracefsInstance;

/** {@link HistSupport} on trigger file texts, and on the live tracefs against what the kernel does with a hist trigger. */
class HistSupportTest {
    @Test
    void readsTheAvailableTriggersLine() {
        HistSupport without = HistSupport.parse("# Available triggers:\n# traceon traceoff stacktrace enable_event disable_event\n", "x");
        assertFalse(without.hist());
        assertEquals(Set.of("traceon", "traceoff", "stacktrace", "enable_event", "disable_event"), without.available());
        HistSupport with = HistSupport.parse("# Available triggers:\n"
                + "# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist\n", null);
        assertTrue(with.hist());
        assertTrue(with.available().contains("enable_hist"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HistSupport.parse("stacktrace:unlimited\n", "events/sched/sched_switch/trigger"));
        assertTrue(e.getMessage().startsWith("events/sched/sched_switch/trigger: "), e.getMessage());
    }

    @Test
    void aSnapshotHasNoTriggerFiles() {
        TracefsException e = assertThrows(TracefsException.class, () -> HistSupport.of(Tracefs.open(Prerequisites.snapshot())));
        assertTrue(e.getMessage().contains("cannot tell"), e.getMessage());
    }

    /** What the live kernel says agrees with what it does: a hist trigger is accepted exactly when "hist" is listed. */
    @Test
    @Tag("live")
    void liveAnswerMatchesWhatTheKernelAccepts() {
        Tracefs top = Prerequisites.requireTracefs();
        HistSupport s = HistSupport.of(top);
        assertTrue(s.available().contains("traceon"), s.toString());
        try (TracefsInstance inst = TestInstances.create(top, "hist")) {
            String trigger = "events/sched/sched_switch/trigger";
            boolean accepted;
            try {
                inst.write(trigger, "hist:keys=common_pid");
                accepted = true;
            } catch (TracefsException refused) {
                accepted = false;
            }
            if (accepted) {
                inst.write(trigger, "!hist:keys=common_pid");
            }
            assertEquals(accepted, s.hist(), "listed: " + s.available());
        }
    }
}
