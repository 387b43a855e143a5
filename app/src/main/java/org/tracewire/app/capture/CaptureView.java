package org.tracewire.app.capture;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import javafx.animation.AnimationTimer;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableView;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.input.KeyEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import org.tracewire.tracefs.EventSelection;

/**
 * The capture view: chosen events with filters, outputs, start/stop, live counters and a
 * virtualized table of the latest events (the selected row's fields below it). Streamed events
 * reach the table once per UI pulse through an {@link AnimationTimer} calling
 * {@link CaptureViewModel#flush()}.
 */
public final class CaptureView extends BorderPane {
    /** The table takes in new events at most this often (250 ms). */
    public static final long FLUSH_INTERVAL_NANOS = 250_000_000L;
    private final AnimationTimer pulse;
    private final CaptureControls controls;
    private final StreamedRowsView rowsView;
    private final StoreTableView storePane;

    /** @param vm the view model */
    public CaptureView(CaptureViewModel vm) {
        setId("capture-view");
        CaptureControls left = new CaptureControls(vm, s -> editFilter.accept(s));
        this.controls = left;
        rowsView = new StreamedRowsView(vm, () -> showInWireshark);
        TableView<EventRow> table = rowsView.table();
        VBox tableBox = rowsView;
        TreeView<String> fields = fieldsTree(vm);
        // an opened pcapng: once its store is ready, every event in the store's table instead of the window of rows
        Label storeStatus = new Label();
        storeStatus.setId("capture-store-status");
        storeStatus.setWrapText(true);
        storeStatus.textProperty().bind(vm.storeStatusProperty());
        storeStatus.visibleProperty().bind(vm.storeStatusProperty().isNotEmpty());
        storeStatus.managedProperty().bind(storeStatus.visibleProperty());
        storePane = new StoreTableView(vm, () -> showInWireshark);
        storePane.visibleProperty().bind(vm.storeTableProperty().isNotNull());
        tableBox.visibleProperty().bind(storePane.visibleProperty().not());
        StackPane tables = new StackPane(tableBox, storePane);
        VBox.setVgrow(tables, Priority.ALWAYS);
        VBox tablesBox = new VBox(2, storeStatus, tables);
        addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            if (storePane.isVisible() && new KeyCodeCombination(KeyCode.G, KeyCombination.SHORTCUT_DOWN).match(e)) {
                storePane.goToFrame();
                e.consume();
            }
        });
        SplitPane center = new SplitPane(tablesBox, fields);
        center.setOrientation(Orientation.VERTICAL);
        center.setDividerPositions(0.78);
        setLeft(left);
        setCenter(center);
        BorderPane.setAlignment(left, Pos.TOP_LEFT);

        pulse = new AnimationTimer() {
            private long last;

            @Override
            public void handle(long now) {
                // At most FLUSH_INTERVAL_NANOS apart: people cannot read faster, and fewer, bigger
                // table changes leave the JavaFX thread idle most of the time.
                if (now - last >= FLUSH_INTERVAL_NANOS) {
                    last = now;
                    int before = vm.getRows().isEmpty() ? -1 : System.identityHashCode(vm.getRows().get(vm.getRows().size() - 1));
                    vm.flush();
                    int size = vm.getRows().size();
                    int shown = vm.table().getItems().size();
                    if (rowsView.followsNewest() && size > 0 && shown > 0
                            && System.identityHashCode(vm.getRows().get(size - 1)) != before) {
                        table.scrollTo(shown - 1);
                    }
                }
            }
        };
        pulse.start();
    }

    /** The selected event's details as a tree (header, fields, print), in a monospace font. */
    private static TreeView<String> fieldsTree(CaptureViewModel vm) {
        TreeView<String> fields = new TreeView<>();
        fields.setId("capture-fields");
        fields.setShowRoot(false);
        fields.setStyle("-fx-font-family: monospace;");
        fields.setRoot(new TreeItem<>());
        vm.selectedDetailsProperty().addListener((o, a, b) -> fields.getRoot().getChildren().setAll(treeItems(b)));
        return fields;
    }

    /** The details' tree items, sections expanded. */
    private static List<TreeItem<String>> treeItems(List<EventDetailTree.Node> nodes) {
        List<TreeItem<String>> out = new ArrayList<>();
        for (EventDetailTree.Node n : nodes) {
            TreeItem<String> item = new TreeItem<>(n.text());
            item.getChildren().setAll(treeItems(n.children()));
            item.setExpanded(!n.children().isEmpty() && !n.name().equals("flags"));
            out.add(item);
        }
        return out;
    }

    private BiConsumer<String, Long> showInWireshark = (f, n) -> { };
    private Consumer<EventSelection> editFilter = s -> { };

    /** @param action reopens a capture event's filter in the filter builder ("Edit filter…", double-click) */
    public void setEditFilter(Consumer<EventSelection> action) {
        this.editFilter = action;
    }

    /** @param action opens a pcapng in Wireshark at a frame ("Show in Wireshark" in the context menu) */
    public void setShowInWireshark(BiConsumer<String, Long> action) {
        this.showInWireshark = action;
    }

    /** Shows the find bar and focuses it (Edit › Find, Ctrl+F). */
    public void showFind() {
        rowsView.showFind();
    }

    /** Removes the event selected in the capture's event list (Edit › Delete); false when none is selected. */
    public boolean removeSelectedEvent() {
        return controls.removeSelectedEvent();
    }

    /** Stops the UI pulse (when the view is discarded). */
    public void dispose() {
        pulse.stop();
    }

    /** The table over an opened file's store (shown once it is ready), for tests. */
    public StoreTableView storePane() {
        return storePane;
    }

    /** The event table, for tests. */
    public TableView<EventRow> table() {
        return rowsView.table();
    }
}
