package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.tracewire.tracefs.EventSelection;

/** {@link SelfExclusion#feedbackWarnings}: which events can feed back on a capture, and how it says so. */
class SelfExclusionWarningsTest {
    private static List<String> warnings(String event, boolean traceSelf, boolean tap) {
        return SelfExclusion.feedbackWarnings(List.of(EventSelection.parse(event, null)), traceSelf, tap);
    }

    /** Asserts that {@code event} gets exactly one warning, and that it contains {@code text}. */
    private static String onlyWarning(String event, boolean traceSelf, boolean tap, String text) {
        List<String> w = warnings(event, traceSelf, tap);
        assertEquals(1, w.size(), event + ": " + w);
        assertTrue(w.get(0).contains(text), w.get(0));
        return w.get(0);
    }

    @Test
    void aCallTheCaptureNeverMakesCannotFeedBack() {
        // the full-speed benchmark's events: no thread of a capture calls getppid() while tracing
        assertEquals(List.of(), warnings("syscalls:sys_enter_getppid", true, false));
        assertEquals(List.of(), warnings("syscalls:sys_exit_getppid", true, true));
        assertEquals(List.of(), warnings("syscalls:sys_enter_openat", false, false));
    }

    @Test
    void ourOwnCallsAndWorkAreNamedWithTraceSelf() {
        for (String e : List.of("syscalls:sys_enter_read", "syscalls:sys_exit_futex", "syscalls:sys_enter_write",
                "sched:sched_switch", "block:block_rq_issue", "raw_syscalls:sys_enter")) {
            String w = onlyWarning(e, true, false, "feedback");
            assertTrue(w.startsWith(e + " records tracewire's own threads too"), w);
        }
        // excluded (the default) and no network output: nothing to warn of
        assertEquals(List.of(), warnings("syscalls:sys_enter_write", false, false));
        assertEquals(List.of(), warnings("sched:sched_switch", false, false));
    }

    @Test
    void aPerFrameCallWithANetworkOutputClimbs() {
        for (String e : List.of("syscalls:sys_enter_write", "syscalls:sys_enter_sendto", "raw_syscalls:sys_exit",
                "net:net_dev_xmit")) {
            onlyWarning(e, true, true, "expect the rate to climb until the buffer overflows");
        }
        // a read with a network output, traced: our own reads, not one per frame
        onlyWarning("syscalls:sys_enter_read", true, true, "records tracewire's own threads too");
    }

    @Test
    void excludedButANetworkOutputStillWarnsOfOtherReaders() {
        for (String e : List.of("syscalls:sys_enter_recvfrom", "syscalls:sys_enter_poll", "net:netif_receive_skb",
                "raw_syscalls:sys_enter")) {
            onlyWarning(e, false, true, "can still feed back through the interface");
        }
        assertEquals(List.of(), warnings("syscalls:sys_enter_write", false, true));
    }
}
