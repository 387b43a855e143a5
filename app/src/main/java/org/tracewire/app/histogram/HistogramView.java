package org.tracewire.app.histogram;

import java.util.List;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.chart.BarChart;
import javafx.scene.chart.CategoryAxis;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.input.Clipboard;
import javafx.scene.input.ClipboardContent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.scene.text.Font;
import javafx.util.StringConverter;
import org.controlsfx.control.CheckComboBox;
import org.tracewire.analysis.HistEntry;
import org.tracewire.analysis.HistField;
import org.tracewire.analysis.HistTable;

/**
 * The histogram view: a builder in the kernel's hist-trigger vocabulary (event, keys with
 * modifiers, summed values in a ControlsFX check list, sort, size, filter), the trigger text
 * (editable: paste one and Apply), where it runs, and the table beside its bar chart (a log2 key
 * plots as a log2 histogram).
 */
public final class HistogramView extends BorderPane {
    /** @param vm the view model */
    public HistogramView(HistogramViewModel vm) {
        setId("histogram-view");
        FlowPane builder = new FlowPane(8, 6,
                group("Event", eventBox(vm)), key1Group(vm), key2Group(vm), group("Values", valuesBox(vm)),
                sortGroup(vm), group("Size", sizeField(vm)), group("Filter", filterField(vm)));
        builder.setPadding(new Insets(6, 8, 2, 8));
        VBox top = new VBox(4, builder, triggerRow(vm));
        top.getChildren().addAll(statusLines(vm));
        top.setPadding(new Insets(0, 8, 6, 8));
        SplitPane split = new SplitPane(table(vm), charts(vm));
        split.setOrientation(Orientation.HORIZONTAL);
        split.setDividerPositions(0.45);
        setTop(top);
        setCenter(split);
    }

    private static ComboBox<String> eventBox(HistogramViewModel vm) {
        ComboBox<String> event = new ComboBox<>(vm.getEvents());
        event.setId("hist-event");
        event.setPromptText("event");
        event.valueProperty().bindBidirectional(vm.eventProperty());
        event.setTooltip(new Tooltip("The event the histogram counts (events seen in the capture or file)"));
        return event;
    }

    /** The first key: field, modifier, and the bucket size with {@code .buckets}. */
    private static HBox key1Group(HistogramViewModel vm) {
        ComboBox<String> key1 = new ComboBox<>(vm.builder().getFields());
        key1.setId("hist-key1");
        key1.valueProperty().bindBidirectional(vm.builder().key1Property());
        key1.setTooltip(new Tooltip("The field the entries are keyed by (keys=)"));
        ChoiceBox<HistField.Modifier> mod1 = modifiers();
        mod1.setId("hist-key1-mod");
        mod1.valueProperty().bindBidirectional(vm.builder().key1ModifierProperty());
        mod1.setTooltip(new Tooltip("How the key is shown: .execname (pid as comm), .sym, .log2 buckets, .buckets=N, .hex, …"));
        TextField buckets = new TextField();
        buckets.setId("hist-buckets");
        buckets.setPrefColumnCount(5);
        buckets.setPromptText("size");
        buckets.setTooltip(new Tooltip(".buckets=N: the bucket size"));
        buckets.visibleProperty().bind(vm.builder().key1ModifierProperty().isEqualTo(HistField.Modifier.BUCKETS));
        buckets.managedProperty().bind(buckets.visibleProperty());
        buckets.textProperty().addListener((o, a, b) -> {
            try {
                vm.builder().key1BucketsProperty().set(Long.parseLong(b.strip()));
            } catch (NumberFormatException e) {
                vm.builder().key1BucketsProperty().set(0);
            }
        });
        return group("Key", key1, mod1, buckets);
    }

    /** The second key: a field or (none), its modifier. */
    private static HBox key2Group(HistogramViewModel vm) {
        ObservableList<String> key2Choices = FXCollections.observableArrayList();
        Runnable fill2 = () -> {
            key2Choices.setAll(HistBuilder.NONE);
            key2Choices.addAll(vm.builder().getFields());
        };
        vm.builder().getFields().addListener((ListChangeListener<String>) c -> fill2.run());
        fill2.run();
        ComboBox<String> key2 = new ComboBox<>(key2Choices);
        key2.setId("hist-key2");
        key2.setConverter(new StringConverter<>() {
            @Override
            public String toString(String s) {
                return s == null || s.isEmpty() ? "(none)" : s;
            }

            @Override
            public String fromString(String s) {
                return "(none)".equals(s) ? "" : s;
            }
        });
        key2.valueProperty().bindBidirectional(vm.builder().key2Property());
        ChoiceBox<HistField.Modifier> mod2 = modifiers();
        mod2.valueProperty().bindBidirectional(vm.builder().key2ModifierProperty());

        return group("Key 2", key2, mod2);
    }

