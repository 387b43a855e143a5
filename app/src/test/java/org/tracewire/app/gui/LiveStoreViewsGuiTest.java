package org.tracewire.app.gui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import org.tracewire.analysis.HistTable;
import org.tracewire.app.capture.CaptureView;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.RowRecords;
import org.tracewire.app.histogram.HistogramView;
import org.tracewire.app.histogram.HistogramViewModel;
import org.tracewire.app.timeline.SliceTimeline;
import org.tracewire.app.timeline.TimelineViewModel;
import org.tracewire.app.util.BackgroundThreads;
import org.tracewire.app.util.FxTaskExecutor;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.protocol.BackendClient;
import org.tracewire.testing.Prerequisites;

/**
 * The views over a live capture's store while it grows (issue 34: one path for every capture):
 * a capture through the real backend process, the histogram (on screen) and the timeline connected
 * as the main view connects them. Before Stop, the histogram counts the {@code sched_switch}
 * events its store has committed (its status says "… events so far — capture running") and counts
 * more at a later refresh, and the timeline shows slices; after Stop both show the whole capture:
 * the histogram's hits and the timeline's slices equal the {@code sched_switch} events of the
 * finished file, read independently with {@link PcapngInput}. Needs root and tracefs.
 */
@Tag("live")
@Tag("concurrent")
@ExtendWith(ApplicationExtension.class)
class LiveStoreViewsGuiTest {
    @TempDir
    static Path dir;
    private CaptureViewModel vm;
    private HistogramViewModel hist;
    private TimelineViewModel timeline;
    private BackendClient client;
    private final List<ExecutorService> threads = new ArrayList<>();

    @BeforeAll
    static void prerequisites() {
        Prerequisites.requireRoot();
        Prerequisites.requireTracefs();
    }

    private ExecutorService thread(String name) {
        ExecutorService e = BackgroundThreads.single(name);
        threads.add(e);
        return e;
    }

    @Start
    void start(Stage stage) {
        FxTaskExecutor fx = new FxTaskExecutor();
        vm = new CaptureViewModel(fx, () -> {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            client = BackendClient.start(List.of(java, "-cp", System.getProperty("java.class.path"),
                    "org.tracewire.backend.BackendMain"));
            return client;
        });
        RowRecords records = RowRecords.none();
        vm.setRecords(records);
        hist = new HistogramViewModel(fx, records);
        hist.setQueries(thread("test-stats"));
        hist.connect(vm);
        timeline = new TimelineViewModel();
        timeline.setQueries(thread("test-timeline"));
        timeline.connect(vm);
        stage.setScene(new Scene(new SplitPane(new CaptureView(vm), new HistogramView(hist)), 1200, 800));
        stage.show();
    }

    @AfterEach
    void closeBackend() {
        if (client != null) {
            client.close();
        }
        threads.forEach(ExecutorService::shutdownNow);
    }

    @Test
    void theViewsShowTheGrowingStoreBeforeStopAndTheWholeCaptureAfter(FxRobot robot) throws Exception {
        Path cache = Files.createDirectories(dir.resolve("cache"));
        GuiTestSupport.startSchedCapture(robot, vm, cache, thread("test-store"));

        // before Stop: the histogram over the store's first commits, said to be a capture still running
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> running(hits(), status())).get());
        long[] first = WaitForAsyncUtils.asyncFx(() -> new long[] {hits(), vm.runningProperty().get() ? 1 : 0}).get();
        String during = WaitForAsyncUtils.asyncFx(this::status).get();
        assertEquals(1, first[1], "the capture still runs");
        assertTrue(WaitForAsyncUtils.asyncFx(() -> vm.storeTableProperty().get() != null
                && vm.storeTableProperty().get().growingProperty().get()).get(), "the table and the views go over the growing store");
        assertTrue(during.matches("[\\d,]+ events so far — capture running; [\\d,]+ hits of [\\d,]+ sched:sched_switch events.*"),
                during);
        assertTrue(WaitForAsyncUtils.asyncFx(() -> robot.lookup("#hist-status").queryAs(Label.class).getText()).get()
                .contains("capture running"), "on screen");
        // a later commit: counted again, more
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> running(hits(), status())
                && hits() > first[0]).get());
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> timeline.slicesProperty().get() != null
                && timeline.slicesProperty().get().size() > 0).get());
        assertTrue(WaitForAsyncUtils.asyncFx(() -> vm.runningProperty().get()).get(), "still before Stop");
        String fields = WaitForAsyncUtils.asyncFx(() -> String.join(",", hist.builder().getFields())).get();
        assertTrue(fields.contains("next_pid") && fields.contains("prev_comm"), "the Key box: " + fields);

        robot.clickOn("#capture-stop");
        for (int i = 0; i < 1200 && (vm.storeTableProperty().get() == null || vm.followingProperty().get()); i++) {
            Thread.sleep(100);
        }
        assertTrue(vm.storeTableProperty().get() != null, WaitForAsyncUtils.asyncFx(() -> vm.storeStatusProperty().get()).get());
        Path pcapng = Path.of(WaitForAsyncUtils.asyncFx(() -> vm.sourceFileProperty().get()).get());
        long switches = 0;
        try (PcapngInput in = PcapngInput.open(pcapng)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                if (it.next().record().format().fullName().equals("sched:sched_switch")) {
                    switches++;
                }
            }
        }
        long all = switches;
        // after Stop: the whole capture, no longer said to be running
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> !status().contains("capture running")
                && hits() == all).get());
        assertTrue(all > first[0], "the capture went on after the first look: " + first[0] + " of " + all);
        assertTrue(WaitForAsyncUtils.asyncFx(this::status).get().contains(String.format("of %,d sched:sched_switch events", all)),
                WaitForAsyncUtils.asyncFx(this::status).get());
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> {
            SliceTimeline s = timeline.slicesProperty().get();
            return s != null && s.size() == all && !timeline.loadingProperty().get().contains("capture running");
        }).get());
        System.out.printf("[live] histogram before Stop: %,d of %,d switches (%s)%n", first[0], all, during);
    }

    private long hits() {
        HistTable t = hist.tableProperty().get();
        return t == null ? -1 : t.hits();
    }

    private String status() {
        return hist.statusProperty().get();
    }

    private static boolean running(long hits, String status) {
        return hits > 0 && status.contains("capture running");
    }
}
