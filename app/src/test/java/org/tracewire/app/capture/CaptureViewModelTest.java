package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.tracewire.protocol.BackendException;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.app.util.QueuedTaskExecutor;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.tracefs.EventSelection;

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
        assertEquals(List.of(EventSelection.parse("sched:sched_switch", "prev_pid == 1")), vm.getEvents());
        vm.start();
        assertEquals("cannot start: capturing needs root", vm.statusProperty().get());
        assertTrue(!vm.runningProperty().get() && !vm.busyProperty().get());
    }

    @Test
    void anOpenedFileDoesNotFollowAndTheStatusCountsWhileReading(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        // more events than the reader may queue, so the views get batches while the file is read
        List<EventRecord> recs = new ArrayList<>();
        while (recs.size() <= 2 * CaptureViewModel.OPEN_QUEUE) {
            recs.addAll(FixtureRecords.load());
        }
        java.nio.file.Path file = FixturePcapng.write(dir.resolve("big.pcapng"), recs);
        QueuedTaskExecutor ex = new QueuedTaskExecutor();
        CaptureViewModel vm = new CaptureViewModel(ex, () -> null);
        vm.table().setRecords(TestRows.records());
        assertTrue(vm.table().followProperty().get() && vm.table().liveProperty().get(), "a new view is ready to follow a capture");
        assertEquals("0 events", vm.eventsStatus().get());
        vm.openFile(file, n -> { });
        assertEquals(false, vm.table().followProperty().get(), "a file's table stays at its first event");
        assertEquals(false, vm.table().liveProperty().get());
        assertEquals("reading… 0 events so far", vm.eventsStatus().get());
        List<String> whileReading = new ArrayList<>();
        vm.addRowSink(batch -> whileReading.add(vm.eventsStatus().get()));
        ex.runAll();
        assertTrue(whileReading.size() >= 2, "batches while reading: " + whileReading);
        assertEquals(String.format("reading… %,d events so far", CaptureViewModel.OPEN_QUEUE), whileReading.get(0));
        assertEquals(String.format("%,d events", recs.size()), vm.eventsStatus().get());
        assertEquals(0, vm.table().newWhilePausedProperty().get(), "nothing is 'new while paused' in a file");
        // a live capture follows again
        vm.addEvent("sched:sched_switch", "");
        vm.start();
        assertTrue(vm.table().followProperty().get() && vm.table().liveProperty().get());
    }
}