    /** The summed values, checked in a list kept in step with the view model's. */
    private static CheckComboBox<String> valuesBox(HistogramViewModel vm) {
        CheckComboBox<String> values = new CheckComboBox<>(vm.builder().getNumericFields());
        values.setId("hist-values");
        values.setTitle("values");
        values.setTooltip(new Tooltip("Numeric fields summed per key (vals=)"));
        boolean[] syncing = {false};
        values.getCheckModel().getCheckedItems().addListener((ListChangeListener<String>) c -> {
            if (!syncing[0]) {
                syncing[0] = true;
                vm.builder().getValues().setAll(List.copyOf(values.getCheckModel().getCheckedItems()));
                syncing[0] = false;
            }
        });
        Runnable checkValues = () -> {
            if (syncing[0]) {
                return;
            }
            syncing[0] = true;
            values.getCheckModel().clearChecks();
            for (String v : vm.builder().getValues()) {
                values.getCheckModel().check(v);
            }
            syncing[0] = false;
        };
        vm.builder().getValues().addListener((ListChangeListener<String>) c -> checkValues.run());
        vm.builder().getNumericFields().addListener((ListChangeListener<String>) c -> checkValues.run());

        return values;
    }

    /** The sort field (hitcount, a value or a key) and the order. */
    private static HBox sortGroup(HistogramViewModel vm) {
        ObservableList<String> sortChoices = FXCollections.observableArrayList();
        Runnable fillSort = () -> {
            String keep = vm.builder().sortFieldProperty().get();
            sortChoices.setAll("hitcount");
            sortChoices.addAll(vm.builder().getValues());
            if (vm.builder().key1Property().get() != null) {
                sortChoices.add(vm.builder().key1Property().get());
            }
            if (vm.builder().key2Property().get() != null && !vm.builder().key2Property().get().isEmpty()) {
                sortChoices.add(vm.builder().key2Property().get());
            }
            if (keep != null && !sortChoices.contains(keep)) {
                sortChoices.add(keep);
            }
            if (vm.builder().sortFieldProperty().get() == null && keep != null) {
                vm.builder().sortFieldProperty().set(keep); // a ComboBox clears its value when its items are replaced
            }
        };
        vm.builder().getValues().addListener((ListChangeListener<String>) c -> fillSort.run());
        vm.builder().key1Property().addListener(o -> fillSort.run());
        vm.builder().key2Property().addListener(o -> fillSort.run());
        fillSort.run();
        ComboBox<String> sort = new ComboBox<>(sortChoices);
        sort.setId("hist-sort");
        sort.valueProperty().bindBidirectional(vm.builder().sortFieldProperty());
        sort.setTooltip(new Tooltip("The value the entries are sorted by (sort=)"));
        CheckBox desc = new CheckBox("descending");
        desc.selectedProperty().bindBidirectional(vm.builder().descendingProperty());
        desc.setTooltip(new Tooltip("Largest first (.descending)"));
        return group("Sort", sort, desc);
    }

    private static TextField sizeField(HistogramViewModel vm) {
        TextField size = new TextField(Integer.toString(vm.builder().sizeProperty().get()));
        size.setPrefColumnCount(6);
        size.setTooltip(new Tooltip("Entries at most (size=), rounded up to a power of two in 128..131072"));
        size.setOnAction(e -> applySize(vm, size));
        size.focusedProperty().addListener((o, a, b) -> {
            if (!b) {
                applySize(vm, size);
            }
        });
        vm.builder().sizeProperty().addListener((o, a, b) -> size.setText(Integer.toString(b.intValue())));
        return size;
    }

    private static TextField filterField(HistogramViewModel vm) {
        TextField filter = new TextField();
        filter.setId("hist-filter");
        filter.setPromptText("if filter, e.g. prev_pid != 0");
        filter.setPrefColumnCount(18);
        filter.setTooltip(new Tooltip("Counts only the events this kernel filter accepts (if ...)"));
        filter.setOnAction(e -> vm.builder().filterProperty().set(filter.getText()));
        filter.focusedProperty().addListener((o, a, b) -> {
            if (!b) {
                vm.builder().filterProperty().set(filter.getText());
            }
        });
        vm.builder().filterProperty().addListener((o, a, b) -> filter.setText(b));
        return filter;
    }

