package org.tracewire.app.gui;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.stage.Stage;
import org.testfx.util.WaitForAsyncUtils;
import org.tracewire.app.TracewireApp;
import org.tracewire.app.main.MainView;
import org.tracewire.app.main.MainViewModel;
import org.tracewire.app.session.SessionStore;
import org.tracewire.app.util.FxTaskExecutor;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** Builds the real main view on a TestFX stage, browsing the snapshot. */
final class GuiTestSupport {
    private GuiTestSupport() {
    }

    static MainViewModel vm;
    static MainView view;

    static void show(Stage stage, Path configDir) {
        vm = TracewireApp.createViewModel(new FxTaskExecutor(), new SessionStore(configDir), Map.of("PATH", "/nonexistent",
                "XDG_CACHE_HOME", configDir.resolveSibling(configDir.getFileName() + "-cache").toString()));
        view = new MainView(vm);
        stage.setScene(new Scene(view, 1200, 800));
        stage.titleProperty().bind(vm.titleProperty()); // as TracewireApp does
        stage.show();
        vm.browser().load(Tracefs.open(Prerequisites.snapshot()));
    }

    static void waitUntil(BooleanSupplier cond) throws TimeoutException {
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> { // a loaded machine (CI, 2 cores) needs its time
            WaitForAsyncUtils.waitForFxEvents();
            return cond.getAsBoolean();
        });
    }

    /**
     * Starts a live capture of {@code sched_switch} and {@code sched_wakeup} from the capture view
     * (Start clicked), its store in {@code cache}, and waits until it runs.
     */
    static void startSchedCapture(org.testfx.api.FxRobot robot, org.tracewire.app.capture.CaptureViewModel vm, Path cache,
                                  java.util.concurrent.Executor queries) throws TimeoutException {
        fx(() -> {
            vm.setStore(new org.tracewire.store.StoreCache(cache, 1L << 30), queries);
            vm.addEvent("sched:sched_switch", "");
            vm.addEvent("sched:sched_wakeup", "");
            vm.ifaceProperty().set("");
            vm.pcapngProperty().set("");
        });
        robot.clickOn("#capture-start");
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> vm.runningProperty().get() || vm.statusProperty().get().startsWith("cannot"));
        org.junit.jupiter.api.Assertions.assertTrue(vm.runningProperty().get(), vm.statusProperty().get());
    }

    /**
     * A pcapng of the ring-buffer fixture's records repeated to at least {@code atLeast} records,
     * and the frame number of each of its events, in order (one read of the file).
     */
    static long[] repeatedFixture(Path file, int atLeast) throws java.io.IOException {
        java.util.List<org.tracewire.record.EventRecord> one = org.tracewire.testing.FixtureRecords.load();
        java.util.List<org.tracewire.record.EventRecord> recs = new java.util.ArrayList<>();
        while (recs.size() < atLeast) {
            recs.addAll(one);
        }
        org.tracewire.testing.FixturePcapng.write(file, recs);
        recs = null;
        java.util.List<Long> frames = new java.util.ArrayList<>();
        try (org.tracewire.input.PcapngInput in = org.tracewire.input.PcapngInput.open(file)) {
            for (var it = in.events(); it.hasNext(); ) {
                frames.add(it.next().frame());
            }
        }
        return frames.stream().mapToLong(Long::longValue).toArray();
    }

    /** Opens a pcapng in the window as the launcher's --open does: its first page, then the file. */
    static void openInWindow(Path file) {
        fx(() -> {
            view.show(org.tracewire.app.AppLauncher.firstPage(null, file));
            vm.openFile(file);
        });
    }

    /** Go to frame as a user does it: a click on the table, Ctrl+G, the number, Enter. */
    static void goToFrameByKeys(org.testfx.api.FxRobot robot, javafx.scene.Node table, long frame) throws TimeoutException {
        robot.clickOn(table);
        robot.push(javafx.scene.input.KeyCode.CONTROL, javafx.scene.input.KeyCode.G);
        waitUntil(() -> robot.lookup("#store-goto").query().isFocused());
        robot.write(Long.toString(frame));
        robot.push(javafx.scene.input.KeyCode.ENTER);
    }

    static void fx(Runnable r) {
        WaitForAsyncUtils.waitForAsyncFx(10_000, r);
        Platform.requestNextPulse();
    }
}
