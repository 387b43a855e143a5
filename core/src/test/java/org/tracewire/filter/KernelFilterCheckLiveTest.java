package org.tracewire.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.KernelFilterCheck;
import org.tracewire.tracefs.Tracefs;

/** The running kernel accepts every kernel filter the model compiles to, and reports refusals with positions. */
@Tag("live")
class KernelFilterCheckLiveTest {

    @Test
    void kernelAcceptsEveryCompiledFilter() {
        Tracefs top = Prerequisites.requireTracefs();
        RandomFilters gen = new RandomFilters(11);
        List<String> refused = new ArrayList<>();
        int checked = 0;
        try (KernelFilterCheck check = KernelFilterCheck.open(top)) {
            for (String event : Events.NAMES) {
                String[] p = event.split(":");
                EventFormat f = top.format(p[0], p[1]);
                List<String> texts = new ArrayList<>(List.of(
                        "prev_comm ~ \"*bash\"", "common_pid == -2147483648", "CPU & 1 || COMM ~ \"[!k]*\"",
                        "common_flags == 255 && common_preempt_count <= 0"));
                for (int i = 0; i < 120; i++) {
                    texts.add(KernelFilterCompiler.compile(gen.valid(f, 1 + i % 4), f));
                }
                for (String t : texts) {
                    Filter filter;
                    try {
                        filter = Filter.parse(t);
                        FilterValidator.check(filter, f);
                    } catch (FilterSyntaxException e) {
                        continue; // the fixed texts are for sched_switch
                    }
                    String k = KernelFilterCompiler.compile(filter, f);
                    KernelFilterCheck.Result r = check.check(f, k);
                    checked++;
                    if (!r.accepted()) {
                        refused.add(event + ": " + k + " -> " + r.message() + " at " + r.position());
                    }
                }
            }
            assertFalse(top.instanceNames().isEmpty());
        }
        assertEquals(List.of(), refused);
        assertTrue(checked >= 600, "checked " + checked);
        assertFalse(top.instanceNames().stream().anyMatch(n -> n.startsWith(KernelFilterCheck.INSTANCE_PREFIX)),
                "scratch instance removed");
    }

    @Test
    void valuesWithQuotesAndBackslashesStayOneValue() {
        Tracefs top = Prerequisites.requireTracefs();
        EventFormat f = top.format("irq", "irq_handler_entry");
        for (String v : new String[] {"a\"b", "it's", "back\\slash", "\\", "a\\\"", "&& x == 1 ||", ")(", "  "}) {
            Filter filter = new Comparison("name", Op.EQ, Value.of(v)).or(new Comparison("name", Op.GLOB, Value.of(v.replace("\\", "\\\\"))));
            String k = KernelFilterCompiler.compile(filter, f);
            KernelFilterCheck.Result r = KernelFilterCheck.check(top, f, k);
            assertTrue(r.accepted(), k + " -> " + r);
            assertEquals(filter, Filter.parse(r.readBack()), "the kernel's text parses back to the same tree");
        }
    }

    @Test
    void refusalCarriesTheKernelsMessageAndPosition() {
        Tracefs top = Prerequisites.requireTracefs();
        EventFormat f = top.format("sched", "sched_switch");
        String topFilter = top.filter("sched", "sched_switch");
        KernelFilterCheck.Result r = KernelFilterCheck.check(top, f, "prev_pid == 1 && prev_pidd == 1");
        assertFalse(r.accepted());
        assertEquals("Field not found", r.message());
        // the kernel puts its caret just after the unknown name
        assertTrue(r.position() >= 17 && r.position() <= 27, "position " + r.position());
        KernelFilterCheck.Result quote = KernelFilterCheck.check(top, f, "prev_comm == \"abc");
        assertEquals("Missing matching quote", quote.message());
        assertEquals(13, quote.position());
        assertEquals(topFilter, top.filter("sched", "sched_switch"), "the top level's filter is untouched");
    }
}
