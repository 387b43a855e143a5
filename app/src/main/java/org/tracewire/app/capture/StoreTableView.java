package org.tracewire.app.capture;

import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
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
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import org.controlsfx.control.textfield.TextFields;

/**
 * The event table of an opened pcapng over its capture store ({@link StoreTable}): every event,
 * a frame column, sort by a column (an ORDER BY), the filter box in the kernel's syntax, and
 * Go to frame (Ctrl+G, {@link #goToFrame()}). Shown in place of the window of rows' table once the
 * store is ready; the selected row's details go through the capture view model as for any row.
 *
 * The table holds only the rows it shows, with a scroll bar of its own over every row
 * ({@link WindowedTable}).
 */
public final class StoreTableView extends VBox {
    private final CaptureViewModel vm;
    private final TableView<EventRow> table = new TableView<>();
    private final WindowedTable rowsShown = new WindowedTable(table);
    private final TextField filter = TextFields.createClearableTextField();
    private final TextField goTo = new TextField();
    private final Label message = new Label();
    private final Label rows = new Label();
    private final Label error = new Label();
    private final Button event = new Button();
    private final Button thread = new Button();
    /** The query view's "show these events". */
    private final Button frames = new Button();
    private StoreTable bound;

    /**
     * @param vm   the capture view model ({@link CaptureViewModel#storeTableProperty()})
     * @param show "Show in Wireshark": opens a file at a frame
     */
    public StoreTableView(CaptureViewModel vm, Supplier<BiConsumer<String, Long>> show) {
        super(4);
        this.vm = vm;
        setId("store-pane");
        EventTableViewModel tv = vm.table();
        rows.setId("store-rows");
        setUpGoTo();
        message.setId("store-message");
        HBox head = new HBox(12, rows, goTo, message);
        head.setAlignment(Pos.CENTER_LEFT);
        setUpFilter();
        event.setId("store-filter-event");
        event.setMnemonicParsing(false);
        thread.setId("store-filter-thread");
        thread.setMnemonicParsing(false);
        error.setId("store-filter-error");
        error.setStyle("-fx-text-fill: #b00020; -fx-font-family: monospace;");
        error.managedProperty().bind(error.visibleProperty());
        frames.setId("store-filter-frames");
        frames.setMnemonicParsing(false);
        frames.managedProperty().bind(frames.visibleProperty());
        frames.setVisible(false);
        HBox filterRow = new HBox(6, filter, event, thread, frames);
        filterRow.setAlignment(Pos.CENTER_LEFT);

        setUpTable(tv);
        table.setContextMenu(contextMenu(show));
        VBox.setVgrow(rowsShown, Priority.ALWAYS);
        getChildren().addAll(head, new VBox(2, filterRow, error), rowsShown);

        vm.storeTableProperty().addListener((o, a, t) -> use(a, t));
        event.managedProperty().bind(event.visibleProperty());
        thread.managedProperty().bind(thread.visibleProperty());
        error.textProperty().addListener((o, a, b) -> filter.setStyle(b == null || b.isEmpty() ? "" : "-fx-control-inner-background: #ffe4e4;"));
        tv.timeModeProperty().addListener((o, a, b) -> table.refresh());
        tv.wallClockProperty().addListener((o, a, b) -> table.refresh());
    }

    /** The "Go to frame" field: a frame number selects its row. */
    private void setUpGoTo() {
        goTo.setId("store-goto");
        goTo.setPromptText("Go to frame (Ctrl+G)");
        goTo.setPrefColumnCount(12);
        goTo.setTooltip(new Tooltip("A frame number (Wireshark's frame.number): selects its row"));
        goTo.setOnAction(e -> {
            String t = goTo.getText().strip().replace(",", "");
            if (bound == null || !t.matches("[0-9]{1,18}")) {
                message.setText("a frame number, please");
                return;
            }
            showFrame(Long.parseLong(t));
            table.requestFocus();
        });
    }

