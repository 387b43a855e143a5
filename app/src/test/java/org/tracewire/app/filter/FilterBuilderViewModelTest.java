package org.tracewire.app.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.tracewire.filter.Comparison;
import org.tracewire.filter.Filter;
import org.tracewire.filter.Junction;
import org.tracewire.filter.Op;
import org.tracewire.filter.Or;
import org.tracewire.filter.Value;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

public class FilterBuilderViewModelTest {
    /** The three forms of {@code prev_pid == 1 || next_comm ~ "bash*"} on sched:sched_switch (snapshot id 372). */
    public static final String KERNEL = "prev_pid == 1 || next_comm ~ \"bash*\"";
    public static final String DISPLAY = "tracewire.event == \"sched:sched_switch\" && (tracewire.sched.sched_switch.prev_pid == 1"
            + " || tracewire.sched.sched_switch.next_comm matches \"(?-i)(?s)^bash.*$\")";
    /** Wire format v2: version 2, an EVENT frame of a little-endian kernel, common_type 372 (LE) at frame offset 30. */
    public static final String BPF = "ether proto 0x88b5 and ether[14] = 2 and (ether[15] & 0xf != 0 or (ether[15] & 0x1f = 0x10 and ether[30:2] = 0x7401))";

    private FilterBuilderViewModel vm;

    @BeforeEach
    void setUp() {
        vm = new FilterBuilderViewModel(() -> java.nio.ByteOrder.LITTLE_ENDIAN);
        vm.eventProperty().set(Tracefs.open(Prerequisites.snapshot()).format("sched", "sched_switch"));
    }

    @Test
    void offersEventAndCommonFieldsEventFirst() {
        List<String> names = vm.fieldNameList();
        assertEquals("prev_comm", names.get(0));
        assertTrue(names.contains("next_pid"));
        assertTrue(names.contains("common_pid"));
    }

    @Test
    void twoConditionsInAnOrGroupMakeTheExpectedModel() {
        GroupViewModel root = vm.rootProperty().get();
        GroupViewModel or = root.addGroup(Junction.OR);
        ConditionViewModel a = or.addCondition("prev_pid");
        a.valueProperty().set("1");
        ConditionViewModel b = or.addCondition("next_comm");
        b.operatorProperty().set(Op.GLOB);
        b.valueProperty().set("bash*");

        Filter model = vm.toFilter();
        // the root AND group holds one row (the OR group), so the tree is the OR itself
        Filter expected = new Or(
                new Comparison("prev_pid", Op.EQ, Value.of(1)),
                new Comparison("next_comm", Op.GLOB, Value.of("bash*")));
        assertEquals(expected, model);
        assertTrue(vm.validProperty().get());
        assertEquals(KERNEL, vm.kernelProperty().get());
        assertEquals(DISPLAY, vm.displayProperty().get());
        assertEquals(BPF, vm.bpfProperty().get());
        assertFalse(vm.bpfExactProperty().get());
        // v2: prev_pid sits at a fixed frame offset, the glob on next_comm is what a capture filter cannot test
        assertTrue(vm.warningsProperty().get().contains("next_comm ~ \"bash*\" dropped"), vm.warningsProperty().get());

        or.negatedProperty().set(true);
        assertEquals("!(" + KERNEL + ")", vm.kernelProperty().get());
        assertEquals("!(prev_pid == 1 || next_comm ~ \"bash*\")", vm.kernelProperty().get());
    }

    @Test
    void operatorsAndValuesFollowTheFieldType() {
        ConditionViewModel c = vm.rootProperty().get().addCondition("prev_comm");
        assertEquals(List.of(Op.EQ, Op.NE, Op.GLOB), c.getOperators());
        c.fieldProperty().set("prev_prio");
        assertTrue(c.getOperators().contains(Op.LT));
        c.valueProperty().set("abc");
        assertFalse(c.isValid());
        assertFalse(vm.validProperty().get());
        assertTrue(c.errorProperty().get().contains("not a number"), c.errorProperty().get());
        c.valueProperty().set("0x10");
        assertTrue(c.isValid());
        c.valueProperty().set("99999999999");
        assertFalse(c.isValid(), "prev_prio is a 32-bit int");
        c.valueProperty().set("-5");
        assertTrue(c.isValid());
        c.fieldProperty().set("common_flags");
        assertFalse(c.isValid(), "common_flags is unsigned");
    }

