package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.app.util.QueuedTaskExecutor;
import org.tracewire.record.EventRecord;
import org.tracewire.store.StoreBuilder;
import org.tracewire.store.StoreCache;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * An opened pcapng's store built by a child JVM ({@link CaptureViewModel#buildStoresInChild},
 * docs/decisions/0027): the table then holds every event of the file and the status heard the
 * child's progress; a child prepared at the app's start builds the file then opened, one for
 * another file is stopped; opening another file stops the child mid-build (it ends, its half-built
 * store is gone) and the new file opens; a cut file and a refused one say in the view what an
 * in-process build says.
 */
class StoreBuildChildTest {
    @TempDir
    Path dir;

    private static List<EventRecord> records(int min) {
        List<EventRecord> recs = new ArrayList<>();
        while (recs.size() < min) {
            recs.addAll(FixtureRecords.load());
        }
        return recs;
    }

    /** The children of this JVM that build a store. */
    private static Stream<ProcessHandle> builders() {
        return ProcessHandle.current().children()
                .filter(p -> p.info().commandLine().orElse("").contains("org.tracewire.store.StoreBuildProcess"));
    }

    /** A view model whose opened files' stores a child builds into {@code cache}, its store work queued in {@code storeTasks}. */
    private static CaptureViewModel childBuilding(QueuedTaskExecutor ex, StoreCache cache, List<Runnable> storeTasks) {
        CaptureViewModel vm = new CaptureViewModel(ex, () -> null);
        vm.table().setRecords(TestRows.records());
        vm.setStore(cache, storeTasks::add);
        vm.buildStoresInChild();
        return vm;
    }

    @Test
    void theChildBuildsTheStoreAndTheTableHoldsEveryEvent() throws Exception {
        List<EventRecord> recs = records(2 * StoreBuilder.PROGRESS_EVERY);
        Path file = FixturePcapng.write(dir.resolve("big.pcapng"), recs);
        QueuedTaskExecutor ex = new QueuedTaskExecutor();
        List<Runnable> storeTasks = new ArrayList<>();
        StoreCache cache = new StoreCache(dir.resolve("cache"), 1L << 30);
        CaptureViewModel vm = childBuilding(ex, cache, storeTasks);
        long[] progress = {0};
        vm.indexedProperty().addListener((o, was, n) -> progress[0] = Math.max(progress[0], n.longValue()));
        vm.openFile(file, n -> { });
        ex.runAll();
        assertEquals(1, storeTasks.size(), "the build queued with the first rows");
        Thread build = new Thread(storeTasks.remove(0)); // the child builds the store; the thread waits for it
        build.start();
        boolean seen = false;
        while (build.isAlive()) {
            seen |= builders().findAny().isPresent();
            build.join(20);
        }
        assertTrue(seen, "a child JVM built the store");
        for (int i = 0; i < 600 && builders().findAny().isPresent(); i++) {
            Thread.sleep(50); // its JVM's exit, not waited for once it said "built"
        }
        assertEquals(0, builders().count(), "the child has ended");
        assertTrue(Files.isRegularFile(cache.storeFor(file)), "the child wrote the store into the cache");
        ex.runAll();
        StoreTable t = vm.storeTableProperty().get();
        assertNotNull(t, vm.storeStatusProperty().get());
        assertEquals(recs.size(), t.total(), "the store holds every event");
        assertTrue(progress[0] >= StoreBuilder.PROGRESS_EVERY, "the status heard the child's progress: " + progress[0]);
        // its rows decoded by the file's reader, its context learnt from the store's context_offsets
        for (int round = 0; round < 2; round++) { // the view numbered, then its first page read
            while (!storeTasks.isEmpty()) {
                storeTasks.remove(0).run();
                ex.runAll();
            }
            assertEquals(recs.size(), t.rowsProperty().get().size());
            t.rowsProperty().get().get(0);
        }
        EventRow first = t.rowsProperty().get().get(0);
        assertEquals(recs.get(0).format().fullName(), first.event());
        assertNotNull(first.record(), "the frame decoded: " + first.text());
        t.close();
    }

