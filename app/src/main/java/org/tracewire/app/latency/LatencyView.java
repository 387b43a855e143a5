package org.tracewire.app.latency;

import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;
import org.tracewire.analysis.LatencyPair;

/**
 * The latency view: the pairs in a table (kind, task, waker by name, CPU, latency, end frame; over
 * a store the worst first, a page at a time), p50/p90/p99/max, and the histogram on log axes
 * ({@link LatencyChart}) beside it.
 */
public final class LatencyView extends BorderPane {
    /** @param vm the view model */
    public LatencyView(LatencyViewModel vm) {
        setId("latency-view");
        ChoiceBox<LatencyPair.Kind> kind = kindBox(vm);
        Label status = new Label();
        status.setId("latency-status");
        status.textProperty().bind(vm.statusProperty());

        TableView<LatencyViewModel.LatencyRow> table = table(vm);
        LatencyChart chart = new LatencyChart();
        Runnable redraw = () -> chart.show(vm.getHistogram(), vm.summaryProperty().get());
        vm.getHistogram().addListener((ListChangeListener<LatencyViewModel.Bucket>) c -> redraw.run());
        vm.summaryProperty().addListener((o, a, b) -> redraw.run());

        Label percentiles = percentiles(vm);
        HBox pager = pager(vm);
        BorderPane tablePane = new BorderPane(table);
        tablePane.setTop(pager);
        status.setWrapText(true);
        VBox bar = new VBox(2, new HBox(10, new Label("Show:"), kind, percentiles), status);
        ((HBox) bar.getChildren().get(0)).setAlignment(Pos.CENTER_LEFT);
        bar.setPadding(new Insets(6));
        SplitPane split = new SplitPane(tablePane, chart);
        split.setOrientation(Orientation.HORIZONTAL);
        split.setDividerPositions(0.6);
        setTop(bar);
        setCenter(split);
    }

    /** Which pairs the table and histogram show: all, or one kind. */
    private static ChoiceBox<LatencyPair.Kind> kindBox(LatencyViewModel vm) {
        ChoiceBox<LatencyPair.Kind> kind = new ChoiceBox<>(FXCollections.observableArrayList(null, LatencyPair.Kind.SCHED_WAKEUP,
                LatencyPair.Kind.SYSCALL, LatencyPair.Kind.IRQ, LatencyPair.Kind.SOFTIRQ));
        kind.setId("latency-kind");
        kind.setTooltip(new Tooltip("Which pairs the table and histogram show: wakeup to switch-in, syscall, irq or softirq durations"));
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
        return kind;
    }

    /** The pairs: kind, task, waker, CPU, latency (µs), end frame; a selected pair goes to its frame. */
    private static TableView<LatencyViewModel.LatencyRow> table(LatencyViewModel vm) {
        TableView<LatencyViewModel.LatencyRow> table = new TableView<>(vm.getPairs());
        table.setId("latency-table");
        table.setPlaceholder(new Label("No pairs yet"));
        table.getColumns().add(col("Kind", r -> LatencyViewModel.kindName(r.kind()), 130));
        table.getColumns().add(col("Task", LatencyViewModel.LatencyRow::task, 185));
        table.getColumns().add(col("Waker", LatencyViewModel.LatencyRow::waker, 170));
        table.getColumns().add(col("CPU", LatencyViewModel.LatencyRow::cpu, 40));
        TableColumn<LatencyViewModel.LatencyRow, Long> lat = col("Latency (µs)", LatencyViewModel.LatencyRow::latencyNs, 100);
        lat.setCellFactory(c -> new TableCell<>() {
            @Override
            protected void updateItem(Long v, boolean empty) {
                super.updateItem(v, empty);
                setText(empty || v == null ? null : String.format("%,.3f", v / 1e3));
                setStyle("-fx-alignment: CENTER-RIGHT;");
            }
        });
        table.getColumns().add(lat);
        TableColumn<LatencyViewModel.LatencyRow, String> frame = col("Frame", r -> r.frame() < 0 ? "" : String.format("%,d", r.frame()), 75);
        table.getColumns().add(frame);
        table.setFixedCellSize(22);
        table.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> vm.select(b));
        return table;
    }

    /** "N pairs: p50 … · p90 … · p99 … · max …", empty without pairs. */
    private static Label percentiles(LatencyViewModel vm) {
        Label percentiles = new Label();
        percentiles.setId("latency-percentiles");
        percentiles.setStyle("-fx-font-weight: bold;");
        percentiles.textProperty().bind(Bindings.createStringBinding(() -> {
            StoreLatency.Summary s = vm.summaryProperty().get();
            return s == null || s.count() == 0 ? "" : String.format("%,d pairs: p50 %s · p90 %s · p99 %s · max %s", s.count(),
                    LatencyViewModel.label((long) s.p50()), LatencyViewModel.label((long) s.p90()),
                    LatencyViewModel.label((long) s.p99()), LatencyViewModel.label(s.max()));
        }, vm.summaryProperty()));
        return percentiles;
    }

    /** Over a store: the previous and next page of pairs, worst first. */
    private static HBox pager(LatencyViewModel vm) {
        Button worse = new Button("◀ Worse");
        worse.setId("latency-previous");
        worse.setOnAction(e -> vm.previousPage());
        worse.disableProperty().bind(vm.pageStartProperty().isEqualTo(0));
        Button better = new Button("Next ▶");
        better.setId("latency-next");
        better.setOnAction(e -> vm.nextPage());
        better.disableProperty().bind(Bindings.createBooleanBinding(
                () -> vm.pageStartProperty().get() + LatencyViewModel.PAGE_SIZE >= vm.totalProperty().get(),
                vm.pageStartProperty(), vm.totalProperty()));
        Label hint = new Label("worst pairs first; select one to go to its frame");
        hint.setStyle("-fx-text-fill: #555;");
        HBox pager = new HBox(8, worse, better, hint);
        pager.setAlignment(Pos.CENTER_LEFT);
        pager.setPadding(new Insets(4));
        pager.visibleProperty().bind(vm.overStoreProperty());
        pager.managedProperty().bind(pager.visibleProperty());
        return pager;
    }

    private static <T> TableColumn<LatencyViewModel.LatencyRow, T> col(String title, Function<LatencyViewModel.LatencyRow, T> get, double w) {
        TableColumn<LatencyViewModel.LatencyRow, T> c = new TableColumn<>(title);
        c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(get.apply(cd.getValue())));
        c.setPrefWidth(w);
        return c;
    }
}
