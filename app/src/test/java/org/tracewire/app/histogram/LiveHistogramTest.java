package org.tracewire.app.histogram;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.RowRecords;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.app.util.FxTaskExecutor;
import org.testfx.util.WaitForAsyncUtils;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * A histogram over a live capture through the real backend process (started on this JVM's class
 * path as {@code LiveCaptureGuiTest} does): a short capture of sched events feeds the histogram
 * view model row by row as the app does (the rows read from the pcapng the backend writes), and its
 * table equals counts computed independently from the same rows' field values; each row's frame
 * number is its event's frame in that pcapng ("Show in Wireshark"). Afterwards the host is as before (settings, instances, interfaces) and the
 * backend process is gone. Needs root and tracefs.
 */
@Tag("live")
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
        RowRecords records = new RowRecords(RowRecords.formatsOf(() -> top), top::layout);
        capture.setRecords(records);
        HistogramViewModel hist = new HistogramViewModel(new DirectTaskExecutor(), records);
        hist.connect(capture);
        List<EventRow> streamed = new ArrayList<>();
        capture.addRowSink(streamed::addAll);
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
            while (System.nanoTime() < deadline && fx(() -> streamed.size()) < 200) {
                fx(() -> {
                    capture.flush();    // what the view's pulse does
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
            fx(() -> {
                capture.flush();
                return null;
            });
        } finally {
            if (client[0] != null) {
                client[0].close();
            }
        }

        // independently: counts and sums from the rows' own field values
        Map<Long, long[]> expected = new HashMap<>();
        for (EventRow r : streamed) {
            if (r.event().equals(SWITCH)) {
                long[] a = expected.computeIfAbsent(number(r.fields().get("next_pid")), k -> new long[2]);
                a[0]++;
                a[1] += number(r.fields().get("prev_prio"));
            }
        }
        long switches = expected.values().stream().mapToLong(a -> a[0]).sum();
        assertTrue(switches >= 100, "sched_switch rows read: " + switches + " of " + streamed.size());
        HistTable t = hist.tableProperty().get();
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

        // "Show in Wireshark" on the rows: each row's frame number is its event's frame in the pcapng
        Map<Long, RecordInput.Event> byFrame = new HashMap<>();
        try (PcapngInput in = PcapngInput.open(pcapng)) {
            for (var it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                byFrame.put(e.frame(), e);
            }
        }
        assertEquals(byFrame.size(), streamed.size(), "every event of the file reached the views");
        int found = 0;
        for (int i = 0; i < streamed.size(); i += Math.max(1, streamed.size() / 25)) {
            EventRow r = streamed.get(i);
            assertEquals(pcapng.toString(), capture.wiresharkFile(r));
            RecordInput.Event e = byFrame.get(r.frame());
            assertTrue(e != null && e.timeNs() == r.ts() && e.record().cpu() == r.cpu(), "row " + i + " at frame "
                    + r.frame() + ": " + r);
            found++;
        }
        assertTrue(found >= 20, "rows looked up: " + found);
        System.out.printf("live histogram: %d rows read, %d sched_switch in %d next_pid keys; %d rows checked in the pcapng%n",
                streamed.size(), switches, expected.size(), found);

        // nothing left behind
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < until && backends() > 0) {
            Thread.sleep(100);
        }
        assertEquals(0, backends(), "the backend process exits");
        assertEquals(before, HostState.of(top), "tracing settings, instances or interfaces changed");
        assertEquals(List.of(), HostState.of(top).tracewireInstances());
    }
}
