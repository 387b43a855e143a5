package org.tracewire.app.latency;

import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.chart.BarChart;
import javafx.scene.chart.CategoryAxis;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.util.StringConverter;
import org.tracewire.analysis.LatencyPair;

/** The latency view: pairs in a table (kind, task, waker, CPU, latency), a log2 histogram beside it. */
public final class LatencyView extends BorderPane {
    /** @param vm the view model */
    public LatencyView(LatencyViewModel vm) {
        setId("latency-view");
        ChoiceBox<LatencyPair.Kind> kind = new ChoiceBox<>(FXCollections.observableArrayList(null, LatencyPair.Kind.SCHED_WAKEUP,
                LatencyPair.Kind.SYSCALL, LatencyPair.Kind.IRQ, LatencyPair.Kind.SOFTIRQ));
        kind.setId("latency-kind");
        kind.setTooltip(new javafx.scene.control.Tooltip("Which pairs the table and histogram show: wakeup to switch-in, syscall, irq or softirq durations"));
        kind.setConverter(new StringConverter<>() {
            @Override
            public String toString(LatencyPair.Kind k) {
                return k == null ? "All kinds" : switch (k) {
                    case SCHED_WAKEUP -> "Wakeup → running";
                    case SYSCALL -> "Syscall duration";
                    case IRQ -> "IRQ handler";
                    case SOFTIRQ -> "Softirq";
                };
            }

            @Override
            public LatencyPair.Kind fromString(String s) {
                return null;
            }
        });
        kind.valueProperty().bindBidirectional(vm.kindProperty());
        Label status = new Label();
        status.setId("latency-status");
        status.textProperty().bind(vm.statusProperty());
        HBox bar = new HBox(10, new Label("Show:"), kind, status);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setPadding(new Insets(6));

        TableView<LatencyViewModel.LatencyRow> table = new TableView<>(vm.getPairs());
        table.setId("latency-table");
        table.setPlaceholder(new Label("No pairs yet"));
        table.getColumns().add(col("Kind", r -> r.kind().toString(), 135));
        table.getColumns().add(col("Task", LatencyViewModel.LatencyRow::task, 220));
        table.getColumns().add(col("Waker", LatencyViewModel.LatencyRow::waker, 70));
        table.getColumns().add(col("CPU", LatencyViewModel.LatencyRow::cpu, 50));
        TableColumn<LatencyViewModel.LatencyRow, Long> lat = col("Latency (µs)", LatencyViewModel.LatencyRow::latencyNs, 110);
        lat.setCellFactory(c -> new javafx.scene.control.TableCell<>() {
            @Override
            protected void updateItem(Long v, boolean empty) {
                super.updateItem(v, empty);
                setText(empty || v == null ? null : String.format("%,.3f", v / 1e3));
                setStyle("-fx-alignment: CENTER-RIGHT;");
            }
        });
        table.getColumns().add(lat);
        table.setFixedCellSize(22);
        table.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> vm.select(b));

        CategoryAxis x = new CategoryAxis();
        x.setLabel("latency (log2 buckets, lower bound)");
        NumberAxis y = new NumberAxis();
        y.setLabel("pairs");
        BarChart<String, Number> chart = new BarChart<>(x, y);
        chart.setId("latency-histogram");
        chart.setLegendVisible(false);
        chart.setAnimated(false);
        chart.setTitle("Latency histogram");
        chart.setBarGap(1);
        chart.setCategoryGap(2);
        XYChart.Series<String, Number> series = new XYChart.Series<>();
        chart.getData().add(series);
        vm.getHistogram().addListener((ListChangeListener<LatencyViewModel.Bucket>) c -> {
            series.getData().setAll(vm.getHistogram().stream()
                    .map(b -> new XYChart.Data<String, Number>(b.label(), b.count())).toList());
        });
        SplitPane split = new SplitPane(table, chart);
        split.setOrientation(Orientation.HORIZONTAL);
        split.setDividerPositions(0.5);
        setTop(bar);
        setCenter(split);
    }

    private static <T> TableColumn<LatencyViewModel.LatencyRow, T> col(String title, Function<LatencyViewModel.LatencyRow, T> get, double w) {
        TableColumn<LatencyViewModel.LatencyRow, T> c = new TableColumn<>(title);
        c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(get.apply(cd.getValue())));
        c.setPrefWidth(w);
        return c;
    }
}
