package org.tracewire.tracefs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;

/** The one event selector, on the checked-in snapshot of this kernel's tracefs. */
class EventSelectorTest {
    private static Tracefs snapshot() {
        return Tracefs.open(Path.of(System.getProperty("tracewire.snapshot")));
    }

    @Test
    void parsesOneEventAndWholeSystem() {
        assertEquals(new EventSelector("sched", "sched_switch"), EventSelector.parse("sched:sched_switch"));
        assertEquals("sched:sched_switch", EventSelector.parseEvent("sched:sched_switch").toString());
        EventSelector all = EventSelector.parse("sched:*");
        assertTrue(all.isWholeSystem());
        assertThrows(IllegalArgumentException.class, () -> EventSelector.parseEvent("sched:*"));
    }

    @Test
    void refusesMalformedAndCraftedNames() {
        for (String bad : new String[] {":x", "x:", "a:b:c", "../x:y", "..:sched", "sched:..", "a/b:c",
            "a:b/c", "a b:c", "a:b\0", "", "..", "sched:sched switch"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EventSelector.parse(bad), bad);
            assertTrue(e.getMessage().contains("is not SYSTEM:EVENT, SYSTEM or EVENT"), e.getMessage());
        }
        for (String notOne : new String[] {"sched_switch", "sched:*", "*:x", "a:x*", "sched:sched_[sw]*"}) {
            assertThrows(IllegalArgumentException.class, () -> EventSelector.parseEvent(notOne), notOne);
        }
        assertThrows(IllegalArgumentException.class, () -> EventSelector.parse(null));
    }

    @Test
    void resolvesAgainstTracefs() {
        Tracefs t = snapshot();
        List<String> sched = EventSelector.parse("sched:*").resolve(t);
        assertTrue(sched.contains("sched:sched_switch") && sched.contains("sched:sched_wakeup"), sched.toString());
        assertEquals(List.of("irq:irq_handler_entry"), EventSelector.parse("irq:irq_handler_entry").resolve(t));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EventSelector.parse("sched:no_such_event").resolve(t));
        assertTrue(e.getMessage().startsWith("unknown event 'sched:no_such_event' in "), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> EventSelector.parse("nosuch:*").resolve(t));
        assertTrue(e.getMessage().startsWith("unknown system 'nosuch'"), e.getMessage());
    }

    @Test
    void resolveAllKeepsOrderWithoutDuplicatesAndEmptyMeansAll() {
        Tracefs t = snapshot();
        List<EventSelector> s = EventSelector.resolveAll(t, List.of("irq:irq_handler_entry", "sched:*", "sched:sched_switch"));
        assertEquals("irq:irq_handler_entry", s.get(0).toString());
        assertEquals(1 + t.events("sched").size(), s.size());
        assertEquals(t.allEvents().size(), EventSelector.resolveAll(t, List.of()).size());
    }

    @Test
    void selectsFromCatalog() {
        var catalog = snapshot().formats();
        List<EventFormat> f = EventSelector.select(catalog, List.of("sched:sched_switch", "sched:*"));
        assertEquals("sched:sched_switch", f.get(0).fullName());
        assertTrue(f.stream().allMatch(x -> x.system().equals("sched")));
        assertFalse(f.stream().map(EventFormat::fullName).distinct().count() < f.size());
        assertEquals(catalog.formats().size(), EventSelector.select(catalog, List.of()).size());
        assertThrows(IllegalArgumentException.class, () -> EventSelector.select(catalog, List.of("nosuch:*")));
    }

    @Test
    void traceCmdSyntaxBareWordsAndGlobs() {
        Tracefs t = snapshot();
        assertEquals(EventSelector.parse("sched:*").resolve(t), EventSelector.parse("sched").resolve(t),
                "a bare system name selects the system");
        assertEquals(List.of("sched:sched_switch"), EventSelector.parse("sched_switch").resolve(t),
                "a bare event name selects it in any system");
        List<String> wake = EventSelector.parse("sched:*wake*").resolve(t);
        assertTrue(wake.contains("sched:sched_wakeup") && wake.contains("sched:sched_wakeup_new")
                && wake.stream().allMatch(e -> e.startsWith("sched:") && e.contains("wake")), wake.toString());
        List<String> open = EventSelector.parse("sys_enter_open*").resolve(t);
        assertTrue(open.contains("syscalls:sys_enter_openat") && open.stream().allMatch(e -> e.startsWith("syscalls:")),
                open.toString());
        assertEquals(List.of("sched:sched_switch"), EventSelector.parse("sched*:sched_s?itch").resolve(t));
        assertEquals(List.of("sched:sched_switch", "sched:sched_wakeup"),
                EventSelector.parse("sched:sched_[sw][wa][ik]*[hp]").resolve(t));
        List<String> all = t.allEvents();
        assertEquals(all.stream().filter(e -> !e.startsWith("ftrace:")).toList(), EventSelector.parse("*").resolve(t),
                "* alone selects every event but the tracers' record types");
        assertEquals(t.events("ftrace").size(), EventSelector.parse("ftrace").resolve(t).size(), "unless named");
    }

    @Test
    void unknownNamesGetADidYouMean() {
        Tracefs t = snapshot();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EventSelector.parse("sched:sched_swich").resolve(t));
        assertTrue(e.getMessage().contains("did you mean sched:sched_switch"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> EventSelector.parse("shed").resolve(t));
        assertTrue(e.getMessage().startsWith("unknown event 'shed' in ") && e.getMessage().contains("sched"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> EventSelector.parse("schde:*").resolve(t));
        assertTrue(e.getMessage().contains("unknown system 'schde'") && e.getMessage().contains("sched:*"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> EventSelector.parse("zzzzzzzzzzzz").resolve(t));
        assertFalse(e.getMessage().contains("did you mean"), e.getMessage());
    }
}
