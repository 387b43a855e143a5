package org.tracewire.app.capture;

import java.util.function.Function;
import javafx.animation.AnimationTimer;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.collections.FXCollections;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.ContextMenu;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.input.Clipboard;
import javafx.scene.input.ClipboardContent;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.stage.FileChooser;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.control.TitledPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.util.converter.NumberStringConverter;
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
    private final TableView<EventRow> table = new TableView<>();
    private StoreTableView storePane;
    private javafx.scene.control.CheckBox follow;
    private final EventTableViewModel vmTable;
    private final CaptureViewModel vm;
    private ListView<EventSelection> events;

    /** @param vm the view model */
    public CaptureView(CaptureViewModel vm) {
        setId("capture-view");
        this.vmTable = vm.table();
        this.vm = vm;
        ListView<EventSelection> events = new ListView<>(vm.getEvents());
        this.events = events;
        events.setId("capture-events");
        events.setPrefHeight(150);
        events.setPlaceholder(new Label("No events: Browser → Add to capture"));
        events.setCellFactory(l -> new ListCell<>() {
            @Override
            protected void updateItem(EventSelection item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty || item == null ? null : item.fullName()
                        + (item.filter() == null || item.filter().isEmpty() ? "" : "   if " + item.filter())
                        + (item.stack() == EventSelection.Stack.NONE ? "" : "   + " + item.stack().word() + " stack"));
            }
        });
        // the stack traces recorded after each of the event's records (capture --stack)
        javafx.scene.control.ContextMenu stackMenu = new javafx.scene.control.ContextMenu();
        for (EventSelection.Stack st : EventSelection.Stack.values()) {
            javafx.scene.control.MenuItem mi = new javafx.scene.control.MenuItem(
                    st == EventSelection.Stack.NONE ? "No stack traces" : "Record " + st.word() + " stack traces");
            mi.setMnemonicParsing(false);
            mi.setId("capture-stack-" + st.word());
            mi.setOnAction(e -> {
                EventSelection s = events.getSelectionModel().getSelectedItem();
                if (s != null && !vm.runningProperty().get()) {
                    int at = events.getSelectionModel().getSelectedIndex();
                    vm.setStack(s.fullName(), st);
                    events.getSelectionModel().select(at);
                }
            });
            stackMenu.getItems().add(mi);
        }
        events.setContextMenu(stackMenu);
        Button remove = new Button("Remove");
        remove.setId("capture-remove");
        remove.setOnAction(e -> {
            EventSelection s = events.getSelectionModel().getSelectedItem();
            if (s != null) {
                vm.getEvents().remove(s);
            }
        });
        remove.disableProperty().bind(events.getSelectionModel().selectedItemProperty().isNull().or(vm.runningProperty()));
        Button edit = new Button("Edit filter…");
        edit.setId("capture-edit-filter");
        edit.setTooltip(new javafx.scene.control.Tooltip("Reopens the selected event's filter in the Filter builder "
                + "(double-click does the same); Use in capture there replaces it"));
        edit.setOnAction(e -> {
            EventSelection s = events.getSelectionModel().getSelectedItem();
            if (s != null) {
                editFilter.accept(s);
            }
        });
        edit.disableProperty().bind(events.getSelectionModel().selectedItemProperty().isNull().or(vm.runningProperty()));
        events.setOnMouseClicked(e -> {
            EventSelection s = events.getSelectionModel().getSelectedItem();
            if (e.getClickCount() == 2 && s != null && !vm.runningProperty().get()) {
                editFilter.accept(s);
            }
        });

        TextField iface = new TextField();
        iface.setId("capture-iface");
        iface.textProperty().bindBidirectional(vm.ifaceProperty());
        iface.setTooltip(new javafx.scene.control.Tooltip("A TAP interface the events go to as Ethernet frames (Wireshark "
                + "captures it live); empty for none"));
        TextField pcapng = new TextField();
        pcapng.setId("capture-pcapng");
        pcapng.setPromptText("a new file in ~/.cache/tracewire/live");
        pcapng.setTooltip(new javafx.scene.control.Tooltip("The pcapng file the capture writes and the app reads as it"
                + " grows; empty: a new file in the cache ($XDG_CACHE_HOME/tracewire/live)"));
        pcapng.textProperty().bindBidirectional(vm.pcapngProperty());
        TextField buffer = new TextField();
        buffer.setId("capture-buffer");
        buffer.textProperty().bindBidirectional(vm.bufferKbProperty(), new NumberStringConverter("#"));
        buffer.setTooltip(new javafx.scene.control.Tooltip("The ring buffer per CPU in KB; 0 keeps the kernel's default "
                + "(a bigger buffer loses fewer events in bursts)"));
        GridPane outputs = new GridPane();
        outputs.setHgap(8);
        outputs.setVgap(4);
        outputs.addRow(0, new Label("Interface (TAP):"), iface);
        outputs.addRow(1, new Label("pcapng file:"), pcapng);
        outputs.addRow(2, new Label("Buffer KB/CPU:"), buffer);
        buffer.setPromptText("0 = default");
        for (TextField f : java.util.List.of(iface, pcapng, buffer)) {
            GridPane.setHgrow(f, Priority.ALWAYS);
        }
        for (javafx.scene.Node n : outputs.getChildren()) {
            if (n instanceof Label l) {
                l.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
            }
        }
        outputs.disableProperty().bind(vm.runningProperty());

        Button start = new Button("Start");
        start.setId("capture-start");
        // not the default button: Enter in a text box of this view (the table's filter, find, the
        // outputs) must never start a capture, which may ask for a password and starts tracing
        start.setOnAction(e -> vm.start());
        start.setTooltip(new javafx.scene.control.Tooltip("Starts the capture (the first start launches the privileged backend)"));
        start.disableProperty().bind(vm.runningProperty().or(vm.busyProperty()));
        Button stop = new Button("Stop");
        stop.setId("capture-stop");
        stop.setOnAction(e -> vm.stop());
        stop.disableProperty().bind(vm.runningProperty().not().or(vm.busyProperty()));
        Label status = new Label();
        status.setId("capture-status");
        status.setWrapText(true);
        status.textProperty().bind(vm.statusProperty());

        GridPane counters = new GridPane();
        counters.setHgap(12);
        counters.setVgap(2);
        counters.addRow(0, new Label("Events"), counter("capture-count-events", vm.eventCountProperty()));
        counters.addRow(1, new Label("Events/s"), bind(new Label(), "capture-count-rate", vm.live().rateProperty()));
        counters.addRow(2, new Label("Frames"), counter("capture-count-frames", vm.live().framesProperty()));
        counters.addRow(3, new Label("Bytes"), counter("capture-count-bytes", vm.live().bytesProperty()));
        counters.addRow(4, new Label("Lost (kernel)"), warnAbove0(counter("capture-count-lost", vm.lostProperty()), vm.lostProperty(),
                "Events the kernel dropped because the ring buffer was full"));
        counters.addRow(5, new Label("Read from the file"), counter("capture-count-received", vm.receivedProperty()));

        javafx.scene.control.ProgressIndicator spinner = new javafx.scene.control.ProgressIndicator();
        spinner.setId("capture-spinner");
        spinner.setPrefSize(22, 22);
        spinner.visibleProperty().bind(vm.busyProperty());
        spinner.managedProperty().bind(spinner.visibleProperty());
        Button cancel = new Button("Cancel");
        cancel.setId("capture-cancel");
        cancel.setOnAction(e -> vm.cancel());
        cancel.visibleProperty().bind(vm.busyProperty().and(vm.runningProperty().not()));
        cancel.managedProperty().bind(cancel.visibleProperty());
        HBox buttons = new HBox(8, start, stop, spinner, cancel);
        buttons.setAlignment(Pos.CENTER_LEFT);
        VBox left = new VBox(8,
                new TitledPane("Events", new VBox(4, events, new HBox(8, remove, edit))),
                new TitledPane("Outputs", outputs),
                buttons, status,
                new TitledPane("Counters", counters));
        left.setPadding(new Insets(8));
        left.setPrefWidth(360);
        left.setMinWidth(300);
        for (var n : left.getChildren()) {
            if (n instanceof TitledPane t) {
                t.setCollapsible(false);
            }
        }

        table.setId("capture-table");
        EventTableViewModel tv = vm.table();
        // Registered before the table's own listener, so a pulse's change is known as such when the
        // selection model shifts (selectedItem changes then are not the user's)
        tv.getItems().addListener((javafx.collections.ListChangeListener<EventRow>) c -> itemsChanging = true);
        table.setItems(tv.getItems());
        tv.getItems().addListener((javafx.collections.ListChangeListener<EventRow>) c -> {
            itemsChanging = false;
            restoreSelection();
        });
        tv.getItems().comparatorProperty().bind(table.comparatorProperty());
        table.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
        table.setPlaceholder(new Label("Events appear here while capturing"));
        TableColumn<EventRow, EventRow> time = new TableColumn<>("Time");
        time.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(cd.getValue()));
        time.setComparator(java.util.Comparator.comparingLong(EventRow::ts));
        time.setCellFactory(c -> new javafx.scene.control.TableCell<>() {
            @Override
            protected void updateItem(EventRow item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty || item == null ? null : tv.timeText(item));
            }
        });
        time.setPrefWidth(150);
        table.getColumns().add(time);
        table.getColumns().add(col("CPU", EventRow::cpu, 45));
        table.getColumns().add(col("PID", EventRow::pid, 70));
        table.getColumns().add(col("Comm", EventRow::comm, 130));
        table.getColumns().add(col("Event", EventRow::event, 190));
        table.getColumns().add(col("Line", EventRow::text, 600));
        table.setFixedCellSize(22);
        table.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> {
            if (itemsChanging || restoring) {
                return;
            }
            tv.selectedProperty().set(b);
            kept = new java.util.ArrayList<>(table.getSelectionModel().getSelectedItems());
            if (b != null) {
                tv.followProperty().set(false);
            }
        });
        tv.selectedProperty().addListener((o, a, b) -> {
            if (!restoring && b != table.getSelectionModel().getSelectedItem()) {
                restoreSelectionTo(b == null ? java.util.List.of() : java.util.List.of(b));
            }
        });
        // Scrolling (wheel, scroll bar) away from the newest row pauses following
        table.addEventFilter(ScrollEvent.SCROLL, e -> javafx.application.Platform.runLater(() -> pauseUnlessAtEnd(tv)));
        table.addEventFilter(MouseEvent.MOUSE_RELEASED, e -> {
            for (javafx.scene.Node n = (javafx.scene.Node) e.getTarget(); n != null && n != table; n = n.getParent()) {
                if (n instanceof javafx.scene.control.ScrollBar) {
                    javafx.application.Platform.runLater(() -> pauseUnlessAtEnd(tv));
                }
            }
        });
        table.setContextMenu(contextMenu(tv));
        table.addEventHandler(KeyEvent.KEY_PRESSED, e -> {
            if (new KeyCodeCombination(KeyCode.C, KeyCombination.SHORTCUT_DOWN).match(e)) {
                copy(tv, false);
                e.consume();
            }
        });
        javafx.scene.control.TreeView<String> fields = new javafx.scene.control.TreeView<>();
        fields.setId("capture-fields");
        fields.setShowRoot(false);
        fields.setStyle("-fx-font-family: monospace;");
        fields.setRoot(new javafx.scene.control.TreeItem<>());
        vm.selectedDetailsProperty().addListener((o, a, b) -> fields.getRoot().getChildren().setAll(treeItems(b)));
        Label rows = new Label();
        rows.setId("capture-rows");
        rows.textProperty().bind(Bindings.createStringBinding(() -> String.format("%,d of %,d rows (latest %,d)",
                tv.getItems().size(), vm.getRows().size(), CaptureViewModel.WINDOW), tv.getItems(), vm.getRows()));
        javafx.scene.control.CheckBox follow = new javafx.scene.control.CheckBox("Follow newest");
        follow.setId("capture-follow");
        follow.setTooltip(new javafx.scene.control.Tooltip("Keeps the newest row in sight; selecting or scrolling pauses it"));
        follow.selectedProperty().bindBidirectional(tv.followProperty());
        follow.visibleProperty().bind(tv.liveProperty()); // an opened file has no newest row to follow
        follow.managedProperty().bind(follow.visibleProperty());
        this.follow = follow;
        Button paused = new Button();
        paused.setId("capture-paused");
        paused.textProperty().bind(Bindings.createStringBinding(() -> String.format("⏸ paused, %,d new: resume",
                tv.newWhilePausedProperty().get()), tv.newWhilePausedProperty()));
        paused.visibleProperty().bind(tv.liveProperty().and(tv.followProperty().not()));
        paused.managedProperty().bind(paused.visibleProperty());
        paused.setStyle("-fx-base: #ffe08a;");
        paused.setOnAction(e -> {
            tv.followProperty().set(true);
            if (!tv.getItems().isEmpty()) {
                table.scrollTo(tv.getItems().size() - 1);
            }
        });
        ChoiceBox<EventTableViewModel.TimeMode> timeMode = new ChoiceBox<>(
                FXCollections.observableArrayList(EventTableViewModel.TimeMode.values()));
        timeMode.setId("capture-time-mode");
        timeMode.setTooltip(new javafx.scene.control.Tooltip("Absolute: the time of day (a trace.dat's times are seconds "
                + "since boot); relative: seconds since the first event"));
        timeMode.valueProperty().bindBidirectional(tv.timeModeProperty());
        timeMode.setConverter(new javafx.util.StringConverter<>() {
            @Override
            public String toString(EventTableViewModel.TimeMode m) {
                return tv.timeModeLabel(m);
            }

            @Override
            public EventTableViewModel.TimeMode fromString(String s) {
                return null;
            }
        });
        tv.wallClockProperty().addListener((o, a, b) -> {
            // the labels and the column follow the file's clock
            var mode = timeMode.getValue();
            timeMode.setItems(FXCollections.observableArrayList(EventTableViewModel.TimeMode.values()));
            timeMode.setValue(mode);
            table.refresh();
        });
        tv.timeModeProperty().addListener((o, a, b) -> table.refresh());
        Button export = new Button("Export…");
        export.setId("capture-export");
        export.setTooltip(new javafx.scene.control.Tooltip("Writes the selected rows (all shown rows when none is selected) as CSV or text"));
        export.setOnAction(e -> export(tv));
        HBox tableHead = new HBox(12, rows, follow, paused, timeMode, export);
        tableHead.setAlignment(Pos.CENTER_LEFT);
        VBox tableBox = new VBox(4, tableHead, filterBar(tv), findBar(tv), grow(table));
        tableBox.addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            if (new KeyCodeCombination(KeyCode.F, KeyCombination.SHORTCUT_DOWN).match(e)) {
                findBar.setVisible(true);
                findField.requestFocus();
                findField.selectAll();
                e.consume();
            }
        });
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
        javafx.scene.layout.StackPane tables = new javafx.scene.layout.StackPane(tableBox, storePane);
        VBox.setVgrow(tables, Priority.ALWAYS);
        VBox tablesBox = new VBox(2, storeStatus, tables);
        addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            if (storePane.isVisible() && new KeyCodeCombination(KeyCode.G, KeyCombination.SHORTCUT_DOWN).match(e)) {
                storePane.goToFrame();
                e.consume();
            }
        });
        SplitPane center = new SplitPane(tablesBox, fields);
        center.setOrientation(javafx.geometry.Orientation.VERTICAL);
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
                    if (CaptureView.this.follow.isSelected() && size > 0 && shown > 0
                            && System.identityHashCode(vm.getRows().get(size - 1)) != before) {
                        table.scrollTo(shown - 1);
                    }
                }
            }
        };
        pulse.start();
    }

    private HBox findBar;
    private TextField findField;
    private boolean itemsChanging;
    private boolean restoring;
    private java.util.List<EventRow> kept = java.util.List.of();

    /** Pauses following when the newest row is out of sight. */
    private void pauseUnlessAtEnd(EventTableViewModel tv) {
        if (table.lookup(".virtual-flow") instanceof javafx.scene.control.skin.VirtualFlow<?> flow) {
            var last = flow.getLastVisibleCell();
            if (last != null && last.getIndex() < tv.getItems().size() - 1) {
                tv.followProperty().set(false);
            }
        }
    }

    /** Puts the table's selection back on the selected events after the items changed. */
    private void restoreSelection() {
        restoreSelectionTo(kept);
    }

    private void restoreSelectionTo(java.util.List<EventRow> wanted) {
        EventTableViewModel tv = vmTable;
        restoring = true;
        try {
            EventRow primary = tv.selectedProperty().get();
            var sm = table.getSelectionModel();
            if (primary == null) {
                if (!sm.isEmpty()) {
                    sm.clearSelection();
                }
                kept = java.util.List.of();
                return;
            }
            java.util.Set<EventRow> want = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            want.addAll(wanted);
            want.add(primary);
            int primaryIndex = -1;
            java.util.List<Integer> others = new java.util.ArrayList<>();
            var items = tv.getItems();
            for (int i = 0; i < items.size(); i++) {
                EventRow r = items.get(i);
                if (r == primary) {
                    primaryIndex = i;
                } else if (want.contains(r)) {
                    others.add(i);
                }
            }
            if (primaryIndex < 0) {
                sm.clearSelection();
                return;
            }
            if (sm.getSelectedIndices().size() == others.size() + 1 && sm.getSelectedIndex() == primaryIndex
                    && sm.getSelectedItem() == primary) {
                return;
            }
            sm.clearSelection();
            for (int i : others) {
                sm.select(i);
            }
            sm.select(primaryIndex);
            kept = new java.util.ArrayList<>(sm.getSelectedItems());
        } finally {
            restoring = false;
        }
    }

    /** The filter box (kernel filter syntax), its error, and the event/thread restrictions. */
    private VBox filterBar(EventTableViewModel tv) {
        TextField filter = org.controlsfx.control.textfield.TextFields.createClearableTextField();
        filter.setId("capture-filter");
        filter.setPromptText("Filter (kernel syntax), e.g.  common_pid == 1 && prev_state & 1,  COMM ~ \"kwork*\",  CPU == 0");
        filter.textProperty().bindBidirectional(tv.filterTextProperty());
        // the filter applies as it is typed: Enter only ends the typing, it goes to no button
        filter.addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            if (e.getCode() == KeyCode.ENTER) {
                e.consume();
            }
        });
        HBox.setHgrow(filter, Priority.ALWAYS);
        Button event = new Button();
        event.setId("capture-filter-event");
        event.setMnemonicParsing(false); // an event name, underscores and all
        event.textProperty().bind(Bindings.concat("event: ", tv.eventRestrictionProperty(), "  ✕"));
        event.visibleProperty().bind(tv.eventRestrictionProperty().isNotNull());
        event.managedProperty().bind(event.visibleProperty());
        event.setOnAction(e -> tv.eventRestrictionProperty().set(null));
        Button thread = new Button();
        thread.setId("capture-filter-thread");
        thread.setMnemonicParsing(false);
        thread.textProperty().bind(Bindings.createStringBinding(() -> "thread " + tv.threadProperty().get() + "  ✕",
                tv.threadProperty()));
        thread.visibleProperty().bind(tv.threadProperty().isNotNull());
        thread.managedProperty().bind(thread.visibleProperty());
        thread.setOnAction(e -> tv.threadProperty().set(null));
        Label error = new Label();
        error.setId("capture-filter-error");
        error.setStyle("-fx-text-fill: #b00020; -fx-font-family: monospace;");
        error.textProperty().bind(tv.filterErrorProperty());
        error.visibleProperty().bind(tv.filterErrorProperty().isNotEmpty());
        error.managedProperty().bind(error.visibleProperty());
        tv.filterErrorProperty().addListener((o, a, b) -> filter.setStyle(b.isEmpty() ? "" : "-fx-control-inner-background: #ffe4e4;"));
        HBox row = new HBox(6, filter, event, thread);
        row.setAlignment(Pos.CENTER_LEFT);
        return new VBox(2, row, error);
    }

    /** Ctrl+F: find next/previous over the shown rows. */
    private HBox findBar(EventTableViewModel tv) {
        findField = org.controlsfx.control.textfield.TextFields.createClearableTextField();
        findField.setId("capture-find");
        findField.setPromptText("Find (Enter: next, Shift+Enter: previous, Esc: close)");
        findField.textProperty().bindBidirectional(tv.findTextProperty());
        HBox.setHgrow(findField, Priority.ALWAYS);
        Button next = new Button("▼ Next");
        next.setId("capture-find-next");
        next.setOnAction(e -> find(tv, true));
        Button prev = new Button("▲ Previous");
        prev.setId("capture-find-prev");
        prev.setOnAction(e -> find(tv, false));
        Label result = new Label();
        result.setId("capture-find-result");
        findResult = result;
        Button close = new Button("✕");
        findBar = new HBox(6, new Label("Find:"), findField, prev, next, result, close);
        findBar.setAlignment(Pos.CENTER_LEFT);
        close.setOnAction(e -> findBar.setVisible(false));
        findField.setOnKeyPressed(e -> {
            if (e.getCode() == KeyCode.ENTER) {
                find(tv, !e.isShiftDown());
                e.consume();
            } else if (e.getCode() == KeyCode.ESCAPE) {
                findBar.setVisible(false);
                table.requestFocus();
            }
        });
        findBar.setVisible(false);
        findBar.managedProperty().bind(findBar.visibleProperty());
        return findBar;
    }

    private Label findResult;

    private void find(EventTableViewModel tv, boolean forward) {
        int from = table.getSelectionModel().getSelectedIndex();
        int i = tv.find(from, forward);
        if (i < 0) {
            findResult.setText("not found");
            return;
        }
        findResult.setText(String.format("row %,d of %,d", i + 1, tv.getItems().size()));
        table.getSelectionModel().clearAndSelect(i);
        table.scrollTo(Math.max(0, i - 3));
    }

    private ContextMenu contextMenu(EventTableViewModel tv) {
        // ContextMenu.show() returns at once when the menu is empty: start with an item, rebuilt on showing
        ContextMenu menu = new ContextMenu(new MenuItem("Copy as text"));
        menu.setOnShowing(e -> {
            menu.getItems().clear();
            EventRow r = table.getSelectionModel().getSelectedItem();
            MenuItem copyText = item("Copy as text", "capture-copy-text", () -> copy(tv, false));
            MenuItem copyCsv = item("Copy as CSV", "capture-copy-csv", () -> copy(tv, true));
            MenuItem export = item("Export selected…", "capture-export-selected", () -> export(tv));
            menu.getItems().addAll(copyText, copyCsv, export);
            if (r != null) {
                menu.getItems().addAll(new SeparatorMenuItem(),
                        item("Filter on pid " + r.pid(), "capture-ctx-pid", () -> tv.filterOnPid(r)),
                        item("Filter on comm \"" + r.comm() + "\"", "capture-ctx-comm", () -> tv.filterOnComm(r)),
                        item("Filter on CPU " + r.cpu(), "capture-ctx-cpu", () -> tv.filterOnCpu(r)),
                        item("Filter on event " + r.event(), "capture-ctx-event", () -> tv.filterOnEvent(r)),
                        item("Follow this thread (" + r.comm() + "/" + r.pid() + ")", "capture-ctx-thread", () -> tv.followThread(r)));
                String file = vm.wiresharkFile(r);
                if (file != null) {
                    String what = r.frame() > 0 ? "Show in Wireshark (frame " + r.frame() + ")"
                            : "Show in Wireshark (" + java.nio.file.Path.of(file).getFileName() + ")";
                    menu.getItems().addAll(new SeparatorMenuItem(), item(what,
                            "capture-ctx-wireshark", () -> vm.showInWireshark(r, showInWireshark)));
                }
            }
            menu.getItems().addAll(new SeparatorMenuItem(), item("Clear filters", "capture-ctx-clear", tv::clearFilters));
        });
        return menu;
    }

    private static MenuItem item(String text, String id, Runnable action) {
        MenuItem m = new MenuItem(text);
        // the labels carry event and task names ("sched:sched_switch", "kworker/u8:1_x"): an
        // underscore is text, not a mnemonic marker
        m.setMnemonicParsing(false);
        m.setId(id);
        m.setOnAction(e -> action.run());
        return m;
    }

    /** The details' tree items, sections expanded. */
    private static java.util.List<javafx.scene.control.TreeItem<String>> treeItems(java.util.List<EventDetailTree.Node> nodes) {
        java.util.List<javafx.scene.control.TreeItem<String>> out = new java.util.ArrayList<>();
        for (EventDetailTree.Node n : nodes) {
            javafx.scene.control.TreeItem<String> item = new javafx.scene.control.TreeItem<>(n.text());
            item.getChildren().setAll(treeItems(n.children()));
            item.setExpanded(!n.children().isEmpty() && !n.name().equals("flags"));
            out.add(item);
        }
        return out;
    }

    private java.util.List<EventRow> selectedInOrder(EventTableViewModel tv) {
        return EventTableViewModel.inOrder(new java.util.ArrayList<>(table.getSelectionModel().getSelectedItems()), tv.getItems());
    }

    private void copy(EventTableViewModel tv, boolean csv) {
        var sel = selectedInOrder(tv);
        ClipboardContent c = new ClipboardContent();
        c.putString(csv ? tv.asCsv(sel) : tv.asText(sel));
        Clipboard.getSystemClipboard().setContent(c);
    }

    private void export(EventTableViewModel tv) {
        var sel = selectedInOrder(tv);
        if (sel.isEmpty()) {
            sel = new java.util.ArrayList<>(tv.getItems());
        }
        FileChooser fc = new FileChooser();
        fc.setTitle("Export " + sel.size() + " rows");
        fc.getExtensionFilters().addAll(new FileChooser.ExtensionFilter("CSV", "*.csv"),
                new FileChooser.ExtensionFilter("Text", "*.txt"));
        fc.setInitialFileName("tracewire-events.csv");
        java.io.File f = fc.showSaveDialog(getScene() == null ? null : getScene().getWindow());
        if (f != null) {
            tv.export(f.toPath(), sel);
        }
    }

    private static TableView<EventRow> grow(TableView<EventRow> t) {
        VBox.setVgrow(t, Priority.ALWAYS);
        return t;
    }

    private static Label counter(String id, javafx.beans.property.LongProperty p) {
        Label l = new Label();
        l.setId(id);
        l.textProperty().bind(Bindings.createStringBinding(() -> String.format("%,d", p.get()), p));
        return l;
    }

    private static Label warnAbove0(Label l, javafx.beans.property.LongProperty p, String tip) {
        l.styleProperty().bind(Bindings.when(p.greaterThan(0))
                .then("-fx-text-fill: #b00020; -fx-font-weight: bold;").otherwise(""));
        l.setTooltip(new javafx.scene.control.Tooltip(tip));
        return l;
    }

    private static Label bind(Label l, String id, javafx.beans.value.ObservableValue<String> p) {
        l.setId(id);
        l.textProperty().bind(p);
        return l;
    }

    private static <T> TableColumn<EventRow, T> col(String title, Function<EventRow, T> get, double width) {
        TableColumn<EventRow, T> c = new TableColumn<>(title);
        c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(get.apply(cd.getValue())));
        c.setPrefWidth(width);
        return c;
    }

    private java.util.function.BiConsumer<String, Long> showInWireshark = (f, n) -> { };
    private java.util.function.Consumer<EventSelection> editFilter = s -> { };

    /** @param action reopens a capture event's filter in the filter builder ("Edit filter…", double-click) */
    public void setEditFilter(java.util.function.Consumer<EventSelection> action) {
        this.editFilter = action;
    }

    /** @param action opens a pcapng in Wireshark at a frame ("Show in Wireshark" in the context menu) */
    public void setShowInWireshark(java.util.function.BiConsumer<String, Long> action) {
        this.showInWireshark = action;
    }

    /** Shows the find bar and focuses it (Edit › Find, Ctrl+F). */
    public void showFind() {
        findBar.setVisible(true);
        findField.requestFocus();
        findField.selectAll();
    }

    /** Removes the event selected in the capture's event list (Edit › Delete); false when none is selected. */
    public boolean removeSelectedEvent() {
        EventSelection s = events.getSelectionModel().getSelectedItem();
        if (s == null || vm.runningProperty().get()) {
            return false;
        }
        vm.getEvents().remove(s);
        return true;
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
        return table;
    }
}
