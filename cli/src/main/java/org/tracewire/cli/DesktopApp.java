package org.tracewire.cli;

import java.nio.file.Path;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The desktop app as the command line sees it: {@code ./tracewire} with no subcommand and a
 * display opens it. The app module provides the implementation through {@link ServiceLoader}
 * ({@code META-INF/services/org.tracewire.cli.DesktopApp}), so this module needs no GUI library
 * and runs without one.
 */
public interface DesktopApp {
    /**
     * Opens the app and blocks until its window is closed.
     *
     * @param view           the view shown first ("start", "browser", "filter", "capture",
     *                       "wireshark", "timeline", "latency", "histogram", "query", "iograph"), or null for the start page
     * @param screenshotMode fill the views with an example (the README's screenshots)
     * @return the exit code: 0, or 1 when the app cannot open (reason on stderr)
     * @throws IllegalArgumentException for an unknown view name
     */
    int launch(String view, boolean screenshotMode);

    /**
     * Opens the app with a recorded capture and blocks until its window is closed.
     *
     * @param view           as {@link #launch(String, boolean)}
     * @param screenshotMode as {@link #launch(String, boolean)}
     * @param file           a pcapng of tracewire frames or a trace.dat to open (checked to exist), or null
     * @return the exit code
     * @throws IllegalArgumentException for an unknown view name
     */
    default int launch(String view, boolean screenshotMode, Path file) {
        if (file != null) {
            throw new UnsupportedOperationException("this desktop app cannot open files");
        }
        return launch(view, screenshotMode);
    }

    /**
     * The desktop app on the class path.
     *
     * @return the first provider found, or empty when no app module is on the class path
     */
    static Optional<DesktopApp> find() {
        return ServiceLoader.load(DesktopApp.class).findFirst();
    }
}
