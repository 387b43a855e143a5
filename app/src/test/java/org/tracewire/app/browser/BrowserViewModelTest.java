package org.tracewire.app.browser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

class BrowserViewModelTest {
    private BrowserViewModel vm;
    private Tracefs snapshot;

    @BeforeEach
    void load() {
        snapshot = Tracefs.open(Prerequisites.snapshot());
        vm = new BrowserViewModel(new DirectTaskExecutor());
        vm.load(snapshot);
    }

    @Test
    void loadsAllEventsOfTheSnapshotWithItsLabel() {
        assertEquals(snapshot.allEvents().size(), vm.totalCountProperty().get());
        assertTrue(vm.totalCountProperty().get() > 2000);
        assertEquals(vm.totalCountProperty().get(), vm.matchCountProperty().get());
        assertEquals("snapshot of Linux 6.18, read only", vm.sourceLabelProperty().get());
        assertTrue(vm.tracersProperty().get().contains("nop"), vm.tracersProperty().get());
        assertTrue(vm.clocksProperty().get().contains("local"), vm.clocksProperty().get());
        assertEquals("7 KB per CPU (1408 KB once tracing is used)", vm.bufferSizeProperty().get());
        assertEquals("1410 KB per CPU", BrowserViewModel.bufferText("1410\n"));
    }

    @Test
    void typingNarrowsTheTree() {
        vm.filterTextProperty().set("sched_sw");
        List<SystemEntry> systems = vm.getSystems();
        assertEquals(1, systems.size(), systems.toString());
        assertEquals("sched", systems.get(0).name());
        assertTrue(systems.get(0).events().contains("sched_switch"), systems.toString());
        long expected = snapshot.allEvents().stream().filter(e -> e.contains("sched_sw")).count();
        assertEquals(expected, vm.matchCountProperty().get());
        assertTrue(expected <= 3, "sched_sw matches " + systems);

        vm.filterTextProperty().set("sched:sched_switch");
        assertEquals(List.of(new SystemEntry("sched", List.of("sched_switch"))), vm.getSystems());
        assertEquals(1, vm.matchCountProperty().get());

        vm.filterTextProperty().set("SCHED switch");
        assertTrue(vm.getSystems().stream().allMatch(s -> s.events().stream().allMatch(e -> (s.name() + ":" + e).contains("switch"))));

        vm.filterTextProperty().set("no-such-event-anywhere");
        assertEquals(0, vm.matchCountProperty().get());
        vm.filterTextProperty().set("");
        assertEquals(vm.totalCountProperty().get(), vm.matchCountProperty().get());
    }

    @Test
    void selectionShowsDetails() {
        vm.selectedEventProperty().set("sched:sched_switch");
        EventDetails d = vm.detailsProperty().get();
        assertNotNull(d);
        assertEquals("sched:sched_switch", d.fullName());
        assertEquals(snapshot.id("sched", "sched_switch"), d.id());
        assertTrue(d.fields().stream().anyMatch(f -> f.name().equals("prev_comm[16]") && f.kind().equals("char_array")), d.fields().toString());
        assertTrue(d.fields().stream().anyMatch(f -> f.name().equals("common_pid") && f.common()));
        assertTrue(d.printFmtRaw().contains("prev_comm=%s"));
        assertTrue(d.printFmtPretty().contains(",\n"));
        assertEquals("n/a (snapshot)", d.enabled());
        vm.selectedEventProperty().set(null);
        assertEquals(null, vm.detailsProperty().get());
    }

