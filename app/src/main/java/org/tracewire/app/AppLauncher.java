package org.tracewire.app;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import javafx.application.Application;
import org.tracewire.app.main.MainView;
import org.tracewire.cli.DesktopApp;

/**
 * Starts the desktop app from the command line: {@code org.tracewire.cli.Main} with no
 * subcommand and a display finds this class as its {@link DesktopApp} through
 * {@code META-INF/services}. Not itself an {@link Application}, so the launcher's main class
 * works with JavaFX on the plain class path.
 */
public final class AppLauncher implements DesktopApp {
    private static volatile MainView.Page startPage = MainView.Page.START;
    private static volatile boolean screenshotMode;
    private static volatile Path openFile;

    /** For {@link java.util.ServiceLoader}. */
    public AppLauncher() {
    }

    /**
     * Opens the app and blocks until its window is closed.
     *
     * @param view           the view to show first ("start", "browser", "filter", "capture", "wireshark", "timeline", "latency", "histogram", "query", "iograph"), or null
     * @param screenshotMode fill the views with an example and start a capture on the capture page (README screenshots)
     * @return the exit code: 0, or 1 when GTK 3 is missing (the apt line on stderr)
     * @throws IllegalArgumentException for an unknown view name
     */
    @Override
    public int launch(String view, boolean screenshotMode) {
        return launch(view, screenshotMode, null);
    }

    /**
     * Opens the app, optionally with a recorded capture, and blocks until its window is closed.
     *
     * @param view           as {@link #launch(String, boolean)}
     * @param screenshotMode as {@link #launch(String, boolean)}
     * @param file           a pcapng of tracewire frames or a trace.dat to open at start, or null
     * @return the exit code
     */
    @Override
    public int launch(String view, boolean screenshotMode, Path file) {
        openFile = file;
        startPage = firstPage(view, file);
        AppLauncher.screenshotMode = screenshotMode;
        if (!hasGtk3()) {
            System.err.println("tracewire: the desktop app needs GTK 3 (JavaFX's toolkit on Linux); install it with:");
            System.err.println("sudo apt-get install -y libgtk-3-0");
            return 1;
        }
        Application.launch(TracewireApp.class);
        return 0;
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

    /** The file given with {@code --open}, or null. */
    public static Path openFile() {
        return openFile;
    }

    /**
     * The page the window opens on: the one asked for, else the events of a file given with
     * {@code --open} (the capture view), else the start page.
     *
     * @param view a view name as {@link #launch(String, boolean)} takes it, or null / blank
     * @param file the file to open, or null
     * @return the page
     * @throws IllegalArgumentException for an unknown view name
     */
    public static MainView.Page firstPage(String view, Path file) {
        if (view != null && !view.isBlank()) {
            return MainView.Page.valueOf(view.strip().toUpperCase(Locale.ROOT));
        }
        return file != null ? MainView.Page.CAPTURE : MainView.Page.START;
    }

    /** The page shown first. */
    public static MainView.Page startPage() {
        return startPage;
    }
}