    /** The child prepared at the app's start builds the opened file's store; one for a file not opened is stopped. */
    @Test
    void theChildPreparedAtTheStartBuildsTheOpenedFile() throws Exception {
        List<EventRecord> recs = records(2 * StoreBuilder.PROGRESS_EVERY);
        Path file = FixturePcapng.write(dir.resolve("big.pcapng"), recs);
        Path other = FixturePcapng.write(dir.resolve("other.pcapng"), records(1));
        QueuedTaskExecutor ex = new QueuedTaskExecutor();
        List<Runnable> storeTasks = new ArrayList<>();
        StoreCache cache = new StoreCache(dir.resolve("cache"), 1L << 30);
        CaptureViewModel vm = childBuilding(ex, cache, storeTasks);
        vm.prepareStore(file);
        List<ProcessHandle> prepared = builders().toList();
        assertEquals(1, prepared.size(), "a child prepared before the file is opened");
        vm.openFile(file, n -> { });
        ex.runAll();
        Thread build = new Thread(storeTasks.remove(0));
        build.start();
        while (build.isAlive()) {
            assertEquals(List.of(), builders().filter(p -> p.pid() != prepared.get(0).pid()).toList(), "no other child");
            build.join(20);
        }
        assertTrue(Files.isRegularFile(cache.storeFor(file)), "the prepared child wrote the store");
        ex.runAll();
        assertEquals(recs.size(), vm.storeTableProperty().get().total(), "the store holds every event");
        vm.storeTableProperty().get().close();
        assertTrue(prepared.get(0).onExit().thenApply(p -> true).get(60, TimeUnit.SECONDS), "the builder ended");
        vm.prepareStore(other);
        List<ProcessHandle> unused = builders().filter(ProcessHandle::isAlive).toList();
        assertEquals(1, unused.size(), "a child prepared for the other file");
        vm.openFile(file, n -> { }); // its store is cached: no child, and the other file's is stopped
        assertTrue(unused.get(0).onExit().thenApply(p -> true).get(60, TimeUnit.SECONDS), "the unused child ended");
        ex.runAll();
    }

    @Test
    void openingAnotherFileStopsTheChild() throws Exception {
        Path big = FixturePcapng.write(dir.resolve("big.pcapng"), records(8 * StoreBuilder.PROGRESS_EVERY));
        List<EventRecord> few = records(1);
        Path small = FixturePcapng.write(dir.resolve("small.pcapng"), few);
        StoreCache cache = new StoreCache(dir.resolve("cache"), 1L << 30);
        ExecutorService queries = Executors.newSingleThreadExecutor();
        try {
            CaptureViewModel vm = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
            vm.table().setRecords(TestRows.records());
            vm.setStore(cache, queries);
            vm.buildStoresInChild();
            CountDownLatch building = new CountDownLatch(1);
            vm.indexedProperty().addListener((o, was, n) -> {
                if (n.longValue() > 0) {
                    building.countDown();
                }
            });
            vm.openFile(big, n -> { });
            assertTrue(building.await(120, TimeUnit.SECONDS), "the child's first progress: " + vm.storeStatusProperty().get());
            List<ProcessHandle> children = builders().toList();
            assertEquals(1, children.size(), "one child builds the store");
            vm.openFile(small, n -> { });
            assertTrue(children.get(0).onExit().thenApply(p -> true).get(60, TimeUnit.SECONDS), "the child ended");
            queries.submit(() -> { }).get(120, TimeUnit.SECONDS); // the small file's build, queued after
            assertFalse(Files.exists(cache.storeFor(big)), "the big file's build was stopped before its end");
            try (Stream<Path> files = Files.list(cache.dir())) {
                List<String> left = files.map(p -> p.getFileName().toString()).toList();
                assertTrue(left.stream().noneMatch(n -> n.contains(".tmp-")), "no half-built store left: " + left);
            }
            StoreTable t = vm.storeTableProperty().get();
            assertNotNull(t, vm.storeStatusProperty().get());
            assertEquals(small, t.file());
            assertEquals(few.size(), t.total());
            t.close();
        } finally {
            queries.shutdownNow();
        }
    }

    /** The store status once an opened file's store is built or refused, by a child or in this JVM. */
    private String storeStatus(Path file, boolean child, String cacheName) throws Exception {
        QueuedTaskExecutor ex = new QueuedTaskExecutor();
        CaptureViewModel vm = new CaptureViewModel(ex, () -> null);
        vm.table().setRecords(TestRows.records());
        List<Runnable> storeTasks = new ArrayList<>();
        vm.setStore(new StoreCache(dir.resolve(cacheName), 1L << 30), storeTasks::add);
        if (child) {
            vm.buildStoresInChild();
        }
        vm.openFile(file, n -> { });
        ex.runAll();
        while (!storeTasks.isEmpty()) {
            storeTasks.remove(0).run();
            ex.runAll();
        }
        if (vm.storeTableProperty().get() != null) {
            vm.storeTableProperty().get().close();
        }
        return vm.storeStatusProperty().get();
    }

    @Test
    void aCutOrRefusedFileSaysInTheViewWhatAnInProcessBuildSays() throws Exception {
        byte[] all = Files.readAllBytes(FixturePcapng.write(dir.resolve("whole.pcapng"), records(1)));
        Path cut = Files.write(dir.resolve("cut.pcapng"), Arrays.copyOf(all, all.length * 2 / 3 + 5));
        int shb = ByteBuffer.wrap(all, 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        Path bare = Files.write(dir.resolve("bare.pcapng"), Arrays.copyOf(all, shb)); // a section header only
        String cutHere = storeStatus(cut, false, "cut-here");
        assertTrue(cutHere.contains("(the file is read up to: after "), cutHere);
        assertEquals(cutHere, storeStatus(cut, true, "cut-child"));
        String bareHere = storeStatus(bare, false, "bare-here");
        assertTrue(bareHere.startsWith("no store for bare.pcapng ("), bareHere);
        assertEquals(bareHere, storeStatus(bare, true, "bare-child"));
    }
}
