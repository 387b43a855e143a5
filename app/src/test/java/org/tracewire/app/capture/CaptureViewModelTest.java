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
        assertTrue(vm.table().followProperty().get(), "a new view is ready to follow a capture");
        assertEquals("0 events", vm.eventsStatus().get());
        vm.openFile(file, n -> { });
        assertEquals(false, vm.table().followProperty().get(), "a file's table stays at its first event");
        assertEquals("reading… 0 events so far", vm.eventsStatus().get());
        List<String> whileReading = new ArrayList<>();
        vm.addRowSink(batch -> whileReading.add(vm.eventsStatus().get()));
        ex.runAll();
        assertTrue(whileReading.size() >= 2, "batches while reading: " + whileReading);
        assertEquals(String.format("reading… %,d events so far", CaptureViewModel.OPEN_QUEUE), whileReading.get(0));
        assertEquals(String.format("%,d events", recs.size()), vm.eventsStatus().get());
        // a live capture follows again
        vm.addEvent("sched:sched_switch", "");
        vm.start();
        assertTrue(vm.table().followProperty().get());
    }

    @Test
    void aPcapngWithAStoreIsReadForItsFirstScreenOnly(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        List<EventRecord> recs = new ArrayList<>();
        while (recs.size() <= 2 * CaptureViewModel.FIRST_SCREEN) {
            recs.addAll(FixtureRecords.load());
        }
        java.nio.file.Path file = FixturePcapng.write(dir.resolve("big.pcapng"), recs);
        QueuedTaskExecutor ex = new QueuedTaskExecutor();
        CaptureViewModel vm = new CaptureViewModel(ex, () -> null);
        vm.table().setRecords(TestRows.records());
        vm.setStore(new org.tracewire.store.StoreCache(dir.resolve("cache"), 1L << 30), Runnable::run);
        long[] rows = {0};
        vm.addRowSink(batch -> rows[0] += batch.size());
        long[] opened = {0};
        vm.openFile(file, n -> opened[0] = n);
        ex.runAll();
        assertEquals(-1, opened[0], "only the first screen was read");
        assertEquals(CaptureViewModel.FIRST_SCREEN, rows[0], "the views got the first screen's rows, not the file's");
        StoreTable t = vm.storeTableProperty().get();
        assertTrue(t != null, vm.storeStatusProperty().get());
        assertEquals(recs.size(), t.total(), "the store holds every event");
        assertEquals(String.format("%,d events", recs.size()), vm.eventsStatus().get(), "the status counts the store's");
        assertEquals(recs.size(), vm.eventCountProperty().get(), "the counters count every event, not the first screen");
        assertEquals(recs.size(), vm.receivedProperty().get(),
                "read from the file: every event (the store's build), the first screen not counted twice");
        assertTrue(vm.statusProperty().get().startsWith(String.format("opened big.pcapng: all %,d events", recs.size())),
                vm.statusProperty().get());
        t.close();
    }

    /** The store's build waits until the first rows are read: the two do not share the cores. */
    @Test
    void theStoresBuildStartsWithTheFirstRows(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        List<EventRecord> recs = new ArrayList<>();
        while (recs.size() <= CaptureViewModel.FIRST_SCREEN) {
            recs.addAll(FixtureRecords.load());
        }
        java.nio.file.Path file = FixturePcapng.write(dir.resolve("big.pcapng"), recs);
        QueuedTaskExecutor ex = new QueuedTaskExecutor();
        CaptureViewModel vm = new CaptureViewModel(ex, () -> null);
        vm.table().setRecords(TestRows.records());
        List<Runnable> storeTasks = new ArrayList<>();
        vm.setStore(new org.tracewire.store.StoreCache(dir.resolve("cache"), 1L << 30), storeTasks::add);
        long[] rows = {0};
        vm.addRowSink(batch -> rows[0] += batch.size());
        vm.openFile(file, n -> { });
        assertEquals(0, storeTasks.size(), "no build before the first rows are read");
        ex.runAll();
        assertEquals(CaptureViewModel.FIRST_SCREEN, rows[0], "the first screen was read");
        assertEquals(1, storeTasks.size(), "the build queued once, with the first rows");
        storeTasks.remove(0).run();
        ex.runAll();
        StoreTable t = vm.storeTableProperty().get();
        assertTrue(t != null, vm.storeStatusProperty().get());
        assertEquals(recs.size(), t.total(), "the store holds every event");
        t.close();
    }

    /**
     * A live capture's path without the backend: a pcapng written in two steps while it is indexed
     * ({@link CaptureViewModel#watch}) is the table's store from its first commit, while it still
     * grows, and ends in the store whole: the table's rows are every event of the file, in frame
     * order, each at its frame; no window of rows is filled.
     */
    @Test
    void aGrowingPcapngIsTheTablesStoreAsItGrows(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        List<EventRecord> recs = new ArrayList<>();
        while (recs.size() <= 3 * FileRows.BATCH) {
            recs.addAll(FixtureRecords.load());
        }
        byte[] whole = java.nio.file.Files.readAllBytes(FixturePcapng.write(dir.resolve("whole.pcapng"), recs));
        java.nio.file.Path file = dir.resolve("growing.pcapng");
        java.nio.file.Files.write(file, java.util.Arrays.copyOf(whole, whole.length / 3));
        java.util.concurrent.atomic.AtomicBoolean writing = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.CountDownLatch firstTable = new java.util.concurrent.CountDownLatch(1);
        Thread writer = new Thread(() -> {
            try {
                firstTable.await(60, java.util.concurrent.TimeUnit.SECONDS); // the rest once the table shows the first part
                java.nio.file.Files.write(file, java.util.Arrays.copyOfRange(whole, whole.length / 3, whole.length),
                        java.nio.file.StandardOpenOption.APPEND);
                Thread.sleep(300);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                writing.set(false);
            }
        });
        java.util.concurrent.ExecutorService queries = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            CaptureViewModel vm = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
            vm.setStore(new org.tracewire.store.StoreCache(dir.resolve("cache"), 1L << 30), queries);
            boolean[] growingWhenSet = new boolean[1];
            long[] firstCommit = {-1};
            vm.storeTableProperty().addListener((o, a, t) -> {
                if (t != null && firstCommit[0] < 0) {
                    growingWhenSet[0] = t.growingProperty().get();
                    firstCommit[0] = t.committedProperty().get();
                    firstTable.countDown();
                }
            });
            writer.start();
            vm.watch(file, writing::get);
            assertTrue(vm.followingProperty().get(), "indexing the file as it grows");
            writer.join();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while ((vm.storeTableProperty().get() == null || vm.followingProperty().get()) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            StoreTable t = vm.storeTableProperty().get();
            assertTrue(t != null, vm.storeStatusProperty().get());
            assertTrue(growingWhenSet[0], "the table went over the store before the capture ended");
            assertTrue(firstCommit[0] > 0 && firstCommit[0] < recs.size(),
                    "the first table held the first part of the file: " + firstCommit[0]);
            assertTrue(!t.growingProperty().get());
            assertEquals(recs.size(), t.total(), "the store holds every event");
            assertEquals(recs.size(), vm.receivedProperty().get(), "every event read from the file");
            assertEquals(0, vm.getRows().size(), "no window of rows");
            assertTrue(vm.statusProperty().get().startsWith(String.format("captured into growing.pcapng: %,d events",
                    recs.size())), vm.statusProperty().get());
            List<Long> frames = new ArrayList<>();
            try (org.tracewire.input.PcapngInput in = org.tracewire.input.PcapngInput.open(file)) {
                for (var it = in.events(); it.hasNext(); ) {
                    frames.add(it.next().frame());
                }
            }
            java.util.concurrent.CompletableFuture<Integer> last = new java.util.concurrent.CompletableFuture<>();
            // the view is rebuilt over every event once built: ask on the query thread, after it
            queries.submit(() -> t.rowOf(frames.get(frames.size() - 1), last::complete)).get();
            assertEquals(recs.size() - 1, (int) last.get(60, java.util.concurrent.TimeUnit.SECONDS),
                    "the file's last event is the table's last row");
            assertEquals(recs.size(), t.rowsProperty().get().size());
            t.close();
        } finally {
            queries.shutdownNow();
        }
    }
}