    @Test
    void removingRowsUpdatesThePreview() {
        GroupViewModel root = vm.rootProperty().get();
        ConditionViewModel a = root.addCondition("next_pid");
        a.valueProperty().set("0");
        ConditionViewModel b = root.addCondition("prev_pid");
        b.operatorProperty().set(Op.GT);
        b.valueProperty().set("100");
        assertEquals("next_pid == 0 && prev_pid > 100", vm.kernelProperty().get());
        root.remove(a);
        assertEquals("prev_pid > 100", vm.kernelProperty().get());
        vm.reset();
        assertEquals("", vm.kernelProperty().get());
    }

    @Test
    void anInvalidValueEmptiesThePreviews() {
        ConditionViewModel c = vm.rootProperty().get().addCondition("prev_pid");
        c.valueProperty().set("1");
        assertEquals("prev_pid == 1", vm.kernelProperty().get());
        assertTrue(vm.validProperty().get());
        c.valueProperty().set("1x");
        assertFalse(vm.validProperty().get());
        assertEquals("", vm.kernelProperty().get(), "no stale kernel filter to copy");
        assertEquals("", vm.displayProperty().get());
        assertEquals("", vm.bpfProperty().get());
        assertEquals("fix the highlighted values", vm.warningsProperty().get());
        c.valueProperty().set("2");
        assertEquals("prev_pid == 2", vm.kernelProperty().get());
        ConditionViewModel comm = vm.rootProperty().get().addCondition("next_comm");
        comm.valueProperty().set("abcdefghijklmnop");
        assertTrue(comm.errorProperty().get().contains("at most 15 characters"), comm.errorProperty().get());
        assertEquals("", vm.kernelProperty().get());
        comm.operatorProperty().set(Op.GLOB);
        assertTrue(comm.isValid(), "a glob may be longer than the field");
        assertEquals("prev_pid == 2 && next_comm ~ \"abcdefghijklmnop\"", vm.kernelProperty().get());
    }

    @Test
    void pointersCharArraysAndCpuCommAreTypedAsCoreTypesThem() {
        vm.eventProperty().set(Tracefs.open(Prerequisites.snapshot()).format("syscalls", "sys_enter_openat"));
        assertTrue(vm.fieldNameList().containsAll(List.of("filename", "CPU", "COMM", "common_pid")), vm.fieldNameList().toString());
        ConditionViewModel f = vm.rootProperty().get().addCondition("filename");
        assertEquals(List.of(Op.EQ, Op.NE, Op.GLOB), f.getOperators(), "a char * is compared as the string it points to");
        f.operatorProperty().set(Op.GLOB);
        f.valueProperty().set("/etc/*");
        assertEquals("filename ~ \"/etc/*\"", vm.kernelProperty().get());
        ConditionViewModel cpu = vm.rootProperty().get().addCondition("CPU");
        assertTrue(cpu.getOperators().contains(Op.BAND));
        cpu.valueProperty().set("1");
        assertEquals("filename ~ \"/etc/*\" && CPU == 1", vm.kernelProperty().get());
        vm.eventProperty().set(Tracefs.open(Prerequisites.snapshot()).format("raw_syscalls", "sys_enter"));
        assertFalse(vm.fieldNameList().contains("args"), "an array is not filterable");
        assertFalse(vm.fieldNameList().contains("common_type"));
    }

