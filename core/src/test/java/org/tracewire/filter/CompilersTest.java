package org.tracewire.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FieldKind;

/** The three compilers on hand-written filters, with the expected text. */
class CompilersTest {
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private static CompiledFilter c(String event, String text) {
        return CompiledFilter.compile(text, Events.get(event), LE);
    }

    @Test
    void schedSwitchNumbersAndStrings() {
        EventFormat f = Events.sched_switch();
        CompiledFilter cf = c("sched:sched_switch", "prev_pid == 1 && (next_comm ~ \"kworker/*\" || prev_state & 2)");
        assertEquals("prev_pid == 1 && (next_comm ~ \"kworker/*\" || prev_state & 0x2)", cf.kernel());
        assertEquals("tracewire.event == \"sched:sched_switch\" && (tracewire.sched.sched_switch.prev_pid == 1 && "
                + "(tracewire.sched.sched_switch.next_comm matches \"(?-i)(?s)^kworker\\\\/.*$\" || "
                + "tracewire.sched.sched_switch.prev_state & 0x2))", cf.display());
        // v2: prev_pid sits at payload offset 24 = frame offset 54 (little-endian); the string condition widens
        assertEquals(P(f) + " and ether[54:4] = 0x1000000))", cf.bpf());
        assertFalse(cf.bpfExact());
        assertEquals(1, cf.warnings().size(), cf.warnings().toString());
        assertTrue(cf.warnings().get(0).startsWith("capture filter: next_comm ~ \"kworker/*\" dropped (widens)"), cf.warnings().toString());
    }

    /**
     * The part every v2 capture filter of a little-endian event starts with: Ethernet, version 2,
     * context frames always, else EVENT|LE and the event id.
     */
    private static String P(EventFormat f) {
        return "ether proto 0x88b5 and ether[14] = 2 and (ether[15] & 0xf != 0 or (ether[15] & 0x1f = 0x10 and ether[30:2] = 0x"
                + Integer.toHexString(Short.reverseBytes((short) f.id()) & 0xffff);
    }

    @Test
    void headerFieldsAreExactInEveryForm() {
        CompiledFilter cf = c("sched:sched_switch", "common_pid == 42 || CPU < 2 && !(common_flags & 0x8)");
        assertEquals("common_pid == 42 || CPU < 2 && !(common_flags & 0x8)", cf.kernel());
        assertEquals("tracewire.event == \"sched:sched_switch\" && (tracewire.pid == 42 || "
                + "(tracewire.cpu < 2 && !(tracewire.common_flags & 0x8)))", cf.display());
        assertEquals(P(Events.sched_switch())
                + " and (ether[34:4] = 0x2a000000 or (ether[16:2] < 0x2 and not (ether[32] & 0x8 != 0)))))", cf.bpf());
        assertTrue(cf.bpfExact());
        assertEquals(List.of(), cf.warnings());
    }

    @Test
    void fieldsAtTheirFormatOffsetsLittleEndian() {
        EventFormat f = Events.get("kmem:kmalloc");
        for (var field : f.fields()) {
            if (field.kind() == FieldKind.INTEGER || field.kind() == FieldKind.POINTER) {
                assertEquals(30 + field.offset(), BpfFilterCompiler.fixedValueOffsets(f).get(field.name()), field.name());
            }
        }
        CompiledFilter cf = c("kmem:kmalloc", "bytes_req > 4096 && node == -1");
        int req = BpfFilterCompiler.fixedValueOffsets(f).get("bytes_req");
        int node = BpfFilterCompiler.fixedValueOffsets(f).get("node");
        assertEquals(P(f) + " and ("
                + "(" + word(req + 4) + " > 0x0 or (" + word(req + 4) + " = 0x0 and " + word(req) + " > 0x1000))"
                + " and ether[" + node + ":4] = 0xffffffff)))", cf.bpf());
        assertTrue(cf.bpfExact());
    }

    @Test
    void everyFixedSizeNumberIsExact() {
        CompiledFilter cf = c("sched:sched_switch", "prev_pid > 100 && next_prio < 120");
        assertTrue(cf.bpfExact(), cf.warnings().toString());
        assertEquals(List.of(), cf.warnings());
    }

    private static String word(int off) {
        return "(ether[" + (off + 3) + "] << 24 | ether[" + (off + 2) + "] << 16 | ether[" + (off + 1) + "] << 8 | ether[" + off + "])";
    }

    @Test
    void signedOrderFlipsTheSignBit() {
        CompiledFilter cf = c("sched:sched_switch", "common_pid < -1");
        assertTrue(cf.bpf().endsWith(" and (" + word(34) + " ^ 0x80000000) < 0x7fffffff))"), cf.bpf());
    }

