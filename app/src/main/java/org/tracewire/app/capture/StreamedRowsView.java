package org.tracewire.app.capture;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.ContextMenu;
import javafx.scene.control.Label;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.input.Clipboard;
import javafx.scene.input.ClipboardContent;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.input.KeyEvent;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.util.StringConverter;
import org.controlsfx.control.textfield.TextFields;

/**
 * The table of the rows read so far, shown until the capture has a store table: an opened file's
 * first screen until its store is ready, or a trace.dat's rows ({@link CaptureViewModel#WINDOW} at
 * most, the newest), with its head (count, time mode, export), the filter box, the find bar, copy
 * and the context menu's filters and "Show in Wireshark". A live capture's table is its store's
 * ({@link StoreTableView}); before the store's first commit this table is empty and says what it
 * waits for.
 */
final class StreamedRowsView extends VBox {
    private final TableView<EventRow> table = new TableView<>();
    private final CaptureViewModel vm;
    private final Supplier<BiConsumer<String, Long>> showInWireshark;

    /**
     * @param vm              the capture's view model
     * @param showInWireshark opens a pcapng in Wireshark at a frame
     */
    StreamedRowsView(CaptureViewModel vm, Supplier<BiConsumer<String, Long>> showInWireshark) {
        super(4);
        this.vm = vm;
        this.showInWireshark = showInWireshark;
        EventTableViewModel tv = vm.table();
        setUpTable(tv);
        getChildren().addAll(tableHead(tv), filterBar(tv), findBar(tv), grow(table));
        addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            if (new KeyCodeCombination(KeyCode.F, KeyCombination.SHORTCUT_DOWN).match(e)) {
                findBar.setVisible(true);
                findField.requestFocus();
                findField.selectAll();
                e.consume();
            }
        });
    }

    /** The table's columns, selection kept across pulses, copy, its menu. */
    private void setUpTable(EventTableViewModel tv) {
        table.setId("capture-table");
        // Registered before the table's own listener, so a pulse's change is known as such when the
        // selection model shifts (selectedItem changes then are not the user's)
        tv.getItems().addListener((ListChangeListener<EventRow>) c -> itemsChanging = true);
        table.setItems(tv.getItems());
        tv.getItems().addListener((ListChangeListener<EventRow>) c -> {
            itemsChanging = false;
            restoreSelection();
        });
        tv.getItems().comparatorProperty().bind(table.comparatorProperty());
        table.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
        Label placeholder = new Label();
        placeholder.setWrapText(true);
        placeholder.textProperty().bind(Bindings.when(vm.followingProperty())
                .then("Waiting for the capture's store: its first commit comes about a second after the capture's"
                        + " first events; the table then holds every event indexed so far")
                .otherwise(Bindings.when(vm.busyProperty()).then("Starting the capture…")
                        .otherwise("No events: start a capture, or open one (File › Open capture…)")));
        table.setPlaceholder(placeholder);
        TableColumn<EventRow, EventRow> time = new TableColumn<>("Time");
        time.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(cd.getValue()));
        time.setComparator(Comparator.comparingLong(EventRow::ts));
        time.setCellFactory(c -> new TableCell<>() {
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
            kept = new ArrayList<>(table.getSelectionModel().getSelectedItems());
        });
        tv.selectedProperty().addListener((o, a, b) -> {
            if (!restoring && b != table.getSelectionModel().getSelectedItem()) {
                restoreSelectionTo(b == null ? List.of() : List.of(b));
            }
        });
        table.setContextMenu(contextMenu(tv));
        table.addEventHandler(KeyEvent.KEY_PRESSED, e -> {
            if (new KeyCodeCombination(KeyCode.C, KeyCombination.SHORTCUT_DOWN).match(e)) {
                copy(tv, false);
                e.consume();
            }
        });
    }

    /** The head: row count, time mode, export. */
    private HBox tableHead(EventTableViewModel tv) {
        Label rows = new Label();
        rows.setId("capture-rows");
        rows.textProperty().bind(Bindings.createStringBinding(() -> String.format("%,d of %,d rows (the newest %,d at most)",
                tv.getItems().size(), vm.getRows().size(), CaptureViewModel.WINDOW), tv.getItems(), vm.getRows()));
        ChoiceBox<EventTableViewModel.TimeMode> timeMode = new ChoiceBox<>(
                FXCollections.observableArrayList(EventTableViewModel.TimeMode.values()));
        timeMode.setId("capture-time-mode");
        timeMode.setTooltip(new Tooltip("Absolute: the time of day (a trace.dat's times are seconds "
                + "since boot); relative: seconds since the first event"));
        timeMode.valueProperty().bindBidirectional(tv.timeModeProperty());
        timeMode.setConverter(new StringConverter<>() {
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
        export.setTooltip(new Tooltip("Writes the selected rows (all shown rows when none is selected) as CSV or text"));
        export.setOnAction(e -> export(tv));
        HBox tableHead = new HBox(12, rows, timeMode, export);
        tableHead.setAlignment(Pos.CENTER_LEFT);
        return tableHead;
    }

    /** Shows the find bar and focuses it. */
    void showFind() {
        findBar.setVisible(true);
        findField.requestFocus();
        findField.selectAll();
    }

    /** The table. */
    TableView<EventRow> table() {
        return table;
    }

    private HBox findBar;
    private TextField findField;
    private boolean itemsChanging;
    private boolean restoring;
    private List<EventRow> kept = List.of();

    /** Puts the table's selection back on the selected events after the items changed. */
    private void restoreSelection() {
        restoreSelectionTo(kept);
    }

    private void restoreSelectionTo(List<EventRow> wanted) {
        EventTableViewModel tv = vm.table();
        restoring = true;
        try {
            EventRow primary = tv.selectedProperty().get();
            var sm = table.getSelectionModel();
            if (primary == null) {
                if (!sm.isEmpty()) {
                    sm.clearSelection();
                }
                kept = List.of();
                return;
            }
            Set<EventRow> want = Collections.newSetFromMap(new IdentityHashMap<>());
            want.addAll(wanted);
            want.add(primary);
            int primaryIndex = -1;
            List<Integer> others = new ArrayList<>();
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
            kept = new ArrayList<>(sm.getSelectedItems());
        } finally {
            restoring = false;
        }
    }

    /** The filter box (kernel filter syntax), its error, and the event/thread restrictions. */
    private VBox filterBar(EventTableViewModel tv) {
        TextField filter = TextFields.createClearableTextField();
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
        findField = TextFields.createClearableTextField();
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
                            : "Show in Wireshark (" + Path.of(file).getFileName() + ")";
                    menu.getItems().addAll(new SeparatorMenuItem(), item(what,
                            "capture-ctx-wireshark", () -> vm.showInWireshark(r, showInWireshark.get())));
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


    private List<EventRow> selectedInOrder(EventTableViewModel tv) {
        return EventTableViewModel.inOrder(new ArrayList<>(table.getSelectionModel().getSelectedItems()), tv.getItems());
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
            sel = new ArrayList<>(tv.getItems());
        }
        FileChooser fc = new FileChooser();
        fc.setTitle("Export " + sel.size() + " rows");
        fc.getExtensionFilters().addAll(new FileChooser.ExtensionFilter("CSV", "*.csv"),
                new FileChooser.ExtensionFilter("Text", "*.txt"));
        fc.setInitialFileName("tracewire-events.csv");
        File f = fc.showSaveDialog(getScene() == null ? null : getScene().getWindow());
        if (f != null) {
            tv.export(f.toPath(), sel);
        }
    }

    private static TableView<EventRow> grow(TableView<EventRow> t) {
        VBox.setVgrow(t, Priority.ALWAYS);
        return t;
    }

    private static <T> TableColumn<EventRow, T> col(String title, Function<EventRow, T> get, double width) {
        TableColumn<EventRow, T> c = new TableColumn<>(title);
        c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(get.apply(cd.getValue())));
        c.setPrefWidth(width);
        return c;
    }
}
