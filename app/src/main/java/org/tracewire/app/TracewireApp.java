package org.tracewire.app;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javafx.animation.PauseTransition;
import javafx.application.Platform;
import javafx.collections.ListChangeListener;
import javafx.scene.Scene;
import javafx.stage.Screen;
import javafx.stage.Stage;
import javafx.util.Duration;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.main.MainView;
import org.tracewire.app.main.MainViewModel;
import org.tracewire.app.main.ScreenshotScript;
import org.tracewire.app.main.TimingTour;
import org.tracewire.app.session.SessionStore;
import org.tracewire.app.session.WindowState;
import org.tracewire.app.util.BackgroundThreads;
import org.tracewire.app.util.FxTaskExecutor;
import org.tracewire.app.util.Icons;
import org.tracewire.app.util.StallMonitor;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.app.wireshark.WiresharkViewModel;
import org.tracewire.dissector.DissectorGenerator;
import org.tracewire.protocol.BackendClient;
import org.tracewire.protocol.BackendException;
import org.tracewire.protocol.BackendLauncher;
import org.tracewire.protocol.Messages;
import org.tracewire.store.StoreCache;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsLocator;

/**
 * The desktop app's window and its lifetime, opened by {@link AppLauncher} on the JavaFX thread:
 * builds the view models and the main view, restores the window, browses the live tracefs when
 * readable (root) or else the checked-in snapshot, read only, and opens the file asked for.
 */
public final class TracewireApp {
    /**
     * What the command line asked for.
     *
     * @param startPage      the page shown first
     * @param screenshotMode fill the views with an example (the README's screenshots)
     * @param openFile       a recorded capture to open, or null
     * @param capture        a capture to start at once ({@code --capture}), or null
     */
    public record Options(MainView.Page startPage, boolean screenshotMode, Path openFile, Capture capture) {
    }

    /**
     * A capture started from the command line, as Start on the capture view starts one, into a
     * pcapng only (no TAP interface).
     *
     * @param events  the events, without filters
     * @param seconds stop after this many seconds, 0 to run until Stop
     * @param pcapng  the file to write, null for a new one in the cache's {@code live} folder
     */
    public record Capture(List<EventSelection> events, double seconds, Path pcapng) {
    }

    private final Options options;
    private TaskExecutor executor;
    private MainViewModel vm;
    private MainView view;

    /**
     * @param options what the command line asked for
     */
    public TracewireApp(Options options) {
        this.options = options;
    }

    /**
     * Fills the stage and shows it (JavaFX thread).
     *
     * @param stage the window
     */
    public void start(Stage stage) {
        executor = new FxTaskExecutor();
        Map<String, String> env = System.getenv();
        SessionStore store = new SessionStore(SessionStore.defaultConfigDir(env));
        vm = createViewModel(executor, store, env);
        if (options.openFile() != null) {
            vm.capture().prepareStore(options.openFile()); // its child starts while the window is made
        }
        view = new MainView(vm, options.startPage());
        Scene scene = new Scene(view);
        stage.setScene(scene);
        stage.titleProperty().bind(vm.titleProperty());
        stage.getIcons().setAll(Icons.appIcons());
        restore(stage, store.windowState());
        stage.setOnCloseRequest(e -> {
            saveWindow(stage, store);
            try {
                vm.rememberSession();
            } catch (IOException ex) {
                System.err.println("tracewire: cannot remember the session: " + ex.getMessage());
            }
        });
        view.show(options.startPage());
        if (options.screenshotMode()) {
            ScreenshotScript.run(vm, options.startPage(), options.openFile() != null);
        }
        vm.browser().load(tracefs());
        if (!options.screenshotMode() && options.capture() == null) {
            vm.restoreLastSession(restored -> { });
        }
        stage.show();
        if (env.containsKey("TRACEWIRE_TIMING")) {
            timing(vm);
            if ("histogram".equals(env.get("TRACEWIRE_TIMING_VIEW"))) {
                growthTiming(vm, view);
            }
            if ("tour".equals(env.get("TRACEWIRE_TIMING"))) {
                TimingTour.start(vm, view);
            }
        }
        if (options.openFile() != null) {
            vm.openFile(options.openFile());
        }
        if (options.capture() != null) {
            startCapture(vm, options.capture());
        }
    }