    private static java.util.Set<String> shown(List<SystemEntry> systems) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        systems.forEach(s -> s.events().forEach(e -> out.add(s.name() + ":" + e)));
        return out;
    }

    @Test
    void globMatchesSystemColonEventOrTheEventName() {
        vm.filterTextProperty().set("sched:*wake*");
        java.util.Set<String> expected = new java.util.TreeSet<>();
        for (String e : snapshot.allEvents()) {
            if (e.matches("sched:.*wake.*")) {
                expected.add(e);
            }
        }
        assertTrue(expected.contains("sched:sched_wakeup") && expected.size() >= 3, expected.toString());
        assertEquals(expected, shown(vm.getSystems()));
        assertEquals(expected.size(), vm.matchCountProperty().get());

        vm.filterTextProperty().set("irq_handler_*");    // the event name alone
        assertEquals(java.util.Set.of("irq:irq_handler_entry", "irq:irq_handler_exit"), shown(vm.getSystems()));
        vm.filterTextProperty().set("sched:sched_switc?");
        assertEquals(java.util.Set.of("sched:sched_switch"), shown(vm.getSystems()));
        vm.filterTextProperty().set("sched:*");
        assertEquals(snapshot.events("sched").size(), vm.matchCountProperty().get());
    }

    @Test
    void aFieldNameFindsTheEventsThatHaveIt() {
        assertTrue(vm.fieldsIndexedProperty().get());
        // independently: the format files' text, "field:... prev_pid;"
        java.util.regex.Pattern has = java.util.regex.Pattern.compile("field:[^;]*[ *]prev_pid(\\[\\d*])?;");
        java.util.Set<String> expected = new java.util.TreeSet<>();
        for (String e : snapshot.allEvents()) {
            String[] se = e.split(":", 2);
            String rel = "events/" + se[0] + "/" + se[1] + "/format";
            if (snapshot.exists(rel) && has.matcher(snapshot.read(rel)).find()) {
                expected.add(e);
            }
        }
        assertTrue(expected.contains("sched:sched_switch"), expected.toString());
        vm.filterTextProperty().set("prev_pid");
        assertEquals(expected, shown(vm.getSystems()));
        assertEquals(List.of("prev_pid"), vm.matchedFields("sched:sched_switch"), "the tree says which field matched");

        // a field glob, and a name word together with a field word
        vm.filterTextProperty().set("sched next_*");
        assertTrue(shown(vm.getSystems()).contains("sched:sched_switch"), shown(vm.getSystems()).toString());
        assertTrue(shown(vm.getSystems()).stream().allMatch(e -> e.contains("sched")));
        vm.filterTextProperty().set("prev_pid no-such-field");
        assertEquals(0, vm.matchCountProperty().get());
        // a plain word is a whole field name, not a part of one
        vm.filterTextProperty().set("ev_pi");
        assertTrue(shown(vm.getSystems()).stream().allMatch(e -> e.contains("ev_pi")), shown(vm.getSystems()).toString());
    }

    @Test
    void severalEventsAndWholeSystemsAreAdded() {
        assertEquals(List.of(), vm.eventsToAdd());
        vm.selectedEventProperty().set("sched:sched_switch");
        assertEquals(List.of("sched:sched_switch"), vm.eventsToAdd(), "no multi-selection: the selected event");

        vm.getSelection().setAll("sched:sched_switch", "irq", "sched:sched_wakeup");
        java.util.List<String> expected = new java.util.ArrayList<>(List.of("sched:sched_switch"));
        snapshot.events("irq").stream().sorted().forEach(e -> expected.add("irq:" + e));
        expected.add("sched:sched_wakeup");
        assertEquals(expected, vm.eventsToAdd());

        // a system adds what the search shows of it
        vm.filterTextProperty().set("irq:*entry");
        vm.getSelection().setAll("irq", "sched:sched_switch");
        java.util.Set<String> entries = new java.util.TreeSet<>();
        snapshot.events("irq").stream().filter(e -> e.endsWith("entry")).forEach(e -> entries.add("irq:" + e));
        java.util.List<String> want = new java.util.ArrayList<>(entries);
        want.add("sched:sched_switch");
        assertTrue(entries.size() >= 2, entries.toString());
        assertEquals(want, vm.eventsToAdd());
    }
}
