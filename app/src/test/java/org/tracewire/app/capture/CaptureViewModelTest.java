package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.tracewire.protocol.BackendException;
import org.tracewire.app.util.DirectTaskExecutor;

class CaptureViewModelTest {
    static List<EventRow> batch(int from, int n) {
        List<EventRow> rows = new ArrayList<>(n);
        for (int i = from; i < from + n; i++) {
            rows.add(new EventRow(1_700_000_000_000_000_000L + i, i % 2, 100 + i % 7, "task", "sched:sched_switch",
                    "row " + i, Map.of("i", i)));
        }
        return rows;
    }

    @Test
    void rowsArriveOnFlushInABoundedWindow() {
        CaptureViewModel vm = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
        vm.accept(batch(0, 1000));
        assertEquals(0, vm.getRows().size(), "nothing before the pulse");
        vm.flush();
        assertEquals(1000, vm.getRows().size());
        assertEquals(1000, vm.receivedProperty().get());
        for (int i = 1; i < 60; i++) {
            vm.accept(batch(i * 1000, 1000));
            vm.flush();
        }
        assertEquals(CaptureViewModel.WINDOW, vm.getRows().size());
        assertEquals("row 10000", vm.getRows().get(0).text());
        assertEquals("row 59999", vm.getRows().get(CaptureViewModel.WINDOW - 1).text());
        // A burst bigger than the window between two pulses keeps the newest.
        vm.accept(batch(100_000, 120_000));
        vm.flush();
        assertEquals(CaptureViewModel.WINDOW, vm.getRows().size());
        assertEquals("row 219999", vm.getRows().get(CaptureViewModel.WINDOW - 1).text());
        assertEquals(60_000 + 120_000, vm.receivedProperty().get());
    }

    @Test
    void selectionShowsFieldsAndTimeHasNanoseconds() {
        CaptureViewModel vm = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
        EventRow r = batch(5, 1).get(0);
        vm.selectedProperty().set(r);
        assertEquals("i = 5", vm.selectedFieldsProperty().get());
        assertTrue(r.time().endsWith(".000000005"), r.time());
    }

    @Test
    void startWithoutEventsOrBackendExplains() {
        CaptureViewModel vm = new CaptureViewModel(new DirectTaskExecutor(), () -> {
            throw new BackendException("capturing needs root");
        });
        vm.start();
        assertTrue(vm.statusProperty().get().startsWith("choose at least one event"));
        vm.addEvent("sched:sched_switch", "");
        vm.addEvent("sched:sched_switch", "prev_pid == 1");
        assertEquals(List.of(new CaptureEventSpec("sched:sched_switch", "prev_pid == 1")), vm.getEvents());
        vm.start();
        assertEquals("cannot start: capturing needs root", vm.statusProperty().get());
        assertTrue(!vm.runningProperty().get() && !vm.busyProperty().get());
    }
}