    @Test
    void kernelFilterTextLoadsIntoRows() {
        assertTrue(vm.load("prev_pid == 1 && !(next_comm ~ \"kworker*\" || cpu & 0x1)"), vm.loadErrorProperty().get());
        GroupViewModel root = vm.rootProperty().get();
        assertEquals(Junction.AND, root.junctionProperty().get());
        assertEquals(2, root.getChildren().size());
        ConditionViewModel pid = (ConditionViewModel) root.getChildren().get(0);
        assertEquals("prev_pid", pid.fieldProperty().get());
        assertEquals(Op.EQ, pid.operatorProperty().get());
        assertEquals("1", pid.valueProperty().get());
        GroupViewModel not = (GroupViewModel) root.getChildren().get(1);
        assertTrue(not.negatedProperty().get());
        assertEquals(Junction.OR, not.junctionProperty().get());
        ConditionViewModel cpu = (ConditionViewModel) not.getChildren().get(1);
        assertEquals("cpu", cpu.fieldProperty().get(), "the alias stays as written");
        assertEquals("0x1", cpu.valueProperty().get());
        assertTrue(vm.validProperty().get());
        assertEquals("prev_pid == 1 && !(next_comm ~ \"kworker*\" || cpu & 0x1)", vm.kernelProperty().get());
        assertEquals("", vm.loadErrorProperty().get());
        assertEquals(-1, vm.loadErrorPositionProperty().get());

        // the rows can be edited after loading
        pid.valueProperty().set("7");
        assertEquals("prev_pid == 7 && !(next_comm ~ \"kworker*\" || cpu & 0x1)", vm.kernelProperty().get());

        assertTrue(vm.load("  "));
        assertEquals(0, vm.rootProperty().get().getChildren().size());
        assertEquals("", vm.kernelProperty().get());
    }

    @Test
    void kernelFilterTextErrorsAreShownWithTheirPositionAndKeepTheRows() {
        vm.rootProperty().get().addCondition("prev_pid").valueProperty().set("3");
        GroupViewModel before = vm.rootProperty().get();
        assertFalse(vm.load("prev_pid == 1 && prev_pidd == 2"));
        assertEquals("position 17: no field 'prev_pidd' in sched:sched_switch (did you mean 'prev_pid'?)", vm.loadErrorProperty().get());
        assertEquals(17, vm.loadErrorPositionProperty().get());
        assertFalse(vm.load("prev_comm == bash"));
        assertEquals(13, vm.loadErrorPositionProperty().get());
        assertTrue(vm.loadErrorProperty().get().contains("string values need quotes"), vm.loadErrorProperty().get());
        assertFalse(vm.load("(prev_pid == 1"));
        assertEquals(0, vm.loadErrorPositionProperty().get());
        assertFalse(vm.load("prev_prio == 99999999999"));
        assertEquals(13, vm.loadErrorPositionProperty().get());
        assertEquals(before, vm.rootProperty().get(), "a failed load keeps the rows");
        assertEquals("prev_pid == 3", vm.kernelProperty().get());
        assertTrue(vm.load("prev_pid == 4"));
        assertEquals("", vm.loadErrorProperty().get());
        assertEquals(-1, vm.loadErrorPositionProperty().get());
    }

    @Test
    void aNewConditionIsEmptyUntilTheUserFillsIt() {
        ConditionViewModel c = vm.rootProperty().get().addEmptyCondition();
        assertEquals(null, c.fieldProperty().get());
        assertEquals("choose a field", c.errorProperty().get());
        assertFalse(vm.validProperty().get(), "an unfilled condition is no filter");
        assertEquals("", vm.kernelProperty().get());
        c.fieldProperty().set("prev_comm");
        assertEquals("enter a value", c.errorProperty().get(), "no silent prev_comm == \"\"");
        assertFalse(vm.validProperty().get());
        c.valueProperty().set("bash");
        assertEquals("prev_comm == \"bash\"", vm.kernelProperty().get());
        // an empty string that was written is kept
        assertTrue(vm.load("prev_comm == \"\""), vm.loadErrorProperty().get());
        assertTrue(vm.validProperty().get());
        assertEquals("prev_comm == \"\"", vm.kernelProperty().get());
    }
}
