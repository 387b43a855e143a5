package org.tracewire.app.main;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import javafx.animation.PauseTransition;
import javafx.application.Platform;
import javafx.beans.value.ChangeListener;
import javafx.beans.value.ObservableValue;
import javafx.collections.ListChangeListener;
import javafx.util.Duration;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.capture.StoreTableView;

/**
 * {@code TRACEWIRE_TIMING=tour} (with {@code --open FILE.pcapng}): once the store's table shows its
 * first page, goes through what issue 34's acceptance times and prints each figure on standard
 * error as {@code timing: ...} lines (the benchmark {@code scripts/bench-app-open.sh}):
 * <ol>
 * <li>go to frame: the event table's Go to frame ({@link StoreTableView#showFrame}) of frames
 *     spread over the file, each timed from the call (the table shown and idle) to the end of the
 *     layout pulse after the row is selected and scrolled to (while the views that load on their
 *     own, the timeline, load; and again at the end of the tour, every view computed);</li>
 * <li>every view over the store in turn (timeline, latency, histogram, I/O graph, query: its tab
 *     selected, as a user would), each timed until it shows its result, with the Java heap used and
 *     the process's RSS then;</li>
 * <li>timeline redraws: the canvas's whole redraw ({@link org.tracewire.app.timeline.TimelineView#setOnDrawn})
 *     with the whole capture in view and at 1/100, 1/10,000 and 1/1,000,000 of it.</li>
 * </ol>
 * A view that shows nothing within {@value #LIMIT_S} s is reported as not complete and the tour
 * goes on. Only view-model calls and tab selections, as {@link ScreenshotScript}.
 */
public final class TimingTour {
    /** Seconds a view may take before the tour reports it incomplete and goes on. */
    static final int LIMIT_S = 300;
    /** Milliseconds between showing the table, its selection cleared, and a timed go to frame. */
    static final int SETTLE_MS = 300;
    private static final double[] ZOOMS = {1, 1e-2, 1e-4, 1e-6};
    private static final double[] FRAMES = {0.5, 0.999, 0.01, 0.25, 0.75, 0.1};

    private final MainViewModel vm;
    private final MainView view;
    private final List<Runnable> steps = new ArrayList<>();

    private TimingTour(MainViewModel vm, MainView view) {
        this.vm = vm;
        this.view = view;
    }

    /**
     * Starts the tour once the opened file's store table shows its first page (UI thread).
     *
     * @param vm   the main view model
     * @param view the main view
     */
    public static void start(MainViewModel vm, MainView view) {
        TimingTour tour = new TimingTour(vm, view);
        vm.capture().storeTableProperty().addListener(new ChangeListener<>() {
            @Override
            public void changed(ObservableValue<? extends StoreTable> o, StoreTable a, StoreTable t) {
                if (t == null) {
                    return;
                }
                vm.capture().storeTableProperty().removeListener(this);
                boolean[] begun = {false};
                Runnable check = () -> {
                    var rows = t.rowsProperty().get();
                    if (!begun[0] && rows != null && !rows.isEmpty() && rows.get(0) != StoreTable.LOADING) {
                        begun[0] = true;
                        tour.begin(t);
                    }
                };
                t.rowsProperty().addListener((o2, a2, rows) -> {
                    rows.addListener((ListChangeListener<Object>) c -> Platform.runLater(check));
                    Platform.runLater(check);
                });
                Platform.runLater(check);
            }
        });
    }

    private static void say(String what) {
        System.err.println("timing: " + what);
    }

    private void begin(StoreTable t) {
        long total = t.total();
        for (double f : FRAMES) {
            steps.add(() -> goToFrame(Math.max(1, (long) (f * total) + 200), ""));
        }
        view(MainView.Page.TIMELINE, "timeline", vm.timeline().slicesProperty(), s -> s != null);
        steps.add(this::zooms);
        view(MainView.Page.LATENCY, "latency", vm.latency().summaryProperty(), s -> s != null);
        view(MainView.Page.HISTOGRAM, "histogram", vm.histogram().tableProperty(), s -> s != null);
        view(MainView.Page.IOGRAPH, "I/O graph", vm.ioGraph().graphProperty(), s -> s != null);
        steps.add(() -> {
            long t0 = System.nanoTime();
            view.show(MainView.Page.QUERY);
            waitFor(vm.query().availableProperty(), ok -> ok, "query", () -> {
                vm.query().sqlProperty().set("SELECT event, count(*) AS n FROM events GROUP BY event ORDER BY n DESC");
                vm.query().run();
                waitFor(vm.query().resultProperty(), r -> r != null, "query", () -> {
                    say(String.format("view query complete in %d ms (a GROUP BY over every event)%s", ms(t0), memory()));
                    next();
                });
            });
        });
        for (double f : FRAMES) { // again with every view computed: nothing else runs on the store
            steps.add(() -> goToFrame(Math.max(1, (long) (f * total) + 300), " (again, every view computed)"));
        }
        steps.add(() -> {
            view.show(MainView.Page.CAPTURE);
            say("tour done" + memory());
        });
        next();
    }

    private void next() {
        if (!steps.isEmpty()) {
            Platform.runLater(steps.remove(0));
        }
    }

    /** Selects a view's tab and times it until {@code done} holds for its result. */
    private <T> void view(MainView.Page page, String name, ObservableValue<T> result, Predicate<T> done) {
        steps.add(() -> {
            long t0 = System.nanoTime();
            view.show(page);
            waitFor(result, done, name, () -> {
                say(String.format("view %s complete in %d ms%s", name, ms(t0), memory()));
                next();
            });
        });
    }

