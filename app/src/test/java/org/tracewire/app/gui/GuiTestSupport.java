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

    static void fx(Runnable r) {
        WaitForAsyncUtils.waitForAsyncFx(10_000, r);
        Platform.requestNextPulse();
    }
}
