package org.tracewire.app.capture;

import java.util.function.Function;
import javafx.animation.AnimationTimer;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.TitledPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.util.converter.NumberStringConverter;

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
    private javafx.scene.control.CheckBox follow;

    /** @param vm the view model */
    public CaptureView(CaptureViewModel vm) {
        setId("capture-view");
        ListView<CaptureEventSpec> events = new ListView<>(vm.getEvents());
        events.setId("capture-events");
        events.setPrefHeight(150);
        events.setPlaceholder(new Label("No events: Browser → Add to capture"));
        events.setCellFactory(l -> new ListCell<>() {
            @Override
            protected void updateItem(CaptureEventSpec item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty || item == null ? null
                        : item.event() + (item.filter().isEmpty() ? "" : "   if " + item.filter()));
            }
        });
        Button remove = new Button("Remove");
        remove.setId("capture-remove");
        remove.setOnAction(e -> {
            CaptureEventSpec s = events.getSelectionModel().getSelectedItem();
            if (s != null) {
                vm.getEvents().remove(s);
            }
        });
        remove.disableProperty().bind(events.getSelectionModel().selectedItemProperty().isNull().or(vm.runningProperty()));

        TextField iface = new TextField();
        iface.setId("capture-iface");
        iface.textProperty().bindBidirectional(vm.ifaceProperty());
        TextField pcapng = new TextField();
        pcapng.setId("capture-pcapng");
        pcapng.setPromptText("/tmp/trace.pcapng (optional)");
        pcapng.textProperty().bindBidirectional(vm.pcapngProperty());
        TextField buffer = new TextField();
        buffer.setId("capture-buffer");
        buffer.textProperty().bindBidirectional(vm.bufferKbProperty(), new NumberStringConverter("#"));
        GridPane outputs = new GridPane();
        outputs.setHgap(8);
        outputs.setVgap(4);
        outputs.addRow(0, new Label("Interface (TAP):"), iface);
        outputs.addRow(1, new Label("pcapng file:"), pcapng);
        outputs.addRow(2, new Label("Buffer KB/CPU (0 = default):"), buffer);
        outputs.disableProperty().bind(vm.runningProperty());

        Button start = new Button("Start");
        start.setId("capture-start");
        start.setDefaultButton(true);
        start.setOnAction(e -> vm.start());
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
        counters.addRow(1, new Label("Events/s"), bind(new Label(), "capture-count-rate", vm.rateProperty()));
        counters.addRow(2, new Label("Frames"), counter("capture-count-frames", vm.framesProperty()));
        counters.addRow(3, new Label("Bytes"), counter("capture-count-bytes", vm.bytesProperty()));
        counters.addRow(4, new Label("Lost (kernel)"), counter("capture-count-lost", vm.lostProperty()));
        counters.addRow(5, new Label("Not streamed"), counter("capture-count-dropped", vm.streamDroppedProperty()));
        counters.addRow(6, new Label("Received here"), counter("capture-count-received", vm.receivedProperty()));

        HBox buttons = new HBox(8, start, stop);
        VBox left = new VBox(8,
                new TitledPane("Events", new VBox(4, events, remove)),
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
        table.setItems(vm.getRows());
        table.setPlaceholder(new Label("Events appear here while capturing"));
        table.getColumns().add(col("Time", EventRow::time, 150));
        table.getColumns().add(col("CPU", EventRow::cpu, 45));
        table.getColumns().add(col("PID", EventRow::pid, 70));
        table.getColumns().add(col("Comm", EventRow::comm, 130));
        table.getColumns().add(col("Event", EventRow::event, 190));
        table.getColumns().add(col("Line", EventRow::text, 600));
        table.setFixedCellSize(22);
        vm.selectedProperty().bind(table.getSelectionModel().selectedItemProperty());
        TextArea fields = new TextArea();
        fields.setId("capture-fields");
        fields.setEditable(false);
        fields.setStyle("-fx-font-family: monospace;");
        fields.textProperty().bind(vm.selectedFieldsProperty());
        Label rows = new Label();
        rows.setId("capture-rows");
        rows.textProperty().bind(Bindings.size(vm.getRows()).asString("%,d rows shown (latest " + String.format("%,d", CaptureViewModel.WINDOW) + ")"));
        javafx.scene.control.CheckBox follow = new javafx.scene.control.CheckBox("Follow newest");
        follow.setId("capture-follow");
        follow.setSelected(true);
        this.follow = follow;
        HBox tableHead = new HBox(16, rows, follow);
        SplitPane center = new SplitPane(new VBox(4, tableHead, grow(table)), fields);
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
                    if (CaptureView.this.follow.isSelected() && size > 0
                            && System.identityHashCode(vm.getRows().get(size - 1)) != before) {
                        table.scrollTo(size - 1);
                    }
                }
            }
        };
        pulse.start();
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

    private static Label bind(Label l, String id, javafx.beans.value.ObservableValue<String> p) {
        l.setId(id);
        l.textProperty().bind(p);
        return l;
    }

    private static <T> TableColumn<EventRow, T> col(String title, Function<EventRow, T> get, double width) {
        TableColumn<EventRow, T> c = new TableColumn<>(title);
        c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(get.apply(cd.getValue())));
        c.setPrefWidth(width);
        c.setSortable(false);
        return c;
    }

    /** Stops the UI pulse (when the view is discarded). */
    public void dispose() {
        pulse.stop();
    }

    /** The event table, for tests. */
    public TableView<EventRow> table() {
        return table;
    }
}
