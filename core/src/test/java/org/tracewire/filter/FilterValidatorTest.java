package org.tracewire.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.tracewire.format.EventFormat;

/** {@link FilterValidator} messages and positions, against this kernel's formats. */
class FilterValidatorTest {

    private static List<FilterProblem> problems(String event, String text) {
        return FilterValidator.validate(Filter.parse(text), Events.get(event));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "prev_pid == 1",
            "prev_pid == -2147483648 || prev_pid == 2147483647",
            "prev_comm ~ \"kworker/*\" && next_comm != 'x\"y'",
            "prev_state & 0x7fffffffffffffff",
            "common_pid == 1 && common_flags == 255 && common_preempt_count < 16",
            "CPU == 0 || cpu == 1 || common_cpu >= 2",
            "COMM ~ \"bash\" || comm == \"123456789012345\"",
            "prev_comm == \"123456789012345\"",
    })
    void validForSchedSwitch(String text) {
        assertEquals(List.of(), problems("sched:sched_switch", text));
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", value = {
            "prev_pidd == 1 => 0 => no field 'prev_pidd' in sched:sched_switch (did you mean 'prev_pid'?)",
            "prev_comm < \"a\" => 0 => prev_comm is a string: use ==, != or ~",
            "prev_comm == 1 => 13 => prev_comm is a string: compare it with a quoted value",
            "prev_pid ~ \"1\" => 0 => prev_pid is a number (s32): use ==, !=, <, <=, >, >= or &",
            "prev_pid == \"1\" => 12 => prev_pid is a number (s32): compare it with an integer, not a string",
            "prev_pid == 2147483648 => 12 => 2147483648 does not fit s32 field 'prev_pid' (-2147483648..2147483647)",
            "common_flags == 256 => 16 => 256 does not fit u8 field 'common_flags' (0..255)",
            "common_flags == -1 => 16 => -1 does not fit u8 field 'common_flags' (0..255)",
            "COMM == \"1234567890123456\" => 8 => \"1234567890123456\" is longer than COMM (comm) can hold: at most 15 characters",
            "prev_comm == \"1234567890123456\" => 13 => \"1234567890123456\" is longer than prev_comm (char[16]) can hold: at most 15 characters",
            "common_type == 1 => 0 => common_type is the event id: the event selector already fixes it",
            "prev_comm ~ \"ab\\\" => 12 => a glob cannot end in a lone backslash (write \\\\ for a backslash)",
    })
    void problemsForSchedSwitch(String text, int position, String message) {
        List<FilterProblem> p = problems("sched:sched_switch", text);
        assertEquals(1, p.size(), p.toString());
        assertEquals(message, p.get(0).message());
        assertEquals(position, p.get(0).position(), p.toString());
    }

    @Test
    void allProblemsAreListedInTextOrder() {
        List<FilterProblem> p = problems("sched:sched_switch", "x == 1 || prev_pid == \"a\" && y ~ \"b\"");
        assertEquals(3, p.size(), p.toString());
        assertEquals(0, p.get(0).position());
        assertEquals(22, p.get(1).position());
        assertEquals(29, p.get(2).position());
    }

    @Test
    void unsignedEightByteFieldsTakeTheWholeRange() {
        assertEquals(List.of(), problems("kmem:kmalloc", "call_site == 18446744073709551615 && gfp_flags & 0x400 && node == -1"));
        assertEquals(1, problems("kmem:kmalloc", "call_site == -1").size());
    }

    @Test
    void charPointersAreStringsAsInTheKernel() {
        assertEquals(List.of(), problems("syscalls:sys_enter_openat", "filename ~ \"*.so\" && flags & 0x40"));
        assertEquals("filename is a string: compare it with a quoted value",
                problems("syscalls:sys_enter_openat", "filename == 0").get(0).message());
    }

    @Test
    void dynamicStringsHaveNoLengthLimitBelowTheKernels() {
        String v = "x".repeat(255);
        assertEquals(List.of(), problems("irq:irq_handler_entry", "name == \"" + v + "\""));
        assertTrue(problems("irq:irq_handler_entry", "name == \"" + v + "x\"").get(0).message().contains("at most 255 bytes"));
    }

    @Test
    void eventFieldsWinOverGenericOnes() {
        EventFormat wakeup = Events.get("sched:sched_wakeup");
        FilterField comm = FilterField.resolve(wakeup, "comm");
        assertEquals(FilterField.Source.EVENT, comm.source());
        assertEquals(FilterField.Source.COMM, FilterField.resolve(wakeup, "COMM").source());
        assertEquals(FilterField.Source.CPU, FilterField.resolve(wakeup, "cpu").source());
    }

    @Test
    void valuesThatCannotBeWrittenAreRefused() {
        Filter both = new Comparison("prev_comm", Op.EQ, Value.of("a'b\"c"));
        List<FilterProblem> p = FilterValidator.validate(both, Events.sched_switch());
        assertTrue(p.get(0).message().contains("both \" and '"), p.toString());
        Filter nl = new Comparison("prev_comm", Op.EQ, Value.of("a\nb"));
        assertTrue(FilterValidator.validate(nl, Events.sched_switch()).get(0).message().contains("line break"));
    }
}