    /** The trigger text (type or paste one, Apply) and the button that copies the kernel command. */
    private static HBox triggerRow(HistogramViewModel vm) {
        TextField trigger = new TextField();
        trigger.setId("hist-trigger");
        trigger.setTooltip(new Tooltip("The kernel's hist trigger text; type or paste one and press Enter (Apply)"));
        vm.triggerTextProperty().addListener((o, a, b) -> {
            if (!trigger.isFocused() || b.equals(trigger.getText())) {
                trigger.setText(b);
            }
        });
        trigger.setText(vm.triggerTextProperty().get());
        HBox.setHgrow(trigger, Priority.ALWAYS);
        Button apply = new Button("Apply");
        apply.setId("hist-apply");
        apply.setOnAction(e -> vm.applyTriggerText(trigger.getText()));
        apply.setTooltip(new Tooltip("Parses the trigger text into the builder above"));
        trigger.setOnAction(e -> vm.applyTriggerText(trigger.getText()));
        Button copy = new Button("Copy command");
        copy.setTooltip(new Tooltip("Copies the shell command that sets this trigger in the kernel"));
        copy.setOnAction(e -> {
            ClipboardContent cc = new ClipboardContent();
            cc.putString(vm.kernel().kernelCommandProperty().get());
            Clipboard.getSystemClipboard().setContent(cc);
        });
        HBox triggerRow = new HBox(6, new Label("Trigger:"), trigger, apply, copy);
        triggerRow.setAlignment(Pos.CENTER_LEFT);
        return triggerRow;
    }

    /** The problem, where the histogram runs, the kernel command and the status. */
    private static List<Label> statusLines(HistogramViewModel vm) {
        Label error = new Label();
        error.setId("hist-error");
        error.setStyle("-fx-text-fill: #b00020;");
        error.textProperty().bind(vm.errorProperty());
        error.visibleProperty().bind(vm.errorProperty().isNotEmpty());
        error.managedProperty().bind(error.visibleProperty());
        Label support = new Label();
        support.setId("hist-support");
        support.setWrapText(true);
        support.textProperty().bind(vm.kernel().supportProperty());
        Label command = new Label();
        command.setId("hist-command");
        command.setStyle("-fx-font-family: monospace; -fx-text-fill: #444;");
        command.textProperty().bind(vm.kernel().kernelCommandProperty());
        Label status = new Label();
        status.setId("hist-status");
        status.textProperty().bind(vm.statusProperty());
        return List.of(error, support, command, status);
    }

    /** The entries: the key, the hitcount and the values, columns following the table's spec. */
    private static TableView<HistEntry> table(HistogramViewModel vm) {
        TableView<HistEntry> table = new TableView<>(vm.getEntries());
        table.setId("hist-table");
        table.setPlaceholder(new Label("No entries yet"));
        table.setFixedCellSize(22);
        Runnable columns = () -> {
            HistTable t = vm.tableProperty().get();
            table.getColumns().clear();
            if (t == null) {
                return;
            }
            table.getColumns().add(col("Key (" + String.join(", ", t.keyNames()) + ")", e -> HistBars.label(e, t), 260));
            table.getColumns().add(col("hitcount", HistEntry::hitcount, 90));
            for (int i = 0; i < t.valueNames().size(); i++) {
                int vi = i;
                table.getColumns().add(col(t.valueNames().get(i), e -> Long.toUnsignedString(e.values().get(vi)), 110));
            }
        };
        vm.tableProperty().addListener((o, a, b) -> {
            if (a == null || b == null || !a.keyNames().equals(b.keyNames()) || !a.valueNames().equals(b.valueNames())
                    || a.spec() != b.spec()) {
                columns.run();
            }
        });
        columns.run();
        return table;
    }

    /** The bars and the flame graph, in tabs. */
    private static TabPane charts(HistogramViewModel vm) {
        TabPane right = new TabPane();
        right.setId("hist-right");
        right.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        Tab barsTab = new Tab("Bars", barsPane(vm));
        Tab flameTab = new Tab("Flame graph", flamePane(vm));
        flameTab.setId("hist-flame-tab");
        flameTab.setTooltip(new Tooltip("The stacks of the event's rows that the filter passes (captured with --stack): user frames, then kernel frames, root at the bottom"));
        right.getTabs().addAll(barsTab, flameTab);
        return right;
    }

