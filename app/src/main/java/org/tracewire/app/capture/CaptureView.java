package org.tracewire.app.capture;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import javafx.animation.AnimationTimer;
import javafx.animation.PauseTransition;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.value.ChangeListener;
import javafx.collections.ObservableList;
import javafx.event.EventHandler;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableView;
import javafx.scene.control.TreeItem;
import javafx.scene.control.Tooltip;
import javafx.scene.control.TreeView;
import javafx.scene.input.InputEvent;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.util.Duration;
import org.tracewire.tracefs.EventSelection;

/**
 * The capture view: chosen events with filters, outputs, start/stop, live counters and the event
 * table (the selected row's fields below it): the table over the capture's store
 * ({@link StoreTableView}), a live capture's as it grows, with "Follow newest"; until a store is
 * there, the window of an opened file's first rows ({@link StreamedRowsView}), which reach it once
 * per UI pulse through an {@link AnimationTimer} calling {@link CaptureViewModel#flush()}.
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
        StackPane tables = new StackPane(tableBox);
        joinLater(tables, vm);
        VBox.setVgrow(tables, Priority.ALWAYS);
        VBox tablesBox = new VBox(2, storeStatus, liveFollow(vm), tables);
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
                    vm.flush();
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

    /**
     * "Follow newest" over a live capture's growing store table (shown while it grows): following,
     * each new list of rows (a commit of the store, about every second) scrolls to the newest row;
     * scrolling away from it (wheel, bar, keys), selecting a row or going to a frame pauses, and a
     * paused table holds still (its rows keep their numbers as the store grows) while the button
     * counts the rows added since.
     */
    private HBox liveFollow(CaptureViewModel vm) {
        EventTableViewModel tv = vm.table();
        WindowedTable rows = storePane.rows();
        BooleanProperty growing = new SimpleBooleanProperty();
        LongProperty shownAtPause = new SimpleLongProperty();
        LongProperty shown = new SimpleLongProperty();
        CheckBox follow = new CheckBox("Follow newest");
        follow.setId("capture-live-follow");
        follow.setTooltip(new Tooltip("Keeps the newest event in sight as the capture's store grows (about every"
                + " second); scrolling up, selecting a row or going to a frame pauses it"));
        follow.selectedProperty().bindBidirectional(tv.followProperty());
        Button paused = pausedButton(tv, shown, shownAtPause);
        BooleanSupplier newestFirst = () -> vm.storeTableProperty().get() != null
                && vm.storeTableProperty().get().newestFirst();
        Runnable toNewest = () -> {
            if (tv.followProperty().get() && growing.get()) {
                // the newest row: the last, or the first in descending frame order
                rows.scrollBar().setValue(newestFirst.getAsBoolean() ? rows.scrollBar().getMin() : rows.scrollBar().getMax());
            }
        };
        tv.followProperty().addListener((o, a, on) -> {
            shownAtPause.set(shown.get());
            toNewest.run();
        });
        // after the table's own listeners (registered when the store pane was made): the new rows are in
        ChangeListener<ObservableList<EventRow>> newRows = (o, a, list) -> toNewest.run();
        vm.storeTableProperty().addListener((o, a, t) -> {
            growing.unbind();
            shown.unbind();
            if (a != null) {
                a.rowsProperty().removeListener(newRows);
            }
            if (t == null) {
                growing.set(false);
                return;
            }
            growing.bind(t.growingProperty());
            shown.bind(t.shownProperty());
            t.rowsProperty().addListener(newRows);
            toNewest.run();
        });
        pauseOnUserInput(rows, growing, tv, newestFirst);
        HBox bar = new HBox(12, follow, paused);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.visibleProperty().bind(growing);
        bar.managedProperty().bind(bar.visibleProperty());
        return bar;
    }

    /** "⏸ paused, N new: resume", shown while Follow newest is off; N counts rows since the pause. */
    private static Button pausedButton(EventTableViewModel tv, LongProperty shown, LongProperty shownAtPause) {
        Button paused = new Button();
        paused.setId("capture-live-paused");
        paused.setMnemonicParsing(false);
        paused.setStyle("-fx-base: #ffe08a;");
        paused.textProperty().bind(Bindings.createStringBinding(() -> String.format("⏸ paused, %,d new: resume",
                Math.max(0, shown.get() - shownAtPause.get())), shown, shownAtPause));
        paused.visibleProperty().bind(tv.followProperty().not());
        paused.managedProperty().bind(paused.visibleProperty());
        paused.setOnAction(e -> tv.followProperty().set(true));
        return paused;
    }

    /**
     * The user's scrolling, keys and clicks over a growing table pause Follow newest unless the
     * newest row is still in sight; a selected row pauses.
     */
    private static void pauseOnUserInput(WindowedTable rows, BooleanProperty growing, EventTableViewModel tv,
                                         BooleanSupplier newestFirst) {
        EventHandler<InputEvent> user = e -> Platform.runLater(() -> {
            boolean newestInSight = newestFirst.getAsBoolean() ? rows.topRow() == 0
                    : rows.topRow() + rows.shownRows() >= rows.rowCount();
            if (growing.get() && tv.followProperty().get() && (rows.selectedRow() >= 0 || !newestInSight)) {
                tv.followProperty().set(false);
            }
        });
        rows.addEventFilter(ScrollEvent.SCROLL, user);
        rows.addEventFilter(KeyEvent.KEY_PRESSED, user);
        rows.addEventFilter(MouseEvent.MOUSE_RELEASED, user);
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

    /**
     * Puts the store's table into the window once a store table is set or 2 s after this view is
     * first in a scene, whichever comes first: not at start, where styling and laying out its ~420
     * nodes (rows made before the first show, so the swap at store ready is not a stall) held back
     * the window and an opened file's first rows by about a third (BENCHMARKS.md, session 28).
     */
    private void joinLater(StackPane tables, CaptureViewModel vm) {
        Runnable join = () -> {
            if (!tables.getChildren().contains(storePane)) {
                tables.getChildren().add(storePane);
            }
        };
        vm.storeTableProperty().addListener((o, a, t) -> join.run());
        if (vm.storeTableProperty().get() != null) {
            join.run();
        }
        PauseTransition idle = new PauseTransition(Duration.seconds(2));
        idle.setOnFinished(e -> join.run());
        sceneProperty().addListener((o, a, scene) -> {
            if (scene != null && a == null && !tables.getChildren().contains(storePane)) {
                idle.playFromStart();
            }
        });
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
