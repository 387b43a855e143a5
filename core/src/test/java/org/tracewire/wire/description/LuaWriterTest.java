package org.tracewire.wire.description;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The one escaping function. */
class LuaWriterTest {
    @Test
    void escapesEverythingOutsidePrintableAscii() {
        assertEquals("\"plain text_1\"", LuaWriter.string("plain text_1"));
        assertEquals("\"a\\\"b\\\\c\"", LuaWriter.string("a\"b\\c"));
        assertEquals("\"\\010\\013\\000]]\"", LuaWriter.string("\n\r\0]]"));
        assertEquals("\"\\0001\"", LuaWriter.string("\0" + "1"), "three digits: a following digit cannot join");
        assertEquals("\"\\195\\169\"", LuaWriter.string("\u00e9"), "UTF-8 bytes");
        assertEquals("nil", LuaWriter.string(null));
    }

    @Test
    void fieldNamesFollowWiresharksRules() {
        FieldNames n = new FieldNames(Set.of());
        assertEquals("tracewire.sched.sched_switch.prev_pid", n.unique("tracewire.sched.sched_switch", "prev_pid"));
        assertEquals("tracewire.sched.sched_switch.prev_pid_2", n.unique("tracewire.sched.sched_switch", "PREV.PID"));
        assertEquals("tracewire.a_b.c.x", FieldNames.eventPrefix("a-b", "C") + ".x");
        assertEquals("_", FieldNames.part(""));
    }
}
