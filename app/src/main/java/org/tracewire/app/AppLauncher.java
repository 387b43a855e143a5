package org.tracewire.app;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import javafx.application.Platform;
import javafx.stage.Stage;
import org.tracewire.app.main.MainView;
import org.tracewire.tracefs.EventSelection;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The desktop app's process: {@code ./tracewire} with no command, or only the app's options
 * ({@code --open FILE}, {@code --view VIEW}, {@code --capture EVENT}), and a display; the launcher starts this main class
 * on the app's own class path (core, the capture store, the dissector generator, JavaFX; no
 * command line, no capture engine: {@code LauncherClassPathTest}). Parses the options, starts the
 * JavaFX toolkit, opens the window ({@link TracewireApp}) and returns when it is closed. Not a
 * JavaFX {@code Application}, so it starts with JavaFX on the plain class path.
 *
 * <p>Exit codes: 0; 1 a file that does not exist or no GTK 3; 2 a usage error (unknown option or view).
 */
@Command(name = "tracewire", mixinStandardHelpOptions = true,
        description = "The tracewire desktop app (with a display; the commands: tracewire help).")
public final class AppLauncher implements Callable<Integer> {
    @Option(names = "--open", paramLabel = "FILE",
            description = "Open a recorded capture (a pcapng of tracewire frames, or a trace-cmd trace.dat).")
    Path open;

    @Option(names = "--view", paramLabel = "VIEW",
            description = "The view shown first: start, browser, filter, capture, wireshark, timeline, latency, histogram, query, iograph.")
    String view;

    @Option(names = "--capture", paramLabel = "EVENT",
            description = "Start a capture of EVENT (SYSTEM:EVENT, repeatable) at once, as Start on the capture view"
                    + " does, into a pcapng only (no TAP interface); needs root or the backend's privilege.")
    List<String> capture;

    @Option(names = "--duration", paramLabel = "SECONDS",
            description = "With --capture: stop the capture after SECONDS (default: run until Stop).")
    Double duration;

    @Option(names = {"-w", "--write"}, paramLabel = "FILE",
            description = "With --capture: the pcapng to write (default: a new file in the cache's live folder).")
    Path write;

    @Option(names = "--screenshot-mode", hidden = true,
            description = "Fill the views with an example (and start a capture on the capture view).")
    boolean screenshotMode;

    /** The app's main class. */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * Parses the options and opens the app; blocks until its window is closed.
     *
     * @param args the command line
     * @return the exit code
     */
    public static int run(String... args) {
        return new CommandLine(new AppLauncher()).execute(args);
    }

    @Override
    public Integer call() throws InterruptedException {
        if (open != null && !Files.isRegularFile(open)) {
            System.err.println("tracewire: " + open + ": no such file");
            return 1;
        }
        TracewireApp.Capture startCapture;
        try {
            startCapture = capture(capture, duration, write, open);
        } catch (IllegalArgumentException e) {
            System.err.println("tracewire: " + e.getMessage());
            return 2;
        }
        MainView.Page page;
        try {
            page = firstPage(view, open);
            if (startCapture != null && (view == null || view.isBlank())) {
                page = MainView.Page.CAPTURE; // the capture's events
            }
        } catch (IllegalArgumentException e) {
            System.err.println("tracewire: unknown view '" + view
                    + "' (start, browser, filter, capture, wireshark, timeline, latency, histogram, query, iograph)");
            return 2;
        }
        if (!hasGtk3()) {
            System.err.println("tracewire: the desktop app needs GTK 3 (JavaFX's toolkit on Linux); install it with:");
            System.err.println("sudo apt-get install -y libgtk-3-0");
            return 1;
        }
        TracewireApp app = new TracewireApp(new TracewireApp.Options(page, screenshotMode, open, startCapture));
        CountDownLatch closed = new CountDownLatch(1);
        Platform.setImplicitExit(false); // the toolkit ends here, after the app has stopped
        Platform.startup(() -> {
            Stage stage = new Stage();
            stage.setOnHidden(e -> {
                try {
                    app.stop();
                } finally {
                    closed.countDown();
                }
            });
            app.start(stage);
        });
        closed.await();
        Platform.exit();
        return 0;
    }

    /**
     * The capture asked for with {@code --capture}, checked.
     *
     * @param events   the events ({@code SYSTEM:EVENT}), null or empty for none
     * @param seconds  {@code --duration}, null for none
     * @param file     {@code -w}, null for a file in the cache
     * @param open     {@code --open}, which cannot go with a capture
     * @return the capture, null when none was asked for
     * @throws IllegalArgumentException naming the option that is wrong
     */
    public static TracewireApp.Capture capture(List<String> events, Double seconds, Path file, Path open) {
        if (events == null || events.isEmpty()) {
            if (seconds != null || file != null) {
                throw new IllegalArgumentException("--duration and -w go with --capture EVENT");
            }
            return null;
        }
        if (open != null) {
            throw new IllegalArgumentException("--capture and --open cannot go together");
        }
        if (seconds != null && !(seconds > 0 && seconds < 1e7)) {
            throw new IllegalArgumentException("--duration " + seconds + ": seconds above 0");
        }
        List<EventSelection> sel = new ArrayList<>();
        for (String e : events) {
            try {
                sel.add(EventSelection.parse(e, ""));
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("--capture " + e + ": " + ex.getMessage());
            }
        }
        return new TracewireApp.Capture(sel, seconds == null ? 0 : seconds,
                file == null ? null : file.toAbsolutePath());
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

    /**
     * The page the window opens on: the one asked for, else the events of a file given with
     * {@code --open} (the capture view), else the start page.
     *
     * @param view a view name as {@code --view} takes it, or null / blank
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
}
