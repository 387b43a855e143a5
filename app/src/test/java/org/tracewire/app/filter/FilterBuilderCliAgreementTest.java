package org.tracewire.app.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.tracewire.filter.CompiledFilter;
import org.tracewire.filter.Junction;
import org.tracewire.filter.Op;
import org.tracewire.format.EventFormat;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * The same condition gives the same kernel filter, display filter and BPF in the filter builder
 * as in {@code tracewire filter -e EVENT TEXT}: each case builds the condition through the view
 * model's rows (as the user clicks it) and compares the three previews with
 * {@link CompiledFilter#compile(String, EventFormat, ByteOrder)} of the text, the call the CLI's
 * {@code FilterCommand} makes with the tracefs's byte order. Loading the text into the builder
 * ({@link FilterBuilderViewModel#load}) gives them too.
 */
class FilterBuilderCliAgreementTest {
    private static final Tracefs SNAPSHOT = Tracefs.open(Prerequisites.snapshot());

    private static ConditionViewModel cond(GroupViewModel g, String field, Op op, String value) {
        ConditionViewModel c = g.addCondition(field);
        c.operatorProperty().set(op);
        c.valueProperty().set(value);
        return c;
    }

    private static Arguments c(String event, String text, Consumer<GroupViewModel> build) {
        return Arguments.of(event, text, build);
    }

    static Stream<Arguments> conditions() {
        return Stream.of(
                c("sched:sched_switch", "prev_pid == 1", r -> cond(r, "prev_pid", Op.EQ, "1")),
                c("sched:sched_switch", "prev_prio >= -1 && next_prio < 0x78",
                        r -> {
                            cond(r, "prev_prio", Op.GE, "-1");
                            cond(r, "next_prio", Op.LT, "0x78");
                        }),
                c("sched:sched_switch", "next_comm ~ \"kworker/*\"", r -> cond(r, "next_comm", Op.GLOB, "kworker/*")),
                c("sched:sched_switch", "prev_comm ~ \"*sh\"", r -> cond(r, "prev_comm", Op.GLOB, "*sh")),
                c("sched:sched_switch", "prev_comm != \"swapper/0\"", r -> cond(r, "prev_comm", Op.NE, "swapper/0")),
                c("sched:sched_switch", "prev_comm == 'a\"b'", r -> cond(r, "prev_comm", Op.EQ, "a\"b")),
                c("sched:sched_switch", "prev_state & 0x2", r -> cond(r, "prev_state", Op.BAND, "0x2")),
                c("sched:sched_switch", "common_pid != 0 && common_flags & 8",
                        r -> {
                            cond(r, "common_pid", Op.NE, "0");
                            cond(r, "common_flags", Op.BAND, "010");
                        }),
                c("kmem:kmalloc", "ptr == 0xffff888100000000 || call_site & 0xff",
                        r -> {
                            r.junctionProperty().set(Junction.OR);
                            cond(r, "ptr", Op.EQ, "18446612686364999680");
                            cond(r, "call_site", Op.BAND, "255");
                        }),
                c("kmem:kmalloc", "bytes_req > 4096 && gfp_flags & 0x400", r -> {
                    cond(r, "bytes_req", Op.GT, "4096");
                    cond(r, "gfp_flags", Op.BAND, "0x400");
                }),
                c("syscalls:sys_enter_openat", "filename ~ \"*.so\" && flags & 0x40",
                        r -> {
                            cond(r, "filename", Op.GLOB, "*.so");
                            cond(r, "flags", Op.BAND, "0x40");
                        }),
                c("sched:sched_switch", "!(prev_pid == 1 || next_pid == 0)",
                        r -> {
                            r.negatedProperty().set(true);
                            r.junctionProperty().set(Junction.OR);
                            cond(r, "prev_pid", Op.EQ, "1");
                            cond(r, "next_pid", Op.EQ, "0");
                        }),
                c("sched:sched_switch", "prev_prio < 120 && (next_comm ~ \"bash*\" || next_pid == 0) && !(CPU == 0)",
                        r -> {
                            cond(r, "prev_prio", Op.LT, "120");
                            GroupViewModel or = r.addGroup(Junction.OR);
                            cond(or, "next_comm", Op.GLOB, "bash*");
                            cond(or, "next_pid", Op.EQ, "0");
                            GroupViewModel not = r.addGroup(Junction.AND);
                            not.negatedProperty().set(true);
                            cond(not, "CPU", Op.EQ, "0");
                        }),
                c("sched:sched_switch", "(prev_pid == 1 || prev_pid == 2) && (next_pid == 3 || !(next_pid == 4 && CPU & 1))",
                        r -> {
                            GroupViewModel a = r.addGroup(Junction.OR);
                            cond(a, "prev_pid", Op.EQ, "1");
                            cond(a, "prev_pid", Op.EQ, "2");
                            GroupViewModel b = r.addGroup(Junction.OR);
                            cond(b, "next_pid", Op.EQ, "3");
                            GroupViewModel inner = b.addGroup(Junction.AND);
                            inner.negatedProperty().set(true);
                            cond(inner, "next_pid", Op.EQ, "4");
                            cond(inner, "CPU", Op.BAND, "1");
                        }),
                c("sched:sched_wakeup", "CPU >= 1 && COMM ~ \"ss*\" && comm == \"bash\"",
                        r -> {
                            cond(r, "CPU", Op.GE, "1");
                            cond(r, "COMM", Op.GLOB, "ss*");
                            cond(r, "comm", Op.EQ, "bash");
                        }),
                c("sched:sched_switch", "CPU == 70000 || COMM == \"bash\"",
                        r -> {
                            r.junctionProperty().set(Junction.OR);
                            cond(r, "CPU", Op.EQ, "70000");
                            cond(r, "COMM", Op.EQ, "bash");
                        }));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("conditions")
    void builderAndCliGiveTheSameThreeForms(String event, String text, Consumer<GroupViewModel> build) {
        String[] se = event.split(":");
        EventFormat format = SNAPSHOT.format(se[0], se[1]);
        CompiledFilter cli = CompiledFilter.compile(text, format, SNAPSHOT.byteOrder());

        FilterBuilderViewModel vm = new FilterBuilderViewModel(SNAPSHOT::byteOrder);
        vm.eventProperty().set(format);
        build.accept(vm.rootProperty().get());
        assertTrue(vm.validProperty().get(), vm.warningsProperty().get());
        assertEquals(cli.kernel(), vm.kernelProperty().get(), "kernel filter");
        assertEquals(cli.display(), vm.displayProperty().get(), "display filter");
        assertEquals(cli.bpf(), vm.bpfProperty().get(), "BPF");
        assertEquals(cli.bpfExact(), vm.bpfExactProperty().get(), "BPF exact");
        assertEquals(String.join("\n", cli.warnings()), vm.warningsProperty().get(), "warnings");

        FilterBuilderViewModel loaded = new FilterBuilderViewModel(SNAPSHOT::byteOrder);
        loaded.eventProperty().set(format);
        assertTrue(loaded.load(text), loaded.loadErrorProperty().get());
        assertEquals(vm.toFilter(), loaded.toFilter(), "the same tree from the text");
        assertEquals(cli.kernel(), loaded.kernelProperty().get());
        assertEquals(cli.display(), loaded.displayProperty().get());
        assertEquals(cli.bpf(), loaded.bpfProperty().get());
    }
}
