package org.tracewire.app.main;

import javafx.geometry.Insets;
import javafx.scene.control.Label;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import org.tracewire.app.browser.BrowserView;
import org.tracewire.app.capture.CaptureView;
import org.tracewire.app.filter.FilterBuilderView;
import org.tracewire.app.wireshark.WiresharkView;

/** The main window's content: tabs for the start page and the four views, and a status bar. */
public final class MainView extends BorderPane {
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
        LATENCY
    }

    private final TabPane tabs = new TabPane();
    private final CaptureView capture;
    private final org.tracewire.app.timeline.TimelineView timelineView;

    /** @param vm the main view model */
    public MainView(MainViewModel vm) {
        setId("main-view");
        tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        Tab start = new Tab("Start");
        Tab browser = new Tab("Browser");
        Tab filter = new Tab("Filter builder");
        Tab captureTab = new Tab("Capture");
        Tab wireshark = new Tab("Wireshark");
        start.setContent(new StartView(vm, () -> tabs.getSelectionModel().select(browser),
                () -> tabs.getSelectionModel().select(captureTab)));
        browser.setContent(new BrowserView(vm.browser(), vm::addSelectedToCapture,
                () -> tabs.getSelectionModel().select(filter)));
        filter.setContent(new FilterBuilderView(vm.filter(), () -> {
            vm.useFilterInCapture();
            tabs.getSelectionModel().select(captureTab);
        }));
        capture = new CaptureView(vm.capture());
        captureTab.setContent(capture);
        wireshark.setContent(new WiresharkView(vm.wireshark()));
        tabs.getTabs().addAll(start, browser, filter, captureTab, wireshark);
        Tab timeline = new Tab("Timeline");
        timelineView = new org.tracewire.app.timeline.TimelineView(vm.timeline());
        timeline.setContent(timelineView);
        Tab latency = new Tab("Latency");
        latency.setContent(new org.tracewire.app.latency.LatencyView(vm.latency()));
        tabs.getTabs().addAll(timeline, latency);
        setCenter(tabs);
        Label source = new Label();
        source.setId("status-source");
        source.textProperty().bind(vm.browser().sourceLabelProperty());
        Label message = new Label();
        message.setId("status-message");
        message.textProperty().bind(vm.messageProperty());
        HBox status = new HBox(24, source, message);
        status.setPadding(new Insets(3, 8, 3, 8));
        status.setStyle("-fx-background-color: #e8edf3;");
        setBottom(status);
    }

    /** @param page the view to show */
    public void show(Page page) {
        tabs.getSelectionModel().select(page.ordinal());
    }

    /** Stops the capture view's pulse. */
    public void dispose() {
        capture.dispose();
        timelineView.dispose();
    }
}