    @Test
    void orOfExpressibleAndInexpressibleWidensToTheEventAlone() {
        CompiledFilter cf = c("sched:sched_switch", "common_pid == 1 || prev_comm == \"bash\"");
        assertEquals(P(Events.sched_switch()) + "))", cf.bpf());
        assertFalse(cf.bpfExact());
        CompiledFilter neg = c("sched:sched_switch", "!(common_pid == 1 && prev_comm == \"bash\")");
        assertEquals(P(Events.sched_switch()) + "))", neg.bpf());
        CompiledFilter and = c("sched:sched_switch", "!(common_pid == 1 || prev_comm == \"bash\")");
        assertEquals(P(Events.sched_switch()) + " and not (ether[34:4] = 0x1000000)))", and.bpf());
    }

    @Test
    void cpuIsAU16OnTheWire() {
        CompiledFilter cf = c("sched:sched_switch", "CPU == -1 || CPU < 70000 && CPU & 0x10001");
        assertEquals("tracewire.event == \"sched:sched_switch\" && tracewire.cpu & 0x1", cf.display());
        assertEquals(P(Events.sched_switch()) + " and ether[16:2] & 0x1 != 0))", cf.bpf());
        assertTrue(cf.bpfExact());
        CompiledFilter never = c("sched:sched_switch", "CPU > 65536");
        assertEquals("tracewire.event == \"sched:sched_switch\" && !frame", never.display());
        assertEquals("ether proto 0x88b5 and ether[14] = 2 and (ether[15] & 0xf != 0)", never.bpf(),
                "no event frame can match: only the context frames pass");
    }

    @Test
    void commIsNotOnTheWire() {
        CompiledFilter cf = c("sched:sched_switch", "COMM ~ \"bash\" && common_pid != 0");
        assertEquals("tracewire.event == \"sched:sched_switch\" && tracewire.pid != 0", cf.display());
        assertTrue(cf.warnings().stream().anyMatch(w -> w.startsWith("display filter: COMM ~ \"bash\" dropped (widens)")), cf.warnings().toString());
        assertEquals("COMM ~ \"bash\" && common_pid != 0", cf.kernel());
    }

    @Test
    void eventCommFieldIsTheEventsOwn() {
        CompiledFilter cf = c("sched:sched_wakeup", "comm == \"x\"");
        assertEquals("tracewire.event == \"sched:sched_wakeup\" && tracewire.sched.sched_wakeup.comm == \"x\"", cf.display());
    }

    @Test
    void quotesAndBackslashesStayOneValue() {
        CompiledFilter cf = c("irq:irq_handler_entry", "name == 'a\"b\\\\c' || name ~ \"it's\\\\*\"");
        assertEquals("name == 'a\"b\\\\c' || name ~ \"it's\\\\*\"", cf.kernel());
        assertEquals("tracewire.event == \"irq:irq_handler_entry\" && (tracewire.irq.irq_handler_entry.name == \"a\\\"b\\\\\\\\c\" || "
                + "tracewire.irq.irq_handler_entry.name matches \"(?-i)(?s)^it\\\\'s\\\\\\\\.*$\")", cf.display());
    }

    @Test
    void kernelFormWorksAroundTheKernelsMatchers() {
        CompiledFilter cf = c("sched:sched_switch", "prev_comm ~ \"*bash\" || next_comm ~ \"1*\"");
        assertEquals("prev_comm ~ \"*\\bash\" || next_comm ~ \"\\1*\"", cf.kernel());
    }

    @Test
    void displayHandlesTheMostNegativeNumber() {
        CompiledFilter cf = c("sched:sched_switch", "prev_pid == -2147483648 || prev_prio & -2147483648");
        assertEquals("tracewire.event == \"sched:sched_switch\" && (tracewire.sched.sched_switch.prev_pid < -2147483647 || "
                + "tracewire.sched.sched_switch.prev_prio < 0)", cf.display());
    }

    @Test
    void stringPointersWidenOutsideTheKernel() {
        CompiledFilter cf = c("syscalls:sys_enter_openat", "filename ~ \"*.so\" && flags & 0x40");
        assertEquals("filename ~ \"*\\.so\" && flags & 0x40", cf.kernel());
        assertEquals("tracewire.event == \"syscalls:sys_enter_openat\" && tracewire.syscalls.sys_enter_openat.flags & 0x40", cf.display());
        assertTrue(cf.warnings().get(0).contains("char *"), cf.warnings().toString());
    }

    @Test
    void invalidFiltersAreRefusedWithTheirPosition() {
        FilterSyntaxException e = assertThrows(FilterSyntaxException.class,
                () -> c("sched:sched_switch", "prev_pid == 1 && prev_pidd == 2"));
        assertEquals(17, e.position());
        assertEquals("no field 'prev_pidd' in sched:sched_switch (did you mean 'prev_pid'?)", e.detail());
    }
}
