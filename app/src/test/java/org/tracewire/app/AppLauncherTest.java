package org.tracewire.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.tracewire.app.main.MainView;

/** The page the window opens on. */
class AppLauncherTest {
    @Test
    void openLandsOnTheEventsUnlessAViewIsAskedFor() {
        Path file = Path.of("/tmp/x.pcapng");
        assertEquals(MainView.Page.CAPTURE, AppLauncher.firstPage(null, file), "--open FILE shows its events");
        assertEquals(MainView.Page.CAPTURE, AppLauncher.firstPage(" ", file));
        assertEquals(MainView.Page.TIMELINE, AppLauncher.firstPage("timeline", file), "--view wins");
        assertEquals(MainView.Page.START, AppLauncher.firstPage(null, null));
        assertEquals(MainView.Page.BROWSER, AppLauncher.firstPage("Browser", null));
        assertThrows(IllegalArgumentException.class, () -> AppLauncher.firstPage("nope", null));
    }
}
