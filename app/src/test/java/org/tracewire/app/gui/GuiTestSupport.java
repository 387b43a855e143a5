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

    static void fx(Runnable r) {
        WaitForAsyncUtils.waitForAsyncFx(10_000, r);
        Platform.requestNextPulse();
    }
}
