package org.tracewire.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a form-based filter editor needs from the filter package: the fields an event offers,
 * the operators each takes, and a value typed on its own read as the filter syntax reads it.
 */
class TypedValueTest {
    private static FilterField field(String event, String name) {
        return FilterField.resolve(Events.get(event), name);
    }

    @Test
    void filterableFieldsEventFirstThenCpuCommThenCommon() {
        List<String> names = FilterField.filterable(Events.sched_switch()).stream().map(FilterField::name).toList();
        assertEquals(List.of("prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio",
                "CPU", "COMM", "common_flags", "common_preempt_count", "common_pid"), names);
    }

    @Test
    void filterableLeavesOutArraysAndCommonTypeAndKeepsTheEventsOwnComm() {
        List<FilterField> raw = FilterField.filterable(Events.get("raw_syscalls:sys_enter"));
        assertEquals(List.of("id", "CPU", "COMM", "common_flags", "common_preempt_count", "common_pid"),
                raw.stream().map(FilterField::name).toList(), "args[6] is an array");
        List<FilterField> wakeup = FilterField.filterable(Events.get("sched:sched_wakeup"));
        assertEquals(FilterField.Source.EVENT, wakeup.get(0).source());
        assertEquals("comm", wakeup.get(0).name());
        assertEquals(FilterField.Source.COMM, wakeup.stream().filter(f -> f.name().equals("COMM")).findFirst().orElseThrow().source());
        for (FilterField f : wakeup) {
            assertEquals(f, FilterField.resolve(Events.get("sched:sched_wakeup"), f.name()), "each name resolves to itself");
        }
    }

    @Test
    void operatorsFollowTheFieldTypeAndTheValidator() {
        assertEquals(List.of(Op.EQ, Op.NE, Op.GLOB), field("sched:sched_switch", "prev_comm").operators());
        assertEquals(List.of(Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.BAND), field("sched:sched_switch", "prev_pid").operators());
        assertEquals(List.of(Op.EQ, Op.NE, Op.GLOB), field("syscalls:sys_enter_openat", "filename").operators(), "char * is a string");
        assertEquals(Op.BAND, field("kmem:kmalloc", "ptr").operators().get(6), "a void * is a number");
        assertEquals(List.of(Op.EQ, Op.NE, Op.GLOB), field("sched:sched_switch", "COMM").operators());
        assertEquals(List.of(), field("raw_syscalls:sys_enter", "args").operators());
        // every operator offered is one the validator accepts, every other one it refuses
        for (String name : List.of("prev_comm", "prev_pid", "CPU", "COMM", "common_flags")) {
            FilterField f = field("sched:sched_switch", name);
            for (Op op : Op.values()) {
                Value v = f.type() == FilterField.Type.STRING ? Value.of("x") : Value.of(1);
                boolean ok = FilterValidator.validate(new Comparison(name, op, v), Events.sched_switch()).isEmpty();
                assertEquals(f.operators().contains(op), ok, name + " " + op);
            }
        }
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", value = {
            "1 => 1",
            "' 42 ' => 42",
            "-5 => -5",
            "0x10 => 16",
            "0X1f => 31",
            "010 => 8",
            "0 => 0",
            "18446744073709551615 => 18446744073709551615",
            "-9223372036854775808 => -9223372036854775808",
    })
    void numbersAreReadAsTheParserReadsThem(String text, String expected) {
        Value v = FilterValidator.parseValue(field("sched:sched_switch", "prev_pid"), text);
        assertEquals(new Value.Num(new BigInteger(expected)), v);
        if (text.strip().equals(text)) {
            Comparison parsed = (Comparison) Filter.parse("prev_pid == " + text);
            assertEquals(parsed.value(), v, "the same value as in filter text");
        }
    }

    static Stream<Arguments> badNumbers() {
        String nan = " is not a number (decimal, 0x hex or 0 octal)";
        return Stream.of(
                Arguments.of("abc", 0, "'abc'" + nan),
                Arguments.of("  08", 2, "'08'" + nan),
                Arguments.of("1a", 0, "'1a'" + nan),
                Arguments.of("0x", 0, "'0x'" + nan),
                Arguments.of("+1", 0, "'+1'" + nan),
                Arguments.of("- 1", 0, "'- 1'" + nan),
                Arguments.of("\"1\"", 0, "'\"1\"'" + nan),
                Arguments.of("18446744073709551616", 0, "'18446744073709551616' is out of the 64-bit range"),
                Arguments.of("", 0, "enter a number"),
                Arguments.of("   ", 0, "enter a number"));
    }

    @ParameterizedTest
    @MethodSource("badNumbers")
    void badNumbersSayWhyAndWhere(String text, int position, String message) {
        FilterSyntaxException e = assertThrows(FilterSyntaxException.class,
                () -> FilterValidator.parseValue(field("sched:sched_switch", "prev_prio"), text));
        assertEquals(message, e.detail());
        assertEquals(position, e.position());
    }

    @Test
    void stringsAreKeptAsTypedAndCheckedByTheValidator() {
        FilterField comm = field("sched:sched_switch", "prev_comm");
        assertEquals(Value.of(" bash* "), FilterValidator.parseValue(comm, " bash* "));
        assertEquals(Value.of(""), FilterValidator.parseValue(comm, null));
        assertEquals(Value.of("1"), FilterValidator.parseValue(field("sched:sched_switch", "COMM"), "1"));
        Value both = FilterValidator.parseValue(comm, "a\"b'c");
        List<FilterProblem> p = FilterValidator.validate(new Comparison("prev_comm", Op.EQ, both), Events.sched_switch());
        assertTrue(p.get(0).message().contains("both \" and '"), p.toString());
        Value tooLong = FilterValidator.parseValue(comm, "1234567890123456");
        p = FilterValidator.validate(new Comparison("prev_comm", Op.EQ, tooLong), Events.sched_switch());
        assertTrue(p.get(0).message().contains("at most 15 characters"), p.toString());
    }

    @Test
    void unsupportedFieldsTakeNoValue() {
        FilterSyntaxException e = assertThrows(FilterSyntaxException.class,
                () -> FilterValidator.parseValue(field("raw_syscalls:sys_enter", "args"), "1"));
        assertTrue(e.detail().contains("an array"), e.detail());
    }
}