    /** The filter field: kernel syntax over every event, applied as it is typed. */
    private void setUpFilter() {
        filter.setId("store-filter");
        filter.setPromptText("Filter (kernel syntax, over every event), e.g.  common_pid == 1 && prev_state & 1,  COMM ~ \"kwork*\"");
        filter.addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            if (e.getCode() == KeyCode.ENTER) {
                e.consume(); // the filter applies as it is typed; Enter goes to no button
            }
        });
        HBox.setHgrow(filter, Priority.ALWAYS);
    }

    /** The columns (sorted by the store, not in memory), the time in the table's time mode, the selection to the details. */
    private void setUpTable(EventTableViewModel tv) {
        table.setId("store-table");
        table.getSelectionModel().setSelectionMode(SelectionMode.SINGLE);
        table.setFixedCellSize(22);
        table.setPlaceholder(new Label("No event passes the filter"));
        table.getColumns().add(col("Frame", EventRow::frame, 80, StoreTable.Column.FRAME));
        TableColumn<EventRow, EventRow> time = new TableColumn<>("Time");
        time.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(cd.getValue()));
        time.setCellFactory(c -> new TableCell<>() {
            @Override
            protected void updateItem(EventRow item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty || item == null || item.frame() == 0 ? null : tv.timeText(item));
            }
        });
        time.setUserData(StoreTable.Column.TIME);
        time.setPrefWidth(150);
        table.getColumns().add(time);
        table.getColumns().add(col("CPU", EventRow::cpu, 45, StoreTable.Column.CPU));
        table.getColumns().add(col("PID", EventRow::pid, 70, StoreTable.Column.PID));
        table.getColumns().add(col("Comm", EventRow::comm, 130, StoreTable.Column.COMM));
        table.getColumns().add(col("Event", EventRow::event, 190, StoreTable.Column.EVENT));
        // the kernel's text: wide enough for a sched_switch line; a longer one is whole in its tooltip
        TableColumn<EventRow, String> line = col("Line", EventRow::text, 900, null);
        line.setSortable(false);
        line.setCellFactory(c -> new TableCell<>() {
            private final Tooltip whole = new Tooltip();

            @Override
            protected void updateItem(String item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty ? null : item);
                whole.setText(item);
                setTooltip(empty || item == null || item.isEmpty() ? null : whole);
            }
        });
        table.getColumns().add(line);
        table.setSortPolicy(t -> {
            if (bound != null) {
                var order = t.getSortOrder();
                if (order.isEmpty()) {
                    bound.sort(StoreTable.Column.FRAME, true);
                } else {
                    bound.sort((StoreTable.Column) order.get(0).getUserData(),
                            order.get(0).getSortType() == TableColumn.SortType.ASCENDING);
                }
            }
            return true;
        });
        table.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> {
            if (b != null && b.frame() > 0) {
                tv.selectedProperty().set(b);
            }
        });
    }

    /** The store's table changed from {@code a} to {@code t} (null: none): the controls follow it. */
    private void use(StoreTable a, StoreTable t) {
        if (a != null) {
            filter.textProperty().unbindBidirectional(a.filterTextProperty());
        }
        bound = t;
        table.getSortOrder().clear();
        rowsShown.setTable(t);
        if (t == null) {
            rows.textProperty().unbind();
            error.textProperty().unbind();
            error.visibleProperty().unbind();
            message.textProperty().unbind();
            event.textProperty().unbind();
            event.visibleProperty().unbind();
            thread.textProperty().unbind();
            thread.visibleProperty().unbind();
            frames.textProperty().unbind();
            frames.visibleProperty().unbind();
            frames.setVisible(false);
            return;
        }
        filter.setText(t.filterTextProperty().get());
        filter.textProperty().bindBidirectional(t.filterTextProperty());
        rows.textProperty().bind(Bindings.createStringBinding(() -> String.format("%,d of %,d events (all, from the store)",
                t.shownProperty().get(), t.total()), t.shownProperty()));
        error.textProperty().bind(t.filterErrorProperty());
        error.visibleProperty().bind(t.filterErrorProperty().isNotEmpty());
        message.textProperty().bind(t.messageProperty());
        event.textProperty().bind(Bindings.concat("event: ", t.eventRestrictionProperty(), "  ✕"));
        event.visibleProperty().bind(t.eventRestrictionProperty().isNotNull());
        event.setOnAction(e -> t.eventRestrictionProperty().set(null));
        thread.textProperty().bind(Bindings.createStringBinding(() -> "thread " + t.threadProperty().get() + "  ✕",
                t.threadProperty()));
        thread.visibleProperty().bind(t.threadProperty().isNotNull());
        thread.setOnAction(e -> t.threadProperty().set(null));
        frames.textProperty().bind(Bindings.concat(t.frameRestrictionProperty(), "  ✕"));
        frames.visibleProperty().bind(t.frameRestrictionProperty().isNotNull());
        frames.setOnAction(e -> t.restrictToFrames(null, null));
    }

    /** Selects a frame's row and scrolls the table to it, three rows below the top (no-op without a store table). */
    public void showFrame(long frame) {
        if (bound == null) {
            return;
        }
        vm.table().followProperty().set(false); // a live table holds still on the frame
        bound.goToFrame(frame, i -> {
            if (i >= 0) {
                rowsShown.showRow(i, frame);
            }
        });
    }

    /** The rows shown, their scroll bar and the selected row, as numbers of the store table's rows. */
    public WindowedTable rows() {
        return rowsShown;
    }

    /** Ctrl+G: focuses the Go to frame box. */
    public void goToFrame() {
        goTo.requestFocus();
        goTo.selectAll();
    }

    /** The table, for tests. */
    public TableView<EventRow> table() {
        return table;
    }

    private ContextMenu contextMenu(Supplier<BiConsumer<String, Long>> show) {
        ContextMenu menu = new ContextMenu(new MenuItem("Clear filters"));
        menu.setOnShowing(e -> {
            menu.getItems().clear();
            StoreTable t = bound;
            EventRow r = table.getSelectionModel().getSelectedItem();
            if (t == null) {
                return;
            }
            if (r != null && r.frame() > 0) {
                menu.getItems().addAll(
                        item("Filter on pid " + r.pid(), "store-ctx-pid", () -> t.filterOnPid(r)),
                        item("Filter on comm \"" + r.comm() + "\"", "store-ctx-comm", () -> t.filterOnComm(r)),
                        item("Filter on CPU " + r.cpu(), "store-ctx-cpu", () -> t.filterOnCpu(r)),
                        item("Filter on event " + r.event(), "store-ctx-event", () -> t.eventRestrictionProperty().set(r.event())),
                        item("Follow this thread (" + r.comm() + "/" + r.pid() + ")", "store-ctx-thread",
                                () -> t.threadProperty().set(r.pid())),
                        new SeparatorMenuItem(),
                        item("Show in Wireshark (frame " + r.frame() + ")", "store-ctx-wireshark",
                                () -> vm.showInWireshark(r, show.get())),
                        new SeparatorMenuItem());
            }
            menu.getItems().add(item("Clear filters", "store-ctx-clear", t::clearFilters));
        });
        return menu;
    }

    private static MenuItem item(String text, String id, Runnable action) {
        MenuItem m = new MenuItem(text);
        m.setMnemonicParsing(false); // event and task names: an underscore is text
        m.setId(id);
        m.setOnAction(e -> action.run());
        return m;
    }

    private static <T> TableColumn<EventRow, T> col(String title, Function<EventRow, T> get, double width, StoreTable.Column sort) {
        TableColumn<EventRow, T> c = new TableColumn<>(title);
        c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(cd.getValue() == StoreTable.LOADING && sort != null ? null : get.apply(cd.getValue())));
        c.setPrefWidth(width);
        c.setUserData(sort);
        return c;
    }
}
