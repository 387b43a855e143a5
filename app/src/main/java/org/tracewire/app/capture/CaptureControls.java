package org.tracewire.app.capture;

import java.util.List;
import java.util.function.Consumer;
import javafx.beans.binding.Bindings;
import javafx.beans.property.LongProperty;
import javafx.beans.value.ObservableValue;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.ContextMenu;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.MenuItem;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.TextField;
import javafx.scene.control.TitledPane;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.util.converter.NumberStringConverter;
import org.tracewire.tracefs.EventSelection;

/**
 * The capture view's left pane: the chosen events (with filter and stack traces; remove, edit the
 * filter), the outputs (TAP interface, pcapng file, ring buffer size), Start/Stop/Cancel, the
 * status line and the live counters.
 */
final class CaptureControls extends VBox {
    private final CaptureViewModel vm;
    private final ListView<EventSelection> events;

    /**
     * @param vm         the capture's view model
     * @param editFilter reopens an event's filter in the filter builder
     */
    CaptureControls(CaptureViewModel vm, Consumer<EventSelection> editFilter) {
        super(8);
        this.vm = vm;
        events = new ListView<>(vm.getEvents());
        VBox eventsPane = eventsPane(editFilter);
        GridPane outputs = outputs();
        GridPane counters = counters();
        Button start = new Button("Start");
        start.setId("capture-start");
        // not the default button: Enter in a text box of this view (the table's filter, find, the
        // outputs) must never start a capture, which may ask for a password and starts tracing
        start.setOnAction(e -> vm.start());
        start.setTooltip(new Tooltip("Starts the capture (the first start launches the privileged backend)"));
        start.disableProperty().bind(vm.runningProperty().or(vm.busyProperty()));
        Button stop = new Button("Stop");
        stop.setId("capture-stop");
        stop.setOnAction(e -> vm.stop());
        stop.disableProperty().bind(vm.runningProperty().not().or(vm.busyProperty()));
        Label status = new Label();
        status.setId("capture-status");
        status.setWrapText(true);
        status.textProperty().bind(vm.statusProperty());

        ProgressIndicator spinner = new ProgressIndicator();
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
        getChildren().addAll(
                new TitledPane("Events", eventsPane),
                new TitledPane("Outputs", outputs),
                buttons, status,
                new TitledPane("Counters", counters));
        setPadding(new Insets(8));
        setPrefWidth(360);
        setMinWidth(300);
        for (var n : getChildren()) {
            if (n instanceof TitledPane t) {
                t.setCollapsible(false);
            }
        }
    }

    /** The chosen events, their stack-trace menu, Remove and Edit filter. */
    private VBox eventsPane(Consumer<EventSelection> editFilter) {
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
        ContextMenu stackMenu = new ContextMenu();
        for (EventSelection.Stack st : EventSelection.Stack.values()) {
            MenuItem mi = new MenuItem(
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
        edit.setTooltip(new Tooltip("Reopens the selected event's filter in the Filter builder "
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

        return new VBox(4, events, new HBox(8, remove, edit));
    }

    /** The outputs: TAP interface, pcapng file, ring buffer per CPU. */
    private GridPane outputs() {
        TextField iface = new TextField();
        iface.setId("capture-iface");
        iface.textProperty().bindBidirectional(vm.ifaceProperty());
        iface.setTooltip(new Tooltip("A TAP interface the events go to as Ethernet frames (Wireshark "
                + "captures it live); empty for none"));
        TextField pcapng = new TextField();
        pcapng.setId("capture-pcapng");
        pcapng.setPromptText("a new file in ~/.cache/tracewire/live");
        pcapng.setTooltip(new Tooltip("The pcapng file the capture writes and the app reads as it"
                + " grows; empty: a new file in the cache ($XDG_CACHE_HOME/tracewire/live)"));
        pcapng.textProperty().bindBidirectional(vm.pcapngProperty());
        TextField buffer = new TextField();
        buffer.setId("capture-buffer");
        buffer.textProperty().bindBidirectional(vm.bufferKbProperty(), new NumberStringConverter("#"));
        buffer.setTooltip(new Tooltip("The ring buffer per CPU in KB; 0 keeps the kernel's default "
                + "(a bigger buffer loses fewer events in bursts)"));
        GridPane outputs = new GridPane();
        outputs.setHgap(8);
        outputs.setVgap(4);
        outputs.addRow(0, new Label("Interface (TAP):"), iface);
        outputs.addRow(1, new Label("pcapng file:"), pcapng);
        outputs.addRow(2, new Label("Buffer KB/CPU:"), buffer);
        buffer.setPromptText("0 = default");
        for (TextField f : List.of(iface, pcapng, buffer)) {
            GridPane.setHgrow(f, Priority.ALWAYS);
        }
        for (Node n : outputs.getChildren()) {
            if (n instanceof Label l) {
                l.setMinWidth(Region.USE_PREF_SIZE);
            }
        }
        outputs.disableProperty().bind(vm.runningProperty());

        return outputs;
    }

    /** The live counters. */
    private GridPane counters() {
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

        return counters;
    }

    /** Removes the event selected in the event list; false when none is selected or a capture runs. */
    boolean removeSelectedEvent() {
        EventSelection s = events.getSelectionModel().getSelectedItem();
        if (s == null || vm.runningProperty().get()) {
            return false;
        }
        vm.getEvents().remove(s);
        return true;
    }

    private static Label counter(String id, LongProperty p) {
        Label l = new Label();
        l.setId(id);
        l.textProperty().bind(Bindings.createStringBinding(() -> String.format("%,d", p.get()), p));
        return l;
    }

    private static Label warnAbove0(Label l, LongProperty p, String tip) {
        l.styleProperty().bind(Bindings.when(p.greaterThan(0))
                .then("-fx-text-fill: #b00020; -fx-font-weight: bold;").otherwise(""));
        l.setTooltip(new Tooltip(tip));
        return l;
    }

    private static Label bind(Label l, String id, ObservableValue<String> p) {
        l.setId(id);
        l.textProperty().bind(p);
        return l;
    }
}
