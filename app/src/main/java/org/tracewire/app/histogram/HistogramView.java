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
        ComboBox<String> event = new ComboBox<>(vm.getEvents());
        event.setId("hist-event");
        event.setPromptText("event");
        event.valueProperty().bindBidirectional(vm.eventProperty());
        event.setTooltip(new Tooltip("The event the histogram counts (events seen in the capture or file)"));

        ComboBox<String> key1 = new ComboBox<>(vm.getFields());
        key1.setId("hist-key1");
        key1.valueProperty().bindBidirectional(vm.key1Property());
        key1.setTooltip(new Tooltip("The field the entries are keyed by (keys=)"));
        ChoiceBox<HistField.Modifier> mod1 = modifiers();
        mod1.setId("hist-key1-mod");
        mod1.valueProperty().bindBidirectional(vm.key1ModifierProperty());
        mod1.setTooltip(new Tooltip("How the key is shown: .execname (pid as comm), .sym, .log2 buckets, .buckets=N, .hex, …"));
        TextField buckets = new TextField();
        buckets.setId("hist-buckets");
        buckets.setPrefColumnCount(5);
        buckets.setPromptText("size");
        buckets.setTooltip(new Tooltip(".buckets=N: the bucket size"));
        buckets.visibleProperty().bind(vm.key1ModifierProperty().isEqualTo(HistField.Modifier.BUCKETS));
        buckets.managedProperty().bind(buckets.visibleProperty());
        buckets.textProperty().addListener((o, a, b) -> {
            try {
                vm.key1BucketsProperty().set(Long.parseLong(b.strip()));
            } catch (NumberFormatException e) {
                vm.key1BucketsProperty().set(0);
            }
        });
        ObservableList<String> key2Choices = FXCollections.observableArrayList();
        Runnable fill2 = () -> {
            key2Choices.setAll(HistogramViewModel.NONE);
            key2Choices.addAll(vm.getFields());
        };
        vm.getFields().addListener((ListChangeListener<String>) c -> fill2.run());
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
        key2.valueProperty().bindBidirectional(vm.key2Property());
        ChoiceBox<HistField.Modifier> mod2 = modifiers();
        mod2.valueProperty().bindBidirectional(vm.key2ModifierProperty());

        CheckComboBox<String> values = new CheckComboBox<>(vm.getNumericFields());
        values.setId("hist-values");
        values.setTitle("values");
        values.setTooltip(new Tooltip("Numeric fields summed per key (vals=)"));
        boolean[] syncing = {false};
        values.getCheckModel().getCheckedItems().addListener((ListChangeListener<String>) c -> {
            if (!syncing[0]) {
                syncing[0] = true;
                vm.getValues().setAll(List.copyOf(values.getCheckModel().getCheckedItems()));
                syncing[0] = false;
            }
        });
        Runnable checkValues = () -> {
            if (syncing[0]) {
                return;
            }
            syncing[0] = true;
            values.getCheckModel().clearChecks();
            for (String v : vm.getValues()) {
                values.getCheckModel().check(v);
            }
            syncing[0] = false;
        };
        vm.getValues().addListener((ListChangeListener<String>) c -> checkValues.run());
        vm.getNumericFields().addListener((ListChangeListener<String>) c -> checkValues.run());

        ObservableList<String> sortChoices = FXCollections.observableArrayList();
        Runnable fillSort = () -> {
            String keep = vm.sortFieldProperty().get();
            sortChoices.setAll("hitcount");
            sortChoices.addAll(vm.getValues());
            if (vm.key1Property().get() != null) {
                sortChoices.add(vm.key1Property().get());
            }
            if (vm.key2Property().get() != null && !vm.key2Property().get().isEmpty()) {
                sortChoices.add(vm.key2Property().get());
            }
            if (keep != null && !sortChoices.contains(keep)) {
                sortChoices.add(keep);
            }
            if (vm.sortFieldProperty().get() == null && keep != null) {
                vm.sortFieldProperty().set(keep); // a ComboBox clears its value when its items are replaced
            }
        };
        vm.getValues().addListener((ListChangeListener<String>) c -> fillSort.run());
        vm.key1Property().addListener(o -> fillSort.run());
        vm.key2Property().addListener(o -> fillSort.run());
        fillSort.run();
        ComboBox<String> sort = new ComboBox<>(sortChoices);
        sort.setId("hist-sort");
        sort.valueProperty().bindBidirectional(vm.sortFieldProperty());
        sort.setTooltip(new Tooltip("The value the entries are sorted by (sort=)"));
        CheckBox desc = new CheckBox("descending");
        desc.selectedProperty().bindBidirectional(vm.descendingProperty());
        desc.setTooltip(new Tooltip("Largest first (.descending)"));
        TextField size = new TextField(Integer.toString(vm.sizeProperty().get()));
        size.setPrefColumnCount(6);
        size.setTooltip(new Tooltip("Entries at most (size=), rounded up to a power of two in 128..131072"));
        size.setOnAction(e -> applySize(vm, size));
        size.focusedProperty().addListener((o, a, b) -> {
            if (!b) {
                applySize(vm, size);
            }
        });
        vm.sizeProperty().addListener((o, a, b) -> size.setText(Integer.toString(b.intValue())));
        TextField filter = new TextField();
        filter.setId("hist-filter");
        filter.setPromptText("if filter, e.g. prev_pid != 0");
        filter.setPrefColumnCount(18);
        filter.setTooltip(new Tooltip("Counts only the events this kernel filter accepts (if ...)"));
        filter.setOnAction(e -> vm.filterProperty().set(filter.getText()));
        filter.focusedProperty().addListener((o, a, b) -> {
            if (!b) {
                vm.filterProperty().set(filter.getText());
            }
        });
        vm.filterProperty().addListener((o, a, b) -> filter.setText(b));

        FlowPane builder = new FlowPane(8, 6,
                group("Event", event), group("Key", key1, mod1, buckets), group("Key 2", key2, mod2), group("Values", values),
                group("Sort", sort, desc), group("Size", size), group("Filter", filter));
        builder.setPadding(new Insets(6, 8, 2, 8));

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
            cc.putString(vm.kernelCommandProperty().get());
            Clipboard.getSystemClipboard().setContent(cc);
        });
        HBox triggerRow = new HBox(6, new Label("Trigger:"), trigger, apply, copy);
        triggerRow.setAlignment(Pos.CENTER_LEFT);
        Label error = new Label();
        error.setId("hist-error");
        error.setStyle("-fx-text-fill: #b00020;");
        error.textProperty().bind(vm.errorProperty());
        error.visibleProperty().bind(vm.errorProperty().isNotEmpty());
        error.managedProperty().bind(error.visibleProperty());
        Label support = new Label();
        support.setId("hist-support");
        support.setWrapText(true);
        support.textProperty().bind(vm.supportProperty());
        Label command = new Label();
        command.setId("hist-command");
        command.setStyle("-fx-font-family: monospace; -fx-text-fill: #444;");
        command.textProperty().bind(vm.kernelCommandProperty());
        Label status = new Label();
        status.setId("hist-status");
        status.textProperty().bind(vm.statusProperty());
        VBox top = new VBox(4, builder, triggerRow, error, support, command, status);
        top.setPadding(new Insets(0, 8, 6, 8));

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
            table.getColumns().add(col("Key (" + String.join(", ", t.keyNames()) + ")", e -> HistogramViewModel.label(e, t), 260));
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

        CategoryAxis x = new CategoryAxis();
        x.setLabel("key");
        x.setAnimated(false);
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
        vm.getBars().addListener((ListChangeListener<HistogramViewModel.Bar>) c -> series.getData().setAll(vm.getBars().stream()
                .map(b -> new XYChart.Data<String, Number>(b.label(), b.value())).toList()));
        ObservableList<String> plotChoices = FXCollections.observableArrayList("hitcount");
        vm.getValues().addListener((ListChangeListener<String>) c -> {
            plotChoices.setAll("hitcount");
            plotChoices.addAll(vm.getValues());
            if (!plotChoices.contains(vm.plottedProperty().get())) {
                vm.plottedProperty().set("hitcount");
            }
        });
        ChoiceBox<String> plot = new ChoiceBox<>(plotChoices);
        plot.valueProperty().bindBidirectional(vm.plottedProperty());
        y.labelProperty().bind(vm.plottedProperty());
        HBox plotBar = new HBox(6, new Label("Plot:"), plot);
        plotBar.setAlignment(Pos.CENTER_LEFT);
        plotBar.setPadding(new Insets(4));
        BorderPane chartPane = new BorderPane(chart);
        chartPane.setTop(plotBar);
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
        TabPane right = new TabPane();
        right.setId("hist-right");
        right.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        Tab barsTab = new Tab("Bars", chartPane);
        Tab flameTab = new Tab("Flame graph", flamePane);
        flameTab.setId("hist-flame-tab");
        flameTab.setTooltip(new Tooltip("The stacks of the event's rows that the filter passes (captured with --stack): user frames, then kernel frames, root at the bottom"));
        right.getTabs().addAll(barsTab, flameTab);
        SplitPane split = new SplitPane(table, right);
        split.setOrientation(Orientation.HORIZONTAL);
        split.setDividerPositions(0.45);
        setTop(top);
        setCenter(split);
    }

    private static void applySize(HistogramViewModel vm, TextField size) {
        try {
            vm.sizeProperty().set(Integer.parseInt(size.getText().strip()));
        } catch (NumberFormatException e) {
            size.setText(Integer.toString(vm.sizeProperty().get()));
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
