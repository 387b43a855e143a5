package org.tracewire.app.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

public class FilterBuilderViewModelTest {
    /** The three forms of {@code prev_pid == 1 || next_comm ~ "bash*"} on sched:sched_switch (snapshot id 372). */
    public static final String KERNEL = "prev_pid == 1 || next_comm ~ \"bash*\"";
    public static final String DISPLAY = "tracewire.event == \"sched:sched_switch\" && (tracewire.sched.sched_switch.prev_pid == 1"
            + " || tracewire.sched.sched_switch.next_comm matches \"(?-i)(?s)^bash.*$\")";
    public static final String BPF = "ether proto 0x88b5 and ether[22:2] = 372";

    private FilterBuilderViewModel vm;

    @BeforeEach
    void setUp() {
        vm = new FilterBuilderViewModel(new TracewireFilterCompiler(() -> java.nio.ByteOrder.LITTLE_ENDIAN));
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
        GroupViewModel or = root.addGroup(FilterNode.Combinator.OR);
        ConditionViewModel a = or.addCondition("prev_pid");
        a.valueProperty().set("1");
        ConditionViewModel b = or.addCondition("next_comm");
        b.operatorProperty().set(Operator.GLOB);
        b.valueProperty().set("bash*");

        FilterNode.Group model = vm.toModel();
        FilterNode.Group expected = new FilterNode.Group(FilterNode.Combinator.AND, false, List.of(
                new FilterNode.Group(FilterNode.Combinator.OR, false, List.of(
                        new FilterNode.Condition("prev_pid", Operator.EQ, "1", ValueType.SIGNED),
                        new FilterNode.Condition("next_comm", Operator.GLOB, "bash*", ValueType.STRING)))));
        assertEquals(expected, model);
        assertTrue(vm.validProperty().get());
        assertEquals(KERNEL, vm.kernelProperty().get());
        assertEquals(DISPLAY, vm.displayProperty().get());
        assertEquals(BPF, vm.bpfProperty().get());
        assertFalse(vm.bpfExactProperty().get());
        assertTrue(vm.warningsProperty().get().contains("prev_pid == 1 dropped"), vm.warningsProperty().get());

        or.negatedProperty().set(true);
        assertEquals("!(" + KERNEL + ")", vm.kernelProperty().get());
        assertEquals("!(prev_pid == 1 || next_comm ~ \"bash*\")", vm.kernelProperty().get());
    }

    @Test
    void operatorsAndValuesFollowTheFieldType() {
        ConditionViewModel c = vm.rootProperty().get().addCondition("prev_comm");
        assertEquals(List.of(Operator.EQ, Operator.NE, Operator.GLOB), c.getOperators());
        c.fieldProperty().set("prev_prio");
        assertTrue(c.getOperators().contains(Operator.LT));
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
        b.operatorProperty().set(Operator.GT);
        b.valueProperty().set("100");
        assertEquals("next_pid == 0 && prev_pid > 100", vm.kernelProperty().get());
        root.remove(a);
        assertEquals("prev_pid > 100", vm.kernelProperty().get());
        vm.reset();
        assertEquals("", vm.kernelProperty().get());
    }
}