    /** The bars of the table's first entries (a log2 key as a log2 histogram), and what they plot. */
    private static BorderPane barsPane(HistogramViewModel vm) {
        CategoryAxis x = new CategoryAxis();
        x.setLabel("key");
        x.setAnimated(false);
        // JavaFX hides the 2nd and the last but one key when they come closer to their neighbour
        // than the tick label gap (Axis.layoutChildren), which 40 upright keys at the default font and
        // gap of 3 px do: a smaller font and no gap leave every key named
        x.setTickLabelGap(0);
        x.setTickLabelFont(Font.font(11));
        NumberAxis y = new NumberAxis();
        y.setAnimated(false);
        BarChart<String, Number> chart = new BarChart<>(x, y);
        chart.setId("hist-chart");
        chart.setLegendVisible(false);
        chart.setAnimated(false);
        chart.setBarGap(1);
        chart.setCategoryGap(2);
        XYChart.Series<String, Number> series = new XYChart.Series<>();
        chart.getData().add(series);
        vm.getBars().addListener((ListChangeListener<HistBars.Bar>) c -> series.getData().setAll(vm.getBars().stream()
                .map(b -> new XYChart.Data<String, Number>(b.label(), b.value())).toList()));
        ObservableList<String> plotChoices = FXCollections.observableArrayList("hitcount");
        vm.builder().getValues().addListener((ListChangeListener<String>) c -> {
            // replacing the box's items lets go of its value (plotted then reads null): put it back
            String keep = vm.plottedProperty().get();
            plotChoices.setAll("hitcount");
            plotChoices.addAll(vm.builder().getValues());
            vm.plottedProperty().set(plotChoices.contains(keep) ? keep : "hitcount");
        });
        ChoiceBox<String> plot = new ChoiceBox<>(plotChoices);
        plot.valueProperty().bindBidirectional(vm.plottedProperty());
        y.labelProperty().bind(vm.plottedProperty());
        HBox plotBar = new HBox(6, new Label("Plot:"), plot);
        plotBar.setAlignment(Pos.CENTER_LEFT);
        plotBar.setPadding(new Insets(4));
        BorderPane chartPane = new BorderPane(chart);
        chartPane.setTop(plotBar);
        return chartPane;
    }

    /** The flame graph of the selection's stacks, with what it counts and the frame under the mouse. */
    private static BorderPane flamePane(HistogramViewModel vm) {
        FlameGraphCanvas flame = new FlameGraphCanvas();
        vm.flameProperty().addListener((o, a, b) -> flame.show(b));
        flame.show(vm.flameProperty().get());
        Label flameStatus = new Label();
        flameStatus.setId("flame-status");
        flameStatus.setWrapText(true);
        flameStatus.textProperty().bind(vm.flameStatusProperty());
        Label hover = new Label("hover a frame for its function and count; click to zoom in, click below to zoom out");
        hover.setId("flame-hover");
        hover.setStyle("-fx-font-family: monospace;");
        flame.setOnHover(t -> hover.setText(t.isEmpty() ? "hover a frame for its function and count; click to zoom in, click below to zoom out" : t));
        VBox flameTop = new VBox(2, flameStatus, hover);
        flameTop.setPadding(new Insets(4));
        BorderPane flamePane = new BorderPane(flame);
        flamePane.setTop(flameTop);
        return flamePane;
    }

    private static void applySize(HistogramViewModel vm, TextField size) {
        try {
            vm.builder().sizeProperty().set(Integer.parseInt(size.getText().strip()));
        } catch (NumberFormatException e) {
            size.setText(Integer.toString(vm.builder().sizeProperty().get()));
        }
    }

    private static ChoiceBox<HistField.Modifier> modifiers() {
        ChoiceBox<HistField.Modifier> c = new ChoiceBox<>(FXCollections.observableArrayList(HistField.Modifier.NONE,
                HistField.Modifier.LOG2, HistField.Modifier.BUCKETS, HistField.Modifier.EXECNAME, HistField.Modifier.HEX,
                HistField.Modifier.SYM, HistField.Modifier.SYSCALL));
        c.setConverter(new StringConverter<>() {
            @Override
            public String toString(HistField.Modifier m) {
                return m == null || m == HistField.Modifier.NONE ? "(plain)" : "." + m.text();
            }

            @Override
            public HistField.Modifier fromString(String s) {
                return null;
            }
        });
        return c;
    }

    private static HBox group(String title, Node... nodes) {
        Label l = new Label(title + ":");
        l.setMinWidth(Region.USE_PREF_SIZE);
        HBox box = new HBox(4);
        box.getChildren().add(l);
        box.getChildren().addAll(nodes);
        box.setAlignment(Pos.CENTER_LEFT);
        return box;
    }

    private static <T> TableColumn<HistEntry, T> col(String title, Function<HistEntry, T> get, double w) {
        TableColumn<HistEntry, T> c = new TableColumn<>(title);
        c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(get.apply(cd.getValue())));
        c.setPrefWidth(w);
        c.setSortable(false);
        return c;
    }
}
