package org.tracewire.app.gui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.scene.control.Label;
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
import org.tracewire.app.util.FxTaskExecutor;
import org.tracewire.testing.Prerequisites;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.tracefs.EventSelection;

/**
 * A capture through the real backend process ({@code org.tracewire.cli.Main backend}, started on
 * this JVM's class path like the launcher would start it) into the capture view: rows arrive,
 * counters move, stop reports the final count, the pcapng is written. Needs root and tracefs.
 */
@Tag("live")
@ExtendWith(ApplicationExtension.class)
class LiveCaptureGuiTest {
    @TempDir
    static Path dir;
    private CaptureViewModel vm;
    private BackendClient client;

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
        stage.setScene(new Scene(new CaptureView(vm), 1200, 800));
        stage.show();
    }

    @AfterEach
    void closeBackend() {
        if (client != null) {
            client.close();
        }
    }

    @Test
    void rowsArriveAndCountersMove(FxRobot robot) throws Exception {
        Path pcapng = dir.resolve("live.pcapng");
        GuiTestSupport.fx(() -> {
            vm.addEvent("sched:sched_switch", "");
            vm.addEvent("sched:sched_wakeup", "");
            vm.ifaceProperty().set("");
            vm.pcapngProperty().set(pcapng.toString());
        });
        robot.clickOn("#capture-start");
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> vm.runningProperty().get() || vm.statusProperty().get().startsWith("cannot"));
        assertTrue(vm.runningProperty().get(), vm.statusProperty().get());
        // Make some scheduler traffic.
        Process p = new ProcessBuilder("sh", "-c", "for i in $(seq 200); do sleep 0.001; done").start();
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> vm.getRows().size() > 10 && vm.eventCountProperty().get() > 10);
        p.waitFor();
        long first = vm.eventCountProperty().get();
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> vm.eventCountProperty().get() > first);
        EventRow row = WaitForAsyncUtils.asyncFx(() -> vm.getRows().get(0)).get();
        assertTrue(row.event().startsWith("sched:sched_"), row.toString());
        assertTrue(row.ts() > 1_600_000_000_000_000_000L, "wall-clock ns: " + row.ts());
        assertTrue(!row.text().isEmpty() && !row.fields().isEmpty(), row.toString());
        String shown = robot.lookup("#capture-count-events").queryAs(Label.class).getText();
        assertTrue(!shown.equals("0"), shown);

        robot.clickOn("#capture-stop");
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> !vm.runningProperty().get() && !vm.busyProperty().get());
        assertTrue(vm.statusProperty().get().startsWith("stopped: "), vm.statusProperty().get());
        assertTrue(vm.eventCountProperty().get() >= first);
        assertTrue(Files.size(pcapng) > 0, "pcapng written");
        Messages.Hello hello = client.hello().get(10, TimeUnit.SECONDS);
        assertEquals(true, hello.live());
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
