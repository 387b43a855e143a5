package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.Tracefs;

class CaptureSessionTest {
    @Test
    void selectionsParse() {
        assertEquals(new EventSelection("sched", "sched_switch", "prev_pid == 1"),
                EventSelection.parse("sched:sched_switch", "prev_pid == 1"));
        assertThrows(IllegalArgumentException.class, () -> EventSelection.parse("sched_switch", null));
        assertThrows(IllegalArgumentException.class, () -> EventSelection.parse("a:b:c", null));
    }

    @Test
    void subBuffersAreASixteenthOfTheBufferWithin4And64KiB() {
        assertEquals(64, CaptureSession.subBufferKb(8192));
        assertEquals(64, CaptureSession.subBufferKb(0), "the default buffer");
        assertEquals(64, CaptureSession.subBufferKb(1 << 20));
        assertEquals(32, CaptureSession.subBufferKb(512));
        assertEquals(16, CaptureSession.subBufferKb(300), "a power of two, rounded down");
        assertEquals(4, CaptureSession.subBufferKb(64));
        assertEquals(4, CaptureSession.subBufferKb(8));
    }

    @Test
    @Tag("live")
    void badFilterAbortsWithTheKernelsPositionAndLeavesNothing() {
        Tracefs top = Prerequisites.requireTracefs();
        String name = "tracewire-" + ProcessHandle.current().pid();
        FilterRejectedException e = assertThrows(FilterRejectedException.class, () -> CaptureSession.open(top,
                List.of(new EventSelection("sched", "sched_wakeup", null),
                        new EventSelection("sched", "sched_switch", "prev_pid == 1 && prev_pidd == 2")), 0, null));
        assertEquals("sched:sched_switch", e.event());
        assertEquals("Field not found", e.kernelMessage());
        // the kernel puts its caret under the operator after the unknown field
        assertEquals("prev_pid == 1 && prev_pidd ".length(), e.position(), e.getMessage());
        assertFalse(top.instanceNames().contains(name), "instance left behind");
        assertThrows(IllegalArgumentException.class, () -> CaptureSession.open(top,
                List.of(new EventSelection("sched", "no_such_event", null)), 0, null));
        assertThrows(IllegalArgumentException.class, () -> CaptureSession.open(top,
                List.of(new EventSelection("..", "sched", null)), 0, null));
    }

