package org.tracewire.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.tracewire.app.main.MainView;

/** The page the window opens on; the capture asked for on the command line. */
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

    @Test
    void captureTakesEventsADurationAndAFile() {
        TracewireApp.Capture c = AppLauncher.capture(java.util.List.of("sched:sched_switch", "raw_syscalls:sys_enter"),
                30.0, Path.of("out.pcapng"), null);
        assertEquals(java.util.List.of("sched:sched_switch", "raw_syscalls:sys_enter"),
                c.events().stream().map(org.tracewire.tracefs.EventSelection::fullName).toList());
        assertEquals(30.0, c.seconds());
        assertEquals(Path.of("out.pcapng").toAbsolutePath(), c.pcapng());
        TracewireApp.Capture untilStop = AppLauncher.capture(java.util.List.of("sched:sched_switch"), null, null, null);
        assertEquals(0.0, untilStop.seconds(), "runs until Stop");
        assertEquals(null, untilStop.pcapng(), "a file in the cache");
        assertEquals(null, AppLauncher.capture(null, null, null, null), "no capture asked for");
    }

    @Test
    void captureOptionsThatDoNotFitAreUsageErrors() {
        Path file = Path.of("/tmp/x.pcapng");
        assertThrows(IllegalArgumentException.class, () -> AppLauncher.capture(null, 5.0, null, null), "--duration alone");
        assertThrows(IllegalArgumentException.class, () -> AppLauncher.capture(null, null, file, null), "-w alone");
        assertThrows(IllegalArgumentException.class,
                () -> AppLauncher.capture(java.util.List.of("sched:sched_switch"), null, null, file), "with --open");
        assertThrows(IllegalArgumentException.class,
                () -> AppLauncher.capture(java.util.List.of("sched:sched_switch"), 0.0, null, null), "zero seconds");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AppLauncher.capture(java.util.List.of("sched"), null, null, null));
        assertTrue(e.getMessage().startsWith("--capture sched: "), e.getMessage());
        assertEquals(2, AppLauncher.run("--duration", "5"), "a usage error exits 2");
    }
}
