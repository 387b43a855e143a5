package org.tracewire.app;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import javafx.application.Application;
import org.tracewire.app.main.MainView;

/**
 * Starts the desktop app from the command line ({@code org.tracewire.cli.Main} with no
 * subcommand and a display). Not itself an {@link Application}, so the launcher's main class
 * works with JavaFX on the plain class path.
 */
public final class AppLauncher {
    private static volatile MainView.Page startPage = MainView.Page.START;
    private static volatile Path configDir;
    private static volatile boolean screenshotMode;

    private AppLauncher() {
    }

    /**
     * @param env the environment
     * @return true when a display is available ({@code DISPLAY} or {@code WAYLAND_DISPLAY} set)
     */
    public static boolean hasDisplay(Map<String, String> env) {
        return notBlank(env.get("DISPLAY")) || notBlank(env.get("WAYLAND_DISPLAY"));
    }

    private static boolean notBlank(String s) {
        return s != null && !s.isBlank();
    }

    /**
     * Opens the app and blocks until its window is closed.
     *
     * @param view the view to show first ("start", "browser", "filter", "capture", "wireshark"), or null
     * @return the exit code (0)
     * @throws IllegalArgumentException for an unknown view name
     */
    public static int launch(String view) {
        if (view != null && !view.isBlank()) {
            startPage = MainView.Page.valueOf(view.strip().toUpperCase(Locale.ROOT));
        }
        if (!hasGtk3()) {
            System.err.println("tracewire: the desktop app needs GTK 3 (JavaFX's toolkit on Linux); install it with:");
            System.err.println("sudo apt-get install -y libgtk-3-0");
            return 1;
        }
        Application.launch(TracewireApp.class);
        return 0;
    }

    /** @param on fill the views with an example and start a capture on the capture page (README screenshots) */
    public static void setScreenshotMode(boolean on) {
        screenshotMode = on;
    }

    /** True in the hidden screenshot mode. */
    public static boolean screenshotMode() {
        return screenshotMode;
    }

    /**
     * Whether GTK 3 is installed (JavaFX cannot open a window without it and only says "Unable to
     * load glass GTK library"). Looks in the usual library directories.
     *
     * @return true when libgtk-3.so.0 is found
     */
    public static boolean hasGtk3() {
        for (String dir : new String[] {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
                "/lib/x86_64-linux-gnu", "/usr/local/lib"}) {
            if (Files.exists(Path.of(dir, "libgtk-3.so.0"))) {
                return true;
            }
        }
        return false;
    }

    /** The page shown first. */
    public static MainView.Page startPage() {
        return startPage;
    }

    /** @param dir config directory to use instead of ~/.config/tracewire (tests) */
    public static void setConfigDir(Path dir) {
        configDir = dir;
    }

    /** The config directory override, or null. */
    public static Path configDir() {
        return configDir;
    }

    /** The snapshot directory: {@code -Dtracewire.snapshot}, else {@code snapshots/linux-6.18} upwards from here. */
    public static Path snapshotDir() {
        String p = System.getProperty("tracewire.snapshot");
        if (p != null && Files.isDirectory(Path.of(p))) {
            return Path.of(p);
        }
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            Path s = dir.resolve("snapshots/linux-6.18");
            if (Files.isDirectory(s)) {
                return s;
            }
            dir = dir.getParent();
        }
        return Path.of("snapshots/linux-6.18");
    }
}