    @Test
    @Tag("live")
    void goodFiltersAreSetAndCloseRemovesTheInstance() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        String topClock = top.currentClock();
        try (CaptureSession s = CaptureSession.open(top, List.of(
                new EventSelection("sched", "sched_switch", "prev_comm ~ \"sw*\""),
                new EventSelection("irq", "irq_handler_entry", null)), 512, "mono")) {
            var inst = s.instance();
            assertEquals("prev_comm ~ \"sw*\"", inst.filter("sched", "sched_switch"));
            assertTrue(inst.isEnabled("sched", "sched_switch"));
            assertTrue(inst.isEnabled("irq", "irq_handler_entry"));
            assertEquals("mono", inst.currentClock());
            if (inst.exists("buffer_subbuf_size_kb")) {
                // 512 KiB per CPU: 32 KiB sub-buffers, and the layout the drainers read with says so
                assertEquals("32", inst.read("buffer_subbuf_size_kb").strip());
                assertEquals(32 * 1024, s.layout().subBufferSize());
            }
            assertTrue(top.instanceNames().contains(inst.name()));
            assertEquals(topClock, top.currentClock(), "the top-level clock is untouched");
        }
        assertFalse(top.instanceNames().contains("tracewire-" + ProcessHandle.current().pid()));
    }

    @Test
    void stackChoicesParseAndMakeTheTriggerLine() {
        assertEquals(EventSelection.Stack.BOTH, EventSelection.Stack.parse("Both"));
        assertTrue(EventSelection.Stack.BOTH.kernel() && EventSelection.Stack.BOTH.user());
        assertFalse(EventSelection.Stack.USER.kernel());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EventSelection.Stack.parse("kernal"));
        assertTrue(e.getMessage().contains("kernel, user, both or none"), e.getMessage());
        assertEquals("stacktrace", CaptureSession.stackTrigger(EventSelection.parse("sched:sched_switch", null)));
        assertEquals("stacktrace if prev_pid != 0 &&  next_pid > 1", CaptureSession.stackTrigger(
                EventSelection.parse("sched:sched_switch", " prev_pid != 0 &&\n next_pid > 1", EventSelection.Stack.KERNEL)));
        var sel = List.of(EventSelection.parse("sched:sched_switch", null, EventSelection.Stack.BOTH),
                EventSelection.parse("sched:sched_wakeup", null, EventSelection.Stack.KERNEL));
        assertEquals(List.of("sched:sched_switch", "sched:sched_wakeup", EventSelection.KERNEL_STACK,
                EventSelection.USER_STACK), EventSelection.recorded(sel).stream().map(EventSelection::fullName).toList());
        assertEquals(EventSelection.Stack.KERNEL, sel.get(1).withFilter("pid == 1").stack());
    }

    @Test
    @Tag("live")
    void stackTriggersAndTheUserOptionAreSetAndGoWithTheInstance() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        String name;
        try (CaptureSession s = CaptureSession.open(top, List.of(
                EventSelection.parse("sched:sched_switch", "prev_pid != 0", EventSelection.Stack.KERNEL),
                EventSelection.parse("sched:sched_wakeup", null, EventSelection.Stack.USER),
                EventSelection.parse("irq:irq_handler_entry", null)), 512, "mono")) {
            var inst = s.instance();
            name = inst.name();
            // the kernel lists a trigger with its count and condition
            assertEquals("stacktrace:unlimited if prev_pid != 0", inst.read("events/sched/sched_switch/trigger").strip());
            assertFalse(inst.read("events/sched/sched_wakeup/trigger").contains("stacktrace:"));
            assertFalse(inst.read("events/irq/irq_handler_entry/trigger").contains("stacktrace:"));
            assertEquals("1", inst.read("options/userstacktrace").strip());
            assertEquals("0", top.read("options/userstacktrace").strip(), "the top level is untouched");
            assertFalse(top.read("events/sched/sched_switch/trigger").contains("stacktrace:"));
        }
        // an instance with triggers is removed all the same (rmdir takes its triggers with it)
        assertFalse(top.instanceNames().contains(name), "instance left behind");
    }

    @Test
    void kernelStacksAreTheOptionOnlyWhenEveryEventTakesOneUnfiltered() {
        var k = EventSelection.Stack.KERNEL;
        assertTrue(CaptureSession.kernelStacksByOption(List.of(EventSelection.parse("sched:sched_switch", null, k),
                EventSelection.parse("sched:sched_wakeup", " ", EventSelection.Stack.BOTH))));
        assertFalse(CaptureSession.kernelStacksByOption(List.of(EventSelection.parse("sched:sched_switch", null, k),
                EventSelection.parse("sched:sched_wakeup", null))), "an event without a stack");
        assertFalse(CaptureSession.kernelStacksByOption(List.of(EventSelection.parse("sched:sched_switch", null, k),
                EventSelection.parse("sched:sched_wakeup", "pid == 1", k))), "a filtered event");
        assertFalse(CaptureSession.kernelStacksByOption(List.of(
                EventSelection.parse("sched:sched_switch", null, EventSelection.Stack.USER))));
        assertFalse(CaptureSession.kernelStacksByOption(List.of()));
    }

    /** A trace line's latency flags column, after the CPU ({@code [001] dNh4.}). */
    private static final Pattern FLAGS = Pattern.compile("\\] (\\S{5}) ");

    @Test
    @Tag("live")
    void unfilteredKernelStacksOnEveryEventAreTheInstancesOptionAndFollowEachEvent() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        String name;
        try (CaptureSession s = CaptureSession.open(top, List.of(
                EventSelection.parse("sched:sched_switch", null, EventSelection.Stack.KERNEL),
                EventSelection.parse("sched:sched_wakeup", null, EventSelection.Stack.KERNEL)), 512, "mono")) {
            var inst = s.instance();
            name = inst.name();
            assertTrue(s.stacksByOption());
            assertEquals("1", inst.read("options/stacktrace").strip());
            assertFalse(inst.read("events/sched/sched_switch/trigger").contains("stacktrace:"), "no trigger");
            assertFalse(inst.read("events/sched/sched_wakeup/trigger").contains("stacktrace:"), "no trigger");
            assertEquals("0", top.read("options/stacktrace").strip(), "the top level is untouched");
            assertTrue(s.followTaskNames().isEmpty(), "the option would stack a naming event's records too");
            s.start();
            Thread.sleep(300);
            s.stop();
            // the kernel's text per CPU: each event of the instance in task context followed by its
            // stack. In interrupt context (the latency flags' third column h, H, s, z, as a wakeup
            // from an interrupt of the idle task) this kernel writes none with the option: counted
            int events = 0;
            int inIrq = 0;
            List<String> missed = new ArrayList<>();
            for (int cpu = 0; inst.exists("per_cpu/cpu" + cpu + "/trace"); cpu++) {
                List<String> lines = inst.read("per_cpu/cpu" + cpu + "/trace").lines()
                        .filter(l -> !l.startsWith("#") && !l.startsWith(" =>")).toList();
                for (int i = 0; i + 1 < lines.size(); i++) {
                    if (lines.get(i).contains(": sched_switch: ") || lines.get(i).contains(": sched_wakeup: ")) {
                        events++;
                        Matcher m = FLAGS.matcher(lines.get(i));
                        if (m.find() && "hHsz".indexOf(m.group(1).charAt(2)) >= 0) {
                            inIrq++;
                        } else if (!lines.get(i + 1).endsWith("<stack trace>")) {
                            missed.add(lines.get(i) + " / " + lines.get(i + 1));
                        }
                    }
                }
            }
            assertTrue(events > inIrq, "no event in task context in 300 ms: " + events);
            assertEquals(List.of(), missed, events + " events (" + inIrq + " in interrupt context): no stack after");
        }
        assertFalse(top.instanceNames().contains(name), "instance left behind");
    }
}
