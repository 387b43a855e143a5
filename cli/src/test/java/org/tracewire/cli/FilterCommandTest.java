package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;

/** {@code tracewire filter}, run in-process through {@link Main#run}. */
class FilterCommandTest {

    private static FormatsCommandTest.Result snapshot(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "filter";
        all[1] = "--tracefs=" + Prerequisites.snapshot();
        System.arraycopy(args, 0, all, 2, args.length);
        return FormatsCommandTest.run(all);
    }

    @Test
    void printsTheThreeForms() {
        FormatsCommandTest.Result r = snapshot("-e", "sched:sched_switch", "common_pid == 1 && prev_comm ~ \"ba*\"");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("kernel:        common_pid == 1 && prev_comm ~ \"ba*\"\n"), r.out());
        assertTrue(r.out().contains("display:       tracewire.event == \"sched:sched_switch\" && (tracewire.pid == 1 && "
                + "tracewire.sched.sched_switch.prev_comm matches \"(?-i)(?s)^ba.*$\")\n"), r.out());
        // wire format v2: version 2, kind EVENT with the little-endian flag, then the record as the ring buffer
        // holds it at frame offset 30: common_type 372 and common_pid 1, little-endian (BPF loads are big-endian)
        assertTrue(r.out().contains("capture:       ether proto 0x88b5 and ether[14] = 2 and (ether[15] & 0xf != 0 or "
                + "(ether[15] & 0x1f = 0x10 and ether[30:2] = 0x7401 and ether[34:4] = 0x1000000))\n"), r.out());
        assertTrue(r.out().contains("capture-exact: no"), r.out());
        assertTrue(r.out().contains("warning:       capture filter: prev_comm ~ \"ba*\" dropped (widens)"), r.out());
        assertTrue(r.out().contains("kernel-check:  not run: not a live tracefs"), r.out());
    }

    @Test
    void invalidFilterShowsPositionAndCaret() {
        FormatsCommandTest.Result r = snapshot("-e", "sched:sched_switch", "prev_pid == 1 && prev_pidd == 2");
        assertEquals(1, r.code());
        assertEquals("filter: position 17: no field 'prev_pidd' in sched:sched_switch (did you mean 'prev_pid'?)\n"
                + "  prev_pid == 1 && prev_pidd == 2\n"
                + "                   ^\n", r.err());
        FormatsCommandTest.Result syntax = snapshot("-e", "sched:sched_switch", "prev_comm == abc");
        assertEquals(1, syntax.code());
        assertTrue(syntax.err().startsWith("filter: position 13: string values need quotes"), syntax.err());
    }

    @Test
    void json() throws Exception {
        FormatsCommandTest.Result r = snapshot("--json", "-e", "kmem:kmalloc", "bytes_req > 4096");
        assertEquals(0, r.code(), r.err());
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertEquals("kmem:kmalloc", doc.get("event").asText());
        assertEquals("bytes_req > 4096", doc.get("kernel").asText());
        assertTrue(doc.get("captureExact").asBoolean());
        assertFalse(doc.get("kernelCheck").get("run").asBoolean());
        FormatsCommandTest.Result bad = snapshot("--json", "-e", "kmem:kmalloc", "bytes_req > \"x\"");
        assertEquals(1, bad.code());
        JsonNode err = new ObjectMapper().readTree(bad.out()).get("error");
        assertEquals(12, err.get("position").asInt());
    }

    @Test
    void usageErrorsExitTwo() {
        assertEquals(2, snapshot("sched:sched_switch").code(), "missing -e");
        assertEquals(2, snapshot("-e", "sched", "prev_pid == 1").code());
        assertEquals(2, snapshot("-e", "sched:no_such_event", "prev_pid == 1").code());
        assertEquals(2, snapshot("-e", "../x:y", "prev_pid == 1").code());
        assertEquals(2, snapshot("-e", "sched:sched_switch").code(), "missing expression");
    }

    @Test
    @Tag("live")
    void liveKernelAcceptsOrRejects() {
        Prerequisites.requireTracefs();
        FormatsCommandTest.Result ok = FormatsCommandTest.run("filter", "-e", "sched:sched_switch", "prev_pid == 1 || next_comm ~ \"*sh\"");
        assertEquals(0, ok.code(), ok.out() + ok.err());
        assertTrue(ok.out().contains("kernel-check:  accepted"), ok.out());
        assertTrue(ok.out().contains("kernel:        prev_pid == 1 || next_comm ~ \"*\\sh\""), ok.out());
    }
}
