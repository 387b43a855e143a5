package org.tracewire.app.histogram;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.analysis.HistEntry;
import org.tracewire.analysis.HistTable;
import org.tracewire.protocol.BackendClient;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.RowRecords;
import org.tracewire.app.util.BackgroundThreads;
import org.tracewire.app.util.FxTaskExecutor;
import org.tracewire.record.EventRecord;
import org.tracewire.store.StoreCache;
import org.testfx.util.WaitForAsyncUtils;
import org.tracewire.input.PcapngInput;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * A histogram over a live capture through the real backend process (started on this JVM's class
 * path as {@code LiveCaptureGuiTest} does): a short capture of sched events is indexed into its
 * store as the backend writes the pcapng, the histogram goes over that store as the app's does,
 * and once the capture has stopped its table equals counts computed independently from every
 * {@code sched_switch} record of the finished pcapng (read with {@link PcapngInput}). Afterwards
 * the host is as before (settings, instances, interfaces) and the backend process is gone. Needs
 * root and tracefs.
 */
@Tag("live")
@Tag("concurrent")
class LiveHistogramTest {
    private static final String SWITCH = "sched:sched_switch";

    @TempDir
    Path dir;

    @BeforeAll
    static void prerequisites() {
        Prerequisites.requireRoot();
        Prerequisites.requireTracefs();
        try {
            javafx.application.Platform.startup(() -> { });
        } catch (IllegalStateException started) {
            // the toolkit runs already (another test of this JVM)
        }
    }

    /** Runs on the JavaFX thread (where the capture view model lives) and waits. */
    private static <T> T fx(java.util.concurrent.Callable<T> c) throws Exception {
        return WaitForAsyncUtils.asyncFx(c).get(60, TimeUnit.SECONDS);
    }

    /** Backend processes this JVM started and that still run. */
    private static long backends() {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .filter(h -> h.info().commandLine().orElse("").contains("org.tracewire.backend.BackendMain")).count();
    }

    private static long number(Object v) {
        return Long.parseLong(String.valueOf(v).strip());
    }

    @Test
    void aHistogramOfALiveCaptureEqualsCountsOfItsRows() throws Exception {
        Tracefs top = Tracefs.live();
        HostState before = HostState.of(top);
        BackendClient[] client = new BackendClient[1];
        // the capture's file is read in the background while the backend writes it
        CaptureViewModel capture = new CaptureViewModel(new FxTaskExecutor(), () -> {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            client[0] = BackendClient.start(List.of(java, "-cp", System.getProperty("java.class.path"),
                    "org.tracewire.backend.BackendMain"));
            return client[0];
        });
        RowRecords records = new RowRecords(RowRecords.formatsOf(() -> top));
        capture.setRecords(records);
        java.util.concurrent.ExecutorService storeThread = BackgroundThreads.single("test-store");
        java.util.concurrent.ExecutorService histThread = BackgroundThreads.single("test-hist");
        capture.setStore(new StoreCache(Files.createDirectories(dir.resolve("cache")), 1L << 30), storeThread);
        HistogramViewModel hist = new HistogramViewModel(new FxTaskExecutor(), records);
        hist.setQueries(histThread);
        hist.connect(capture);
        Path pcapng = dir.resolve("live.pcapng");
        try {
            capture.addEvent(SWITCH, "");
            capture.addEvent("sched:sched_wakeup", "");
            capture.ifaceProperty().set("");
            capture.pcapngProperty().set(pcapng.toString());
            fx(() -> {
                hist.eventProperty().set(SWITCH);
                assertTrue(hist.applyTriggerText("hist:keys=next_pid:vals=hitcount,prev_prio:sort=hitcount.descending:size=8192"),
                        hist.errorProperty().get());
                capture.start();
                return null;
            });
            WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> capture.runningProperty().get()
                    || capture.statusProperty().get().startsWith("cannot"));
            assertTrue(capture.runningProperty().get(), capture.statusProperty().get());
            assertEquals(pcapng.toString(), fx(() -> capture.sourceFileProperty().get()));
            // the backend leaves out this JVM and its children: other tasks' switches are recorded
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && fx(() -> capture.receivedProperty().get()) < 400) {
                fx(() -> {
                    capture.flush();    // what the view's pulse does (the kernel's counters)
                    return null;
                });
                Thread.sleep(100);
            }
            fx(() -> {
                capture.stop();
                return null;
            });
            WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> !capture.runningProperty().get()
                    && !capture.busyProperty().get() && !capture.followingProperty().get());
        } finally {
            if (client[0] != null) {
                client[0].close();
            }
        }

        // independently: counts and sums from every sched_switch record of the finished file
        Map<Long, long[]> expected = new HashMap<>();
        long events = 0;
        try (PcapngInput in = PcapngInput.open(pcapng)) {
            for (var it = in.events(); it.hasNext(); ) {
                EventRecord r = it.next().record();
                events++;
                if (r.format().fullName().equals(SWITCH)) {
                    long[] a = expected.computeIfAbsent(r.integer(r.format().field("next_pid")), k -> new long[2]);
                    a[0]++;
                    a[1] += r.integer(r.format().field("prev_prio"));
                }
            }
        }
        long switches = expected.values().stream().mapToLong(a -> a[0]).sum();
        assertTrue(switches >= 100, "sched_switch events captured: " + switches + " of " + events);
        assertEquals(events, fx(() -> capture.storeTableProperty().get().total()), "the store holds every event of the file");
        // the histogram's last refresh is over the whole store
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> fx(() -> hist.tableProperty().get() != null
                && !hist.statusProperty().get().contains("capture running") && hist.tableProperty().get().hits() == switches));
        HistTable t = fx(() -> hist.tableProperty().get());
        assertEquals(switches, t.hits());
        Map<Long, long[]> got = new HashMap<>();
        for (HistEntry e : t.entries()) {
            got.put(e.keys().get(0).number(), new long[] {e.hitcount(), e.values().get(0)});
        }
        assertEquals(expected.keySet(), got.keySet());
        expected.forEach((k, a) -> {
            assertEquals(a[0], got.get(k)[0], "hitcount of next_pid " + k);
            assertEquals(a[1], got.get(k)[1], "prev_prio sum of next_pid " + k);
        });
        for (int i = 1; i < t.entries().size(); i++) {
            assertTrue(t.entries().get(i - 1).hitcount() >= t.entries().get(i).hitcount(), "sorted by hitcount, descending");
        }
        System.out.printf("live histogram: %d events in the store, %d sched_switch in %d next_pid keys%n",
                events, switches, expected.size());
        fx(() -> {
            capture.storeTableProperty().get().close();
            return null;
        });
        storeThread.shutdown();
        histThread.shutdown();

        // nothing left behind
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < until && backends() > 0) {
            Thread.sleep(100);
        }
        assertEquals(0, backends(), "the backend process exits");
        assertEquals(List.of(), HostState.of(top).leftSince(before), "tracing settings, instances or interfaces changed");
    }
}