    /** {@code --capture}: fills the capture page and starts it; stops it after the duration. */
    private static void startCapture(MainViewModel vm, Capture c) {
        var capture = vm.capture();
        capture.getEvents().setAll(c.events());
        capture.ifaceProperty().set("");
        capture.pcapngProperty().set(c.pcapng() == null ? "" : c.pcapng().toString());
        if (c.seconds() > 0) {
            PauseTransition stop = new PauseTransition(Duration.seconds(c.seconds()));
            stop.setOnFinished(e -> capture.stop());
            capture.runningProperty().addListener((o, was, running) -> {
                if (running) {
                    stop.playFromStart();
                }
            });
        }
        capture.start();
    }

    /**
     * {@code TRACEWIRE_TIMING=1}: milestones of opening a file or of a live capture on standard
     * error, in ms since the JVM started (window shown, an opened file's first rows, each capture
     * status, capture started and stopped with the kernel's counts, a live capture's table over its
     * store's first commit, store ready with its count, first page of the store's table on screen),
     * and the JavaFX thread's longest stall ({@link StallMonitor}: at store ready and at exit), for
     * scripts/bench-app-open.sh and scripts/bench-app-live.sh; {@code TRACEWIRE_TIMING=tour} goes on
     * through every view ({@link org.tracewire.app.main.TimingTour}).
     */
    private static void timing(MainViewModel vm) {
        long start = ManagementFactory.getRuntimeMXBean().getStartTime();
        // the process's CPU time beside the wall clock: a figure that a loaded machine moves less
        var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Consumer<String> say = what -> System.err.println("timing: " + what + " +"
                + (System.currentTimeMillis() - start) + " ms (cpu " + os.getProcessCpuTime() / 1_000_000 + " ms)");
        say.accept("window shown");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long fxThread = Thread.currentThread().getId();
        StallMonitor stalls = new StallMonitor(Platform::runLater, System::nanoTime,
                () -> Math.max(0, threads.getThreadCpuTime(fxThread)), 250)
                .sampleOver(Thread.currentThread(), 150, line -> say.accept("[GC so far " + ManagementFactory.getGarbageCollectorMXBeans().stream()
                        .mapToLong(GarbageCollectorMXBean::getCollectionTime).sum() + " ms] " + line)).start(50);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> say.accept("exit: " + stalls.summary())));
        timingCapture(vm, say, stalls);
        boolean[] once = new boolean[3];
        vm.capture().getRows().addListener((ListChangeListener<Object>) c -> {
            if (!once[0] && !vm.capture().getRows().isEmpty()) {
                once[0] = true;
                say.accept("first streamed rows in the table"); // (bench-app-open.sh reads this line)
            }
        });
        whenBuilt(vm, t -> {
            if (once[1]) {
                return;
            }
            once[1] = true;
            say.accept("store ready (" + t.total() + " events); " + stalls.summary());
        });
        vm.capture().storeTableProperty().addListener((o, a, t) -> {
            if (t != null && t.growingProperty().get()) {
                say.accept("live table over the store's first commit (" + t.committedProperty().get() + " events)");
            }
            if (t != null) {
                t.rowsProperty().addListener((o2, a2, rows) -> rows.addListener((ListChangeListener<Object>) c -> {
                    if (!once[2]) {
                        once[2] = true;
                        say.accept("first page of the store's table on screen");
                    }
                }));
            }
        });
    }

    /**
     * {@link #timing}'s lines of a live capture: its start, its stop with the kernel's counts, and
     * the JavaFX thread's stalls from its start to its stop alone (the window's first show apart).
     *
     * @param stalls the JavaFX thread's one monitor (a window of it from start to stop)
     */
    private static void timingCapture(MainViewModel vm, Consumer<String> say, StallMonitor stalls) {
        StallMonitor.Window[] capturing = {null};
        // each state of the capture as the status bar says it (start, stop, a failure)
        vm.capture().statusProperty().addListener((o, was, now) -> say.accept("capture status: " + now));
        vm.capture().sourceFileProperty().addListener((o, was, file) -> {
            if (vm.capture().runningProperty().get() && file != null && !file.isEmpty()) {
                say.accept("capture started into " + file);
                capturing[0] = stalls.window();
            }
        });
        vm.capture().live().statsProperty().addListener((o, a, s) -> {
            if (s != null && !s.running() && s.cpus() != null && !s.cpus().isEmpty()) {
                long read = s.cpus().stream().mapToLong(Messages.CpuStat::records).sum();
                long lost = s.cpus().stream().mapToLong(Messages.CpuStat::lostKnown).sum();
                say.accept("capture stopped (kernel: " + read + " read, " + lost + " lost; backend: "
                        + s.events() + " events, " + s.frames() + " frames)");
                if (capturing[0] != null) {
                    capturing[0].close();
                    say.accept("during the capture: " + capturing[0].summary());
                    capturing[0] = null;
                }
            }
        });
    }

    /**
     * Calls {@code built} (UI thread) with each store table of the capture view once its store
     * holds the whole file: an opened file's when it is set, a live capture's when it stops growing.
     */
    private static void whenBuilt(MainViewModel vm, Consumer<StoreTable> built) {
        vm.capture().storeTableProperty().addListener((o, a, t) -> {
            if (t == null) {
                return;
            }
            if (!t.growingProperty().get()) {
                built.accept(t);
                return;
            }
            t.growingProperty().addListener((o2, was, growing) -> {
                if (!growing && vm.capture().storeTableProperty().get() == t) {
                    built.accept(t);
                }
            });
        });
    }

    /**
     * {@code TRACEWIRE_TIMING_VIEW=histogram} (with {@code TRACEWIRE_TIMING}): the histogram shown
     * during a live capture, and each of its refreshes over the growing store printed with how long
     * after the commit it shows (from the commit's arrival on the JavaFX thread to the status that
     * names its count); the largest and the median at store ready (scripts/bench-app-live.sh).
     */
    private static void growthTiming(MainViewModel vm, MainView view) {
        Map<Long, Long> committedAt = new HashMap<>();
        List<Long> latencies = new ArrayList<>();
        vm.capture().runningProperty().addListener((o, was, running) -> {
            if (running) {
                view.show(MainView.Page.HISTOGRAM);
            }
        });
        vm.capture().viewStoreProperty().addListener((o, a, t) -> {
            if (t != null && t.growingProperty().get()) {
                t.committedProperty().addListener((o2, a2, n) -> committedAt.put(n.longValue(), System.nanoTime()));
            }
        });
        Pattern so = Pattern.compile("^([\\d,]+) events so far — capture running");
        vm.histogram().statusProperty().addListener((o, a, text) -> {
            Matcher m = so.matcher(text == null ? "" : text);
            Long at = m.find() ? committedAt.remove(Long.parseLong(m.group(1).replace(",", ""))) : null;
            if (at != null) {
                long ms = (System.nanoTime() - at) / 1_000_000;
                latencies.add(ms);
                System.err.println("timing: histogram over " + m.group(1) + " events, " + ms + " ms after their commit");
            }
        });
        whenBuilt(vm, t -> {
            if (!latencies.isEmpty()) {
                List<Long> sorted = latencies.stream().sorted().toList();
                System.err.println("timing: histogram refreshes while capturing: " + sorted.size() + ", after the commit median "
                        + sorted.get(sorted.size() / 2) + " ms, max " + sorted.get(sorted.size() - 1) + " ms");
            }
        });
    }

    /**
     * Builds the main view model with the app's real collaborators.
     *
     * @param executor background work
     * @param store    sessions and app state
     * @param env      the environment
     * @return the view model
     */
    public static MainViewModel createViewModel(TaskExecutor executor, SessionStore store, Map<String, String> env) {
        Supplier<BackendClient> backend = () -> {
            BackendLauncher.Result r = BackendLauncher.command(Tracefs.isRoot(), env);
            if (!r.ok()) {
                throw new BackendException(r.problem());
            }
            return BackendClient.start(r.command());
        };
        MainViewModel[] self = new MainViewModel[1];
        self[0] = new MainViewModel(executor, store, byteOrder(() -> self[0] == null ? null : self[0].browser().tracefs()), backend,
                cmd -> new ProcessBuilder(cmd).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start(), env);
        MainViewModel vm = self[0];
        // an opened pcapng's table goes over its capture store: built and queried on one daemon thread
        // go to frame's lookups on a thread and connection of their own: never behind the pages the table fetches
        vm.capture().setStore(StoreCache.ofUser(env), BackgroundThreads.single("tracewire-store"),
                BackgroundThreads.single("tracewire-store-lookup"));
        // an opened file's store built by a child JVM on sql's JIT options, this one staying on C1 (0027)
        vm.capture().buildStoresInChild();
        // latency and histogram over the store: their own connections, queried on one daemon thread
        Executor stats = BackgroundThreads.single("tracewire-stats");
        vm.latency().setQueries(stats);
        vm.histogram().setQueries(stats);
        // the timeline's slices: a thread of its own, so loading them never waits behind a latency query
        vm.timeline().setQueries(BackgroundThreads.single("tracewire-timeline"));
        vm.wireshark().setGenerator(events -> {
            Tracefs t = vm.browser().tracefs();
            if (t == null) {
                throw new IllegalStateException("tracefs is still loading");
            }
            DissectorGenerator.Result r = DissectorGenerator.forTracefs(t, events);
            Path file = r.write(store.configDir().resolve("tracewire.lua"));
            return new WiresharkViewModel.Generated(file,
                    r.events() + " events, " + r.fields() + " fields");
        }, () -> vm.capture().getEvents().stream().map(EventSelection::fullName).toList());
        return vm;
    }

    /** The byte order of the tree browsed (the filter builder's BPF values); native before one is loaded. */
    static Supplier<ByteOrder> byteOrder(Supplier<Tracefs> tracefs) {
        return () -> {
            Tracefs t = tracefs.get();
            return t == null ? ByteOrder.nativeOrder() : t.byteOrder();
        };
    }

    /** The live tracefs when readable (root), else the repository's snapshot ({@link TracefsLocator}). */
    static Tracefs tracefs() {
        return TracefsLocator.resolve(null, note -> System.err.println("tracewire: " + note));
    }

    private static void restore(Stage stage, WindowState w) {
        stage.setWidth(w.width());
        stage.setHeight(w.height());
        if (!Double.isNaN(w.x()) && !Double.isNaN(w.y())
                && !Screen.getScreensForRectangle(w.x(), w.y(), Math.max(1, w.width()), Math.max(1, w.height())).isEmpty()) {
            stage.setX(w.x());
            stage.setY(w.y());
        }
        stage.setMaximized(w.maximized());
    }

    private static void saveWindow(Stage stage, SessionStore store) {
        try {
            store.saveWindowState(new WindowState(stage.getX(), stage.getY(), stage.getWidth(), stage.getHeight(),
                    stage.isMaximized()));
        } catch (IOException e) {
            System.err.println("tracewire: cannot save the window state: " + e.getMessage());
        }
    }

    /** Stops the views' work and the backend (the window was closed; JavaFX thread). */
    public void stop() {
        if (view != null) {
            view.dispose();
        }
        if (vm != null) {
            vm.capture().shutdown();
        }
        if (executor != null) {
            executor.shutdown();
        }
    }
}
