package org.tracewire.app.gui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
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
import org.tracewire.protocol.BackendClient;
import org.tracewire.protocol.Messages;
import org.tracewire.app.capture.CaptureView;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.capture.WindowedTable;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import org.tracewire.app.util.FxTaskExecutor;
import org.tracewire.testing.Prerequisites;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.tracefs.EventSelection;

/**
 * A capture through the real backend process ({@code org.tracewire.backend.BackendMain}, started on
 * this JVM's class path like the launcher would start it) into the capture view: the backend
 * writes a pcapng that the app reads as it grows and indexes into its store. Needs root and tracefs.
 */
@Tag("live")
@Tag("concurrent")
@ExtendWith(ApplicationExtension.class)
class LiveCaptureGuiTest {
    @TempDir
    static Path dir;
    private CaptureViewModel vm;
    private CaptureView view;
    private BackendClient client;
    private final ExecutorService queries = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "store");
        t.setDaemon(true);
        return t;
    });

    @BeforeAll
    static void prerequisites() {
        Prerequisites.requireRoot();
        Prerequisites.requireTracefs();
    }

    @Start
    void start(Stage stage) {
        vm = new CaptureViewModel(new FxTaskExecutor(), () -> {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            client = BackendClient.start(List.of(java, "-cp", System.getProperty("java.class.path"),
                    "org.tracewire.backend.BackendMain"));
            return client;
        });
        view = new CaptureView(vm);
        stage.setScene(new Scene(view, 1200, 800));
        stage.show();
    }

    @AfterEach
    void closeBackend() {
        if (client != null) {
            client.close();
        }
        queries.shutdownNow();
    }

    /**
     * One path: the capture (no file chosen) is the backend writing a new pcapng in the cache's
     * {@code live} folder, which the app indexes into its store as it grows; the event table is
     * that store's from its first commit, its rows growing with each commit, following the newest
     * row; unticking "Follow newest" pauses it, and the paused table's rows shown hold still while
     * the store grows; after Stop the same table holds the whole capture: its rows, the store's
     * events, the file's and the kernel's records read are equal; a row's frame number is the
     * exact frame of the file.
     */
    @Test
    void aLiveCaptureIsItsPcapngReadAsItGrows(FxRobot robot) throws Exception {
        Path cache = Files.createDirectories(dir.resolve("cache"));
        GuiTestSupport.startSchedCapture(robot, vm, cache, queries);
        Path pcapng = Path.of(WaitForAsyncUtils.asyncFx(() -> vm.sourceFileProperty().get()).get());
        assertEquals(cache.resolve("live"), pcapng.getParent(), "a new file in the cache's live folder");
        assertTrue(pcapng.getFileName().toString().matches("capture-\\d{8}-\\d{6}\\.pcapng"), pcapng.toString());
        // the table is the store's from its first commit, while the capture runs (the backend leaves
        // out this JVM and its children: other tasks' scheduling is recorded)
        WindowedTable rows = view.storePane().rows();
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> vm.storeTableProperty().get() != null
                && rows.rowCount() > 20).get());
        StoreTable growing = WaitForAsyncUtils.asyncFx(() -> vm.storeTableProperty().get()).get();
        assertTrue(WaitForAsyncUtils.asyncFx(() -> growing.growingProperty().get() && vm.runningProperty().get()).get(),
                "a table over the store before Stop");
        assertTrue(WaitForAsyncUtils.asyncFx(() -> view.storePane().isVisible()).get(), "the store table is shown");
        String live = WaitForAsyncUtils.asyncFx(() -> vm.eventsStatus().get()).get();
        assertTrue(live.startsWith("live: "), live);
        String shows = WaitForAsyncUtils.asyncFx(() -> robot.lookup("#capture-store-status")
                .queryAs(javafx.scene.control.Label.class).getText()).get();
        assertTrue(shows.contains("the table holds every event indexed so far"), shows);
        assertTrue(robot.lookup("#capture-count-dropped").tryQuery().isEmpty(), "no 'Not streamed' counter");
        assertTrue(WaitForAsyncUtils.asyncFx(() -> robot.lookup("#capture-live-follow").queryAs(CheckBox.class).isVisible()
                && robot.lookup("#capture-live-follow").queryAs(CheckBox.class).isSelected()).get(), "Follow newest, on");
        // following: the newest row in view after a commit
        int before = WaitForAsyncUtils.asyncFx(rows::rowCount).get();
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> rows.rowCount() > before
                && rows.topRow() + rows.shownRows() >= rows.rowCount()).get());

        // paused (Follow newest unticked): the rows shown hold still while the store grows
        robot.clickOn("#capture-live-follow");
        assertFalse(WaitForAsyncUtils.asyncFx(() -> vm.table().followProperty().get()).get(), "paused");
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> firstShown() > 0).get());
        long[] at = WaitForAsyncUtils.asyncFx(() -> new long[] {rows.rowCount(), rows.topRow(), firstShown()}).get();
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> rows.rowCount() > at[0]).get());
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> firstShown() > 0).get());
        long[] paused = WaitForAsyncUtils.asyncFx(() -> new long[] {rows.rowCount(), rows.topRow(), firstShown()}).get();
        assertTrue(paused[0] > at[0], "the table's rows grew with the store: " + at[0] + " → " + paused[0]);
        assertEquals(at[1], paused[1], "the paused table's top row");
        assertEquals(at[2], paused[2], "the paused table's first frame shown");
        String resume = WaitForAsyncUtils.asyncFx(() -> robot.lookup("#capture-live-paused").queryAs(Button.class).getText()).get();
        assertTrue(resume.matches("⏸ paused, [\\d,]+ new: resume") && !resume.contains(" 0 new"), resume);
        robot.clickOn("#capture-live-paused");
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> vm.table().followProperty().get()
                && rows.topRow() + rows.shownRows() >= rows.rowCount()).get());

        robot.clickOn("#capture-stop");
        for (int i = 0; i < 1200 && (vm.storeTableProperty().get() == null || vm.followingProperty().get()); i++) {
            Thread.sleep(100);
        }
        StoreTable table = vm.storeTableProperty().get();
        assertTrue(table == growing, "the same table, grown");
        assertTrue(table != null, WaitForAsyncUtils.asyncFx(() -> "no store: " + vm.storeStatusProperty().get() + "; "
                + vm.statusProperty().get() + "; " + vm.eventsStatus().get() + "; running " + vm.runningProperty().get()
                + ", busy " + vm.busyProperty().get() + ", following " + vm.followingProperty().get()).get());
        Messages.Stats stats = vm.live().statsProperty().get();
        assertFalse(stats.running(), "final counters");
        long kernelRead = stats.cpus().stream().mapToLong(Messages.CpuStat::records).sum();
        Map<Long, RecordInput.Event> byFrame = new HashMap<>();
        long inFile = 0;
        try (PcapngInput in = PcapngInput.open(pcapng)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                inFile++;
                byFrame.put(e.frame(), e);
            }
        }
        assertTrue(inFile >= 20, "events in the file: " + inFile);
        assertEquals(inFile, table.total(), "the store holds every event of the file");
        assertEquals(stats.events(), table.total(), "the app's count is the backend's");
        assertEquals(kernelRead, table.total(), "and the records read from the kernel");
        for (Messages.CpuStat c : stats.cpus()) {
            assertEquals(Boolean.TRUE, c.kernelAgrees(), "read + lost = the kernel's count on CPU " + c.cpu());
        }
        assertEquals(inFile, WaitForAsyncUtils.asyncFx(() -> vm.receivedProperty().get()).get(), "events read from the file");
        long events = inFile;
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> rows.rowCount() == events).get());
        assertEquals(String.format("%,d events", inFile), WaitForAsyncUtils.asyncFx(() -> vm.eventsStatus().get()).get());
        String status = WaitForAsyncUtils.asyncFx(() -> vm.statusProperty().get()).get();
        assertTrue(status.startsWith("captured into " + pcapng.getFileName()) && !status.contains("not the kernel's"), status);

        // "Show in Wireshark": a row's frame number is the file's frame with that event
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> firstShown() > 0).get());
        List<EventRow> window = WaitForAsyncUtils.asyncFx(() -> List.copyOf(view.storePane().table().getItems())).get();
        int checked = 0;
        for (EventRow r : window) {
            RecordInput.Event e = byFrame.get(r.frame());
            if (e == null) {
                continue;
            }
            long[] shown = {0};
            String[] file = {null};
            GuiTestSupport.fx(() -> vm.showInWireshark(r, (f, n) -> {
                file[0] = f;
                shown[0] = n;
            }));
            assertEquals(pcapng.toString(), file[0]);
            assertEquals(r.frame(), shown[0]);
            assertEquals(e.record().format().fullName(), r.event(), "frame " + r.frame());
            assertEquals(e.record().cpu(), r.cpu(), "frame " + r.frame());
            assertEquals(e.timeNs(), r.ts(), "frame " + r.frame());
            checked++;
        }
        assertTrue(checked >= 3, "rows checked against the file: " + checked);
    }

    /**
     * A paused live table holds still in any order: filtered in descending frame order, the store's
     * new frames are added above the rows shown and the window moves with them (the same frames
     * on screen, more rows); sorted by pid, the view is not rebuilt at the commits while paused
     * (the same rows, the message says why), and resuming rebuilds it with the events committed
     * meanwhile.
     */
    @Test
    void aPausedFilteredOrSortedLiveTableHoldsStill(FxRobot robot) throws Exception {
        Path cache = Files.createDirectories(dir.resolve("cache-paused"));
        GuiTestSupport.startSchedCapture(robot, vm, cache, queries);
        WindowedTable rows = view.storePane().rows();
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> vm.storeTableProperty().get() != null
                && rows.rowCount() > 20).get());
        StoreTable t = WaitForAsyncUtils.asyncFx(() -> vm.storeTableProperty().get()).get();
        var table = view.storePane().table();
        GuiTestSupport.fx(() -> {
            var frame = table.getColumns().get(0);
            frame.setSortType(javafx.scene.control.TableColumn.SortType.DESCENDING);
            table.getSortOrder().setAll(List.of(frame));
            t.filterTextProperty().set("common_pid >= 0");
        });
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> rows.rowCount() > 40
                && firstShown() > 0 && t.filterErrorProperty().get().isEmpty()).get());
        // following in descending frame order: the newest row, the first, in sight after each commit
        int grown = WaitForAsyncUtils.asyncFx(rows::rowCount).get();
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> rows.rowCount() > grown).get());
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(0, (int) WaitForAsyncUtils.asyncFx(rows::topRow).get(), "Follow newest, descending: the top row");
        robot.clickOn("#capture-live-follow");
        assertFalse(WaitForAsyncUtils.asyncFx(() -> vm.table().followProperty().get()).get(), "paused");
        GuiTestSupport.fx(() -> rows.scrollBar().setValue(10)); // not at either end
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> shownFrames() != null).get());
        List<Long> before = WaitForAsyncUtils.asyncFx(this::shownFrames).get();
        int count = WaitForAsyncUtils.asyncFx(rows::rowCount).get();
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> rows.rowCount() > count
                && shownFrames() != null).get());
        assertEquals(before, WaitForAsyncUtils.asyncFx(this::shownFrames).get(),
                "the paused table's frames shown, filtered in descending frame order, as the store grew");
        assertTrue(before.get(0) > before.get(before.size() - 1), "descending: " + before);

        // sorted by pid while paused: held at the commits
        GuiTestSupport.fx(() -> {
            var pid = table.getColumns().get(3);
            pid.setSortType(javafx.scene.control.TableColumn.SortType.ASCENDING);
            table.getSortOrder().setAll(List.of(pid));
        });
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> shownFrames() != null
                && t.messageProperty().get().contains("holds still")).get());
        List<Long> sorted = WaitForAsyncUtils.asyncFx(this::shownFrames).get();
        int held = WaitForAsyncUtils.asyncFx(rows::rowCount).get();
        long committed = WaitForAsyncUtils.asyncFx(() -> t.committedProperty().get()).get();
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> t.committedProperty().get() > committed).get());
        long next = WaitForAsyncUtils.asyncFx(() -> t.committedProperty().get()).get();
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> t.committedProperty().get() > next).get());
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(held, WaitForAsyncUtils.asyncFx(rows::rowCount).get(), "the paused sorted table's rows");
        assertEquals(sorted, WaitForAsyncUtils.asyncFx(this::shownFrames).get(), "its frames shown");
        String why = WaitForAsyncUtils.asyncFx(() -> t.messageProperty().get()).get();
        assertTrue(why.contains("holds still until Follow newest resumes"), why);
        robot.clickOn("#capture-live-paused");
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> rows.rowCount() > held
                && t.messageProperty().get().contains("rebuilt every 5 s")).get());
        robot.clickOn("#capture-stop");
        WaitForAsyncUtils.waitFor(120, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> !t.growingProperty().get()).get());
    }

    /** The frames of the rows the store table shows, null while a row is loading. */
    private List<Long> shownFrames() {
        var items = view.storePane().table().getItems();
        List<Long> frames = new java.util.ArrayList<>();
        for (EventRow r : items) {
            if (r.frame() == 0) {
                return null;
            }
            frames.add(r.frame());
        }
        return frames.isEmpty() ? null : frames;
    }

    /** The frame of the first row the store table shows, 0 while its page is loading. */
    private long firstShown() {
        var items = view.storePane().table().getItems();
        return items.isEmpty() ? 0 : items.get(0).frame();
    }

    @Test
    void stackTracesChosenInTheEventListAreRecorded(FxRobot robot) throws Exception {
        Path pcapng = dir.resolve("stacks.pcapng");
        GuiTestSupport.fx(() -> {
            vm.addEvent("sched:sched_switch", "");
            vm.ifaceProperty().set("");
            vm.pcapngProperty().set(pcapng.toString());
        });
        javafx.scene.control.ListView<?> list = robot.lookup("#capture-events").queryAs(javafx.scene.control.ListView.class);
        GuiTestSupport.fx(() -> list.getSelectionModel().select(0));
        robot.rightClickOn(list);
        // Monocle's headless robot does not turn a right click into the platform's context-menu request
        if (!list.getContextMenu().isShowing()) {
            robot.interact(() -> list.getContextMenu().show(list, javafx.geometry.Side.BOTTOM, 20, -10));
        }
        robot.clickOn("Record kernel stack traces");
        assertEquals(EventSelection.Stack.KERNEL, WaitForAsyncUtils.asyncFx(() -> vm.getEvents().get(0).stack()).get());
        robot.clickOn("#capture-start");
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> vm.runningProperty().get() || vm.statusProperty().get().startsWith("cannot"));
        assertTrue(vm.runningProperty().get(), vm.statusProperty().get());
        // the backend leaves out the app's process and its children: other tasks' switches are
        // recorded, so the capture runs until it has counted some
        for (int i = 0; i < 60 && vm.eventCountProperty().get() < 100; i++) {
            Thread.sleep(500);
        }
        robot.clickOn("#capture-stop");
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> !vm.runningProperty().get() && !vm.busyProperty().get());
        // every recorded switch is followed, on its CPU, by its kernel stack record
        Map<Integer, String> lastOnCpu = new HashMap<>();
        int switches = 0;
        int stacked = 0;
        try (PcapngInput in = PcapngInput.open(pcapng)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                String name = e.record().format().fullName();
                if (name.equals("sched:sched_switch")) {
                    switches++;
                } else if (name.equals(EventSelection.KERNEL_STACK)
                        && "sched:sched_switch".equals(lastOnCpu.get(e.record().cpu()))) {
                    stacked++;
                }
                lastOnCpu.put(e.record().cpu(), name);
            }
        }
        assertTrue(switches >= 10, "switches recorded: " + switches);
        assertEquals(switches, stacked, "each switch has its kernel stack");
    }
}
