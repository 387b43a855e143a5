package org.tracewire.app.main;

import java.io.File;
import java.util.Locale;
import java.util.function.Supplier;
import javafx.animation.PauseTransition;
import javafx.beans.binding.Bindings;
import javafx.beans.value.ChangeListener;
import javafx.beans.value.ObservableValue;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.Separator;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCombination;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.Region;
import javafx.stage.FileChooser;
import javafx.stage.Stage;
import javafx.stage.WindowEvent;
import javafx.util.Duration;
import org.controlsfx.control.StatusBar;
import org.tracewire.app.browser.BrowserView;
import org.tracewire.app.capture.CaptureView;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.capture.StoreTableView;
import org.tracewire.app.filter.FilterBuilderView;
import org.tracewire.app.histogram.HistogramView;
import org.tracewire.app.iograph.IoGraphView;
import org.tracewire.app.latency.LatencyView;
import org.tracewire.app.query.QueryView;
import org.tracewire.app.timeline.TimelineView;
import org.tracewire.app.wireshark.WiresharkView;

/** The main window's content: a menu bar, tabs for the start page and the views, a status bar, notifications. */
public final class MainView extends BorderPane {
    /** The last notice, over the views' bottom right while {@link #noticeShown} runs. */
    private final Label notice = new Label();
    private final PauseTransition noticeShown = new PauseTransition(Duration.seconds(6));
    /** The views by name, for {@code --view}. */
    public enum Page {
        /** The start page. */
        START,
        /** The tracefs browser. */
        BROWSER,
        /** The filter builder. */
        FILTER,
        /** The capture view. */
        CAPTURE,
        /** The Wireshark view. */
        WIRESHARK,
        /** The timeline (CPU and task lanes). */
        TIMELINE,
        /** Latencies (pairs and their histogram). */
        LATENCY,
        /** Histograms (hist-trigger aggregates). */
        HISTOGRAM,
        /** SQL over the opened capture's store. */
        QUERY,
        /** Events per interval (Wireshark's I/O graph). */
        IOGRAPH
    }

    private final TabPane tabs = new TabPane();
    private final CaptureView capture;
    private final Tab timeline;
    /** The timeline's view, once its tab was first shown. */
    private TimelineView timelineView;

    /** @param vm the main view model (the start page shown first) */
    public MainView(MainViewModel vm) {
        this(vm, Page.START);
    }

    /**
     * @param vm    the main view model
     * @param first the page shown first: the start page is made when first shown, as the views
     *              are, so a window opened on a file styles and lays out only what it shows
     */
    public MainView(MainViewModel vm, Page first) {
        setId("main-view");
        tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        Tab start = new Tab("Start");
        Tab browser = new Tab("Browser");
        Tab filter = new Tab("Filter builder");
        Tab captureTab = new Tab("Capture");
        Tab wireshark = new Tab("Wireshark");
        lazy(browser, () -> new BrowserView(vm.browser(), vm::addSelectedToCapture,
                () -> tabs.getSelectionModel().select(filter)));
        lazy(filter, () -> new FilterBuilderView(vm.filter(), () -> {
            vm.useFilterInCapture();
            tabs.getSelectionModel().select(captureTab);
        }));
        capture = new CaptureView(vm.capture());
        captureTab.setContent(capture);
        lazy(wireshark, () -> new WiresharkView(vm.wireshark()));
        tabs.getTabs().addAll(start, browser, filter, captureTab, wireshark);
        Tab timeline = new Tab("Timeline");
        this.timeline = timeline;
        lazy(timeline, () -> {
            timelineView = new TimelineView(vm.timeline());
            return timelineView;
        });
        Tab latency = new Tab("Latency");
        lazy(latency, () -> new LatencyView(vm.latency()));
        Tab histogram = new Tab("Histogram");
        lazy(histogram, () -> new HistogramView(vm.histogram()));
        tabs.getTabs().addAll(timeline, latency, histogram);
        Tab query = new Tab("Query");
        lazy(query, () -> new QueryView(vm.query()));
        Tab ioGraph = new Tab("I/O graph");
        lazy(ioGraph, () -> new IoGraphView(vm.ioGraph()));
        tabs.getTabs().addAll(query, ioGraph);
        show(first);
        lazy(start, () -> new StartView(vm, () -> tabs.getSelectionModel().select(browser),
                () -> tabs.getSelectionModel().select(captureTab)));
        // a view over the store queries it once shown, not all of them at once when it is ready
        vm.timeline().shownProperty().bind(timeline.selectedProperty());
        vm.latency().shownProperty().bind(latency.selectedProperty());
        vm.histogram().shownProperty().bind(histogram.selectedProperty());
        vm.query().shownProperty().bind(query.selectedProperty());
        vm.ioGraph().shownProperty().bind(ioGraph.selectedProperty());
        linkViews(vm, captureTab, filter);
        setCenter(tabs);
        notice();
        setTop(menuBar(vm, captureTab));
        setBottom(statusBar(vm));
        vm.noticeProperty().addListener((o, a, n) -> {
            if (n != null) {
                showNotice(n);
            }
        });
    }

