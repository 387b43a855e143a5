package org.tracewire.app.gui;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import org.tracewire.app.capture.CaptureView;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.util.FxTaskExecutor;

/**
 * The capture view's first show leaves the store's table (its rows made ahead) out of the scene,
 * so the window and an opened file's first rows do not wait for its styling and layout; it joins
 * the window while idle, before any store is there, hidden until one is.
 */
@ExtendWith(ApplicationExtension.class)
class CaptureViewStartGuiTest {
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
}
