package org.tracewire.app.gui;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import org.tracewire.app.capture.CaptureView;
import org.tracewire.app.TracewireApp;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.main.MainView;
import org.tracewire.app.main.MainViewModel;
import org.tracewire.app.session.SessionStore;
import org.tracewire.app.util.FxTaskExecutor;

/**
 * The window's first show styles and lays out only what it shows: the capture view leaves the
 * store's table (its rows made ahead) out of the scene, to join it while idle before any store is
 * there, hidden until one is; a window opened on the events makes the start page only when shown.
 */
@ExtendWith(ApplicationExtension.class)
class WindowStartGuiTest {
    private CaptureView view;
    private boolean inSceneAtFirstShow;

    @Start
    void start(Stage stage) {
        view = new CaptureView(new CaptureViewModel(new FxTaskExecutor(), () -> null));
        stage.setScene(new Scene(view, 1200, 800));
        stage.show();
        inSceneAtFirstShow = view.storePane().getScene() != null;
    }

    @Test
    void theStoreTableJoinsTheWindowAfterItsFirstShowHidden() throws Exception {
        assertFalse(inSceneAtFirstShow, "the store's table was styled and laid out with the first show");
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> view.storePane().getScene() != null);
        assertNotNull(view.storePane().getScene());
        assertFalse(WaitForAsyncUtils.asyncFx(() -> view.storePane().isVisible()).get(), "shown without a store");
        assertTrue(WaitForAsyncUtils.asyncFx(() -> view.table().isVisible()).get(), "the first rows' table hidden");
    }

    @Test
    void aWindowOpenedOnTheEventsMakesTheStartPageOnlyWhenShown(@TempDir Path dir) throws Exception {
        MainView main = WaitForAsyncUtils.asyncFx(() -> {
            MainViewModel vm = TracewireApp.createViewModel(new FxTaskExecutor(), new SessionStore(dir.resolve("config")),
                    Map.of("PATH", "/nonexistent", "XDG_CACHE_HOME", dir.resolve("cache").toString()));
            MainView v = new MainView(vm, MainView.Page.CAPTURE);
            Stage stage = new Stage();
            stage.setScene(new Scene(v, 1200, 800));
            stage.show();
            return v;
        }).get();
        assertTrue(WaitForAsyncUtils.asyncFx(() -> main.lookup("#start-view") == null).get(), "start page made");
        assertTrue(WaitForAsyncUtils.asyncFx(() -> main.lookup("#capture-view") != null).get(), "no events page");
        WaitForAsyncUtils.asyncFx(() -> main.show(MainView.Page.START)).get();
        WaitForAsyncUtils.waitForFxEvents();
        assertNotNull(WaitForAsyncUtils.asyncFx(() -> main.lookup("#start-view")).get(), "start page not made when shown");
    }
}