    /** The notice over the views' bottom right, hidden until {@link #showNotice}. */
    private void notice() {
        notice.setId("notice");
        notice.setVisible(false);
        notice.setMouseTransparent(true);
        notice.setWrapText(true);
        notice.setMaxWidth(420);
        notice.setManaged(false); // placed by layoutChildren over the views' bottom right
        noticeShown.setOnFinished(e -> notice.setVisible(false));
        getChildren().add(notice);
    }

    /** Where the views send the user: to a frame of the capture's table, to Wireshark, to the filter builder. */
    private void linkViews(MainViewModel vm, Tab captureTab, Tab filter) {
        vm.query().setOnShowTable(() -> tabs.getSelectionModel().select(captureTab));
        vm.ioGraph().setGoToFrame(f -> {
            capture.storePane().showFrame(f);
            tabs.getSelectionModel().select(captureTab);
        });
        vm.timeline().setGoToFrame(f -> capture.storePane().showFrame(f));
        capture.setShowInWireshark((file, frame) -> vm.wireshark().showFrame(file, frame));
        vm.latency().setNavigator(frame -> showFrame(vm, captureTab, frame));
        capture.setEditFilter(spec -> {
            if (vm.editCaptureFilter(spec)) {
                tabs.getSelectionModel().select(filter);
            }
        });
    }

    /**
     * The status bar (ControlsFX): the last message on the left after the tracefs source; the
     * backend's state, events and lost events on the right, lost highlighted when some were. The
     * message is the part that is cut when the window is narrow.
     */
    private StatusBar statusBar(MainViewModel vm) {
        StatusBar bar = new StatusBar();
        bar.setId("status-bar");
        bar.textProperty().bind(vm.messageProperty());
        Label source = new Label();
        source.setId("status-source");
        source.textProperty().bind(vm.browser().sourceLabelProperty());
        source.setTooltip(new Tooltip("What the browser reads: the live tracefs (root) or the checked-in snapshot"));
        bar.getLeftItems().addAll(source, new Separator(Orientation.VERTICAL));
        var c = vm.capture();
        Label backend = new Label();
        backend.setId("status-backend");
        backend.textProperty().bind(c.backendStateProperty());
        backend.setTooltip(new Tooltip("The privileged capture backend: started by the first capture"));
        Label events = new Label();
        events.setId("status-events");
        events.textProperty().bind(c.eventsStatus());
        Label lost = new Label();
        lost.setId("status-lost");
        lost.textProperty().bind(Bindings.createStringBinding(
                () -> String.format("%,d lost", c.lostProperty().get()), c.lostProperty()));
        lost.styleProperty().bind(Bindings.when(c.lostProperty().greaterThan(0))
                .then("-fx-text-fill: white; -fx-background-color: #c62828; -fx-padding: 0 6 0 6; -fx-font-weight: bold;")
                .otherwise(""));
        lost.setTooltip(new Tooltip("Events the kernel dropped because the ring buffer was full "
                + "(a bigger buffer or fewer events helps)"));
        bar.getRightItems().addAll(backend, new Separator(Orientation.VERTICAL),
                events, new Separator(Orientation.VERTICAL), lost);
        // the source and the counters keep their width: the message beside them is cut instead
        for (Label l : new Label[] {source, backend, events, lost}) {
            l.setMinWidth(Region.USE_PREF_SIZE);
        }
        bar.progressProperty().bind(Bindings.when(c.busyProperty()).then(-1.0).otherwise(0.0));
        return bar;
    }

    /**
     * Shows a notice at the bottom right of the views for a few seconds: a label in the window's own
     * scene, not a popup window (ControlsFX Notifications opened one at each notice, and its first
     * resize waited for the render lock: a 266-ms JavaFX stall 0.4 s after a live capture's Stop).
     */
    private void showNotice(MainViewModel.Notice n) {
        notice.setText(n.text());
        notice.setStyle((n.warning() ? "-fx-background-color: #fff3e0; -fx-border-color: #e65100;"
                : "-fx-background-color: #f5f5f5; -fx-border-color: #9e9e9e;")
                + " -fx-padding: 8 12 8 12; -fx-border-width: 1;");
        notice.setVisible(true);
        noticeShown.playFromStart();
    }

    /** Lays out the bars and the views, then the notice over the views' bottom right corner. */
    @Override
    protected void layoutChildren() {
        super.layoutChildren();
        notice.autosize();
        notice.relocate(tabs.getLayoutX() + tabs.getWidth() - notice.getWidth() - 12,
                tabs.getLayoutY() + tabs.getHeight() - notice.getHeight() - 12);
    }

