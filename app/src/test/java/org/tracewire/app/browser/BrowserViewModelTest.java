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
}