    /**
     * Go to frame as the table's box does it, timed to the layout pulse that shows the row: from a
     * table shown with nothing selected and its UI idle (the tab switch and the selection's clearing
     * done {@value #SETTLE_MS} ms before), as a user's Enter in the box finds it.
     */
    private void goToFrame(long frame, String when) {
        view.show(MainView.Page.CAPTURE);
        view.storePane().table().getSelectionModel().clearSelection();
        PauseTransition settle = new PauseTransition(Duration.millis(SETTLE_MS));
        settle.setOnFinished(e -> timedGoToFrame(frame, when));
        settle.play();
    }

    private void timedGoToFrame(long frame, String when) {
        StoreTableView pane = view.storePane();
        StoreTable t = vm.capture().storeTableProperty().get();
        long t0 = System.nanoTime();
        long[] found = {0};
        boolean[] over = {false};
        ChangeListener<String> message = (o, a, b) -> found[0] = System.nanoTime();
        t.messageProperty().addListener(message);
        ChangeListener<Number> selected = new ChangeListener<>() {
            @Override
            public void changed(ObservableValue<? extends Number> o, Number a, Number row) {
                pane.table().getSelectionModel().selectedIndexProperty().removeListener(this);
                over[0] = true;
                long selectedAt = System.nanoTime();
                Runnable[] pulse = new Runnable[1];
                pulse[0] = () -> {
                    pane.getScene().removePostLayoutPulseListener(pulse[0]);
                    t.messageProperty().removeListener(message);
                    say(String.format("go to frame %,d%s: row %,d found in %d ms, selected in %d, shown in %d ms", frame, when,
                            pane.rows().selectedRow() + 1, (found[0] - t0) / 1_000_000, (selectedAt - t0) / 1_000_000, ms(t0)));
                    next();
                };
                pane.getScene().addPostLayoutPulseListener(pulse[0]);
                Platform.requestNextPulse();
            }
        };
        pane.table().getSelectionModel().selectedIndexProperty().addListener(selected);
        pane.showFrame(frame);
        PauseTransition limit = new PauseTransition(Duration.seconds(10));
        limit.setOnFinished(e -> {
            if (!over[0]) {
                over[0] = true;
                pane.table().getSelectionModel().selectedIndexProperty().removeListener(selected);
                t.messageProperty().removeListener(message);
                say(String.format("go to frame %,d: no row after 10 s (%s)", frame, vm.capture().storeTableProperty().get()
                        .messageProperty().get()));
                next();
            }
        });
        limit.play();
    }

    /** Timeline redraws at each zoom: three redraws each, the canvas's whole draw timed. */
    private void zooms() {
        var tl = vm.timeline();
        List<Long> times = new ArrayList<>();
        int[] at = {0};
        Runnable[] step = new Runnable[1];
        view.timelineView().setOnDrawn(ns -> {
            if (at[0] >= ZOOMS.length * 3) {
                return;
            }
            times.add(ns);
            int z = at[0]++;
            if (z % 3 == 2) {
                say(String.format("timeline redraw at zoom %s: %.1f, %.1f, %.1f ms", ZOOMS[z / 3] == 1 ? "1 (all)"
                                : "1/" + Math.round(1 / ZOOMS[z / 3]), times.get(z - 2) / 1e6, times.get(z - 1) / 1e6,
                        times.get(z) / 1e6));
            }
            Platform.runLater(step[0]);
        });
        step[0] = () -> {
            if (at[0] >= ZOOMS.length * 3) {
                view.timelineView().setOnDrawn(ns -> { });
                next();
                return;
            }
            double z = ZOOMS[at[0] / 3];
            double from = 1 / 3.0 + (at[0] % 3) * z / 7; // a little further each time: a new draw
            tl.fit();
            tl.zoomTo(z == 1 ? 0 : from, z == 1 ? 1 - (at[0] % 3 + 1) * 1e-3 : from + z);
        };
        Platform.runLater(step[0]);
    }

    /** Runs {@code then} once {@code ok} holds for the value (now or later), or reports after {@value #LIMIT_S} s. */
    private <T> void waitFor(ObservableValue<T> v, Predicate<T> ok, String what, Runnable then) {
        if (ok.test(v.getValue())) {
            then.run();
            return;
        }
        boolean[] done = {false};
        ChangeListener<T> l = new ChangeListener<>() {
            @Override
            public void changed(ObservableValue<? extends T> o, T a, T b) {
                if (!done[0] && ok.test(b)) {
                    done[0] = true;
                    v.removeListener(this);
                    then.run();
                }
            }
        };
        v.addListener(l);
        PauseTransition limit = new PauseTransition(Duration.seconds(LIMIT_S));
        limit.setOnFinished(e -> {
            if (!done[0]) {
                done[0] = true;
                v.removeListener(l);
                say(what + " not complete after " + LIMIT_S + " s" + memory());
                next();
            }
        });
        limit.play();
    }

    private static long ms(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** The Java heap used and the process's resident set now. */
    private static String memory() {
        Runtime r = Runtime.getRuntime();
        String rss = "?";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = Long.toString(Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // no /proc: the heap alone
        }
        return String.format(" (heap used %d of %d MiB, RSS %s MiB)", (r.totalMemory() - r.freeMemory()) >> 20,
                r.maxMemory() >> 20, rss);
    }
}