    private MenuBar menuBar(MainViewModel vm, Tab captureTab) {
        MenuItem open = menuItem("Open capture…", "menu-open", "Shortcut+O", () -> {
            FileChooser fc = new FileChooser();
            fc.setTitle("Open a capture");
            fc.getExtensionFilters().addAll(
                    new FileChooser.ExtensionFilter("Captures (pcapng, trace.dat)", "*.pcapng", "*.dat"),
                    new FileChooser.ExtensionFilter("All files", "*"));
            File f = fc.showOpenDialog(getScene() == null ? null : getScene().getWindow());
            if (f != null) {
                vm.openFile(f.toPath());
                tabs.getSelectionModel().select(captureTab);
            }
        });
        MenuItem quit = menuItem("Quit", "menu-quit", "Shortcut+Q", () -> {
            if (getScene() != null && getScene().getWindow() != null) {
                getScene().getWindow().fireEvent(new WindowEvent(getScene().getWindow(),
                        WindowEvent.WINDOW_CLOSE_REQUEST));
                ((Stage) getScene().getWindow()).close();
            }
        });
        Menu file = new Menu("_File", null, open,
                new SeparatorMenuItem(), quit);
        MenuItem find = menuItem("Find in events", "menu-find", "Shortcut+F", () -> {
            tabs.getSelectionModel().select(captureTab);
            capture.showFind();
        });
        MenuItem delete = menuItem("Remove capture event", "menu-delete", "Delete", () -> {
            if (!capture.removeSelectedEvent()) {
                vm.messageProperty().set("select an event in the capture's event list to remove it");
            }
        });
        MenuItem goTo = menuItem("Go to frame…", "menu-goto", "Shortcut+G", () -> {
            tabs.getSelectionModel().select(captureTab);
            if (capture.storePane().isVisible()) {
                capture.storePane().goToFrame();
            } else {
                vm.messageProperty().set("go to frame: for an opened pcapng, once its store is ready (the table over every event)");
            }
        });
        Menu edit = new Menu("_Edit", null, find, goTo, delete);
        Menu view = new Menu("_View");
        for (Page p : Page.values()) {
            String name = tabs.getTabs().get(p.ordinal()).getText();
            view.getItems().add(menuItem(name, "menu-view-" + p.name().toLowerCase(Locale.ROOT),
                    p.ordinal() < 9 ? "Shortcut+" + (p.ordinal() + 1) : null, () -> show(p)));
        }
        MenuBar bar = new MenuBar(file, edit, view);
        bar.setId("menu-bar");
        return bar;
    }

    private static MenuItem menuItem(String text, String id, String accelerator, Runnable action) {
        MenuItem m = new MenuItem(text);
        m.setId(id);
        if (accelerator != null) {
            m.setAccelerator(KeyCombination.keyCombination(accelerator));
        }
        m.setOnAction(e -> action.run());
        return m;
    }

    /** Shows a frame's row in the event table over the store (the latency view's "go to its frame"). */
    private void showFrame(MainViewModel vm, Tab captureTab, long frame) {
        StoreTable t = vm.capture().storeTableProperty().get();
        if (t == null) {
            return;
        }
        tabs.getSelectionModel().select(captureTab);
        capture.storePane().showFrame(frame); // as Go to frame does
    }

    /** The event table over the store (the app's {@code TRACEWIRE_TIMING=tour}). */
    public StoreTableView storePane() {
        return capture.storePane();
    }

    /**
     * A tab whose content is made when the tab is first selected: the window shows sooner (each
     * view's controls, skins and CSS cost the JavaFX thread time at start-up), and a view never
     * shown costs nothing. The view models exist from the start; a view binds to its model when made.
     */
    private static void lazy(Tab tab, Supplier<Node> content) {
        if (tab.isSelected()) {
            tab.setContent(content.get());
            return;
        }
        ChangeListener<Boolean> first = new ChangeListener<>() {
            @Override
            public void changed(ObservableValue<? extends Boolean> o, Boolean was, Boolean selected) {
                if (selected && tab.getContent() == null) {
                    tab.selectedProperty().removeListener(this);
                    tab.setContent(content.get());
                }
            }
        };
        tab.selectedProperty().addListener(first);
    }

    /** The timeline's canvas view (the app's {@code TRACEWIRE_TIMING=tour}); shows its tab first. */
    public TimelineView timelineView() {
        if (timelineView == null) {
            tabs.getSelectionModel().select(timeline);
        }
        return timelineView;
    }

    /** @param page the view to show */
    public void show(Page page) {
        tabs.getSelectionModel().select(page.ordinal());
    }

    /** Stops the capture view's pulse. */
    public void dispose() {
        capture.dispose();
        if (timelineView != null) {
            timelineView.dispose();
        }
    }
}
