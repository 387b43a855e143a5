package org.tracewire.app.iograph;

import java.util.ArrayList;
import java.util.List;
import javafx.beans.binding.Bindings;
import javafx.collections.FXCollections;
import javafx.geometry.Point2D;
import javafx.geometry.Pos;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;

/**
 * The I/O graph (Wireshark's Statistics › I/O Graph): events per interval over the whole opened
 * capture, a line per event type or all events, a line per filter; the interval; a linear or
 * logarithmic Y axis; a click on the plot moves the event table to that time. Binds to an
 * {@link IoGraphViewModel}.
 */
public final class IoGraphView extends VBox {
    private final IoGraphViewModel vm;
    private final NumberAxis x = new NumberAxis();
    private final NumberAxis y = new NumberAxis();
    private final LineChart<Number, Number> chart = new LineChart<>(x, y);
    private final StringConverter<Number> linear = y.getTickLabelFormatter();

    /** @param vm the view model */
    public IoGraphView(IoGraphViewModel vm) {
        super(6);
        this.vm = vm;
        setId("iograph-view");
        setStyle("-fx-padding: 6;");
        HBox controls = controls();
        ListView<String> lines = filterLines();
        Label status = new Label();
        status.setId("iograph-status");
        status.textProperty().bind(vm.statusProperty());
        Label error = new Label();
        error.setId("iograph-error");
        error.setStyle("-fx-text-fill: #b00020; -fx-font-family: monospace;");
        error.textProperty().bind(vm.errorProperty());
        error.visibleProperty().bind(vm.errorProperty().isNotEmpty());
        error.managedProperty().bind(error.visibleProperty());

        setUpChart();
        VBox.setVgrow(chart, Priority.ALWAYS);
        getChildren().addAll(controls, lines, status, error, chart);

        vm.graphProperty().addListener((o, a, g) -> draw());
        vm.logScaleProperty().addListener((o, a, b) -> draw());
    }

    /** The interval, a line per event type, log Y, and a filter to add as a line. */
    private HBox controls() {
        ComboBox<Long> interval = intervalBox();
        CheckBox perEvent = new CheckBox("A line per event type");
        perEvent.setId("iograph-per-event");
        perEvent.selectedProperty().bindBidirectional(vm.perEventProperty());
        perEvent.setTooltip(new Tooltip("Else one line of all events"));
        CheckBox log = new CheckBox("Log Y");
        log.setId("iograph-log");
        log.selectedProperty().bindBidirectional(vm.logScaleProperty());
        TextField filter = new TextField();
        filter.setId("iograph-filter");
        filter.setPromptText("Add a line: a filter in the kernel's syntax, e.g.  prev_state & 2  or  COMM ~ \"kworker*\"");
        filter.textProperty().bindBidirectional(vm.filterTextProperty());
        filter.setOnAction(e -> vm.addFilter());
        HBox.setHgrow(filter, Priority.ALWAYS);
        Button add = new Button("Add line");
        add.setId("iograph-add");
        add.setOnAction(e -> vm.addFilter());
        HBox controls = new HBox(8, new Label("Interval"), interval, perEvent, log, filter, add);
        controls.setAlignment(Pos.CENTER_LEFT);
        return controls;
    }

    /** The interval events are counted per ("default": at most {@link IoGraphViewModel#DEFAULT_POINTS} points). */
    private ComboBox<Long> intervalBox() {
        ComboBox<Long> interval = new ComboBox<>(FXCollections.observableArrayList(IoGraphViewModel.INTERVALS));
        interval.setId("iograph-interval");
        interval.setConverter(new StringConverter<>() {
            @Override
            public String toString(Long ns) {
                return ns == null || ns == 0 ? "default" : IoGraphViewModel.intervalText(ns);
            }

            @Override
            public Long fromString(String s) {
                return null;
            }
        });
        interval.setTooltip(new Tooltip("Events are counted per interval; the default gives at most "
                + IoGraphViewModel.DEFAULT_POINTS + " points"));
        vm.intervalProperty().addListener((o, a, b) -> interval.setValue(b.longValue() == 0 ? null : b.longValue()));
        interval.valueProperty().addListener((o, a, b) -> {
            if (b != null && b != vm.intervalProperty().get()) {
                vm.intervalProperty().set(b);
            }
        });
        return interval;
    }

    /** The filter lines (shown when there are some); Delete removes the selected one. */
    private ListView<String> filterLines() {
        ListView<String> lines = new ListView<>(vm.getFilters());
        lines.setId("iograph-filters");
        lines.setPrefHeight(60);
        lines.setTooltip(new Tooltip("The filter lines; Delete removes the selected one"));
        lines.setOnKeyPressed(e -> {
            if ((e.getCode() == KeyCode.DELETE || e.getCode() == KeyCode.BACK_SPACE)
                    && lines.getSelectionModel().getSelectedItem() != null) {
                vm.getFilters().remove(lines.getSelectionModel().getSelectedItem());
            }
        });
        lines.visibleProperty().bind(Bindings.isNotEmpty(vm.getFilters()));
        lines.managedProperty().bind(lines.visibleProperty());
        return lines;
    }

    /** The chart's axes; a click goes to the first event at or after the time clicked. */
    private void setUpChart() {
        chart.setId("iograph-chart");
        chart.setCreateSymbols(false);
        chart.setAnimated(false);
        x.setLabel("time (s from the first event); a click goes to the first event at or after it");
        x.setForceZeroInRange(false);
        y.setLabel("events per interval");
        chart.setOnMouseClicked(e -> {
            IoGraphViewModel.Graph g = vm.graphProperty().get();
            if (g == null) {
                return;
            }
            Point2D p = x.sceneToLocal(e.getSceneX(), e.getSceneY());
            if (p.getX() < 0 || p.getX() > x.getWidth()) {
                return;
            }
            double s = x.getValueForDisplay(p.getX()).doubleValue();
            long bucket = Math.max(0, Math.min(g.points() - 1, (long) Math.floor(s * 1e9 / g.interval())));
            vm.goToTime(g.start() + bucket * g.interval());
        });
    }

    /** Draws the graph: a series per line, x in seconds from the first event; log Y as log10 (0 below 1). */
    private void draw() {
        chart.getData().clear();
        IoGraphViewModel.Graph g = vm.graphProperty().get();
        if (g == null) {
            return;
        }
        boolean log = vm.logScaleProperty().get();
        long max = 1;
        for (IoGraphViewModel.Line l : g.lines()) {
            XYChart.Series<Number, Number> s = new XYChart.Series<>();
            s.setName(l.name() + String.format(" (%,d)", l.total()));
            List<XYChart.Data<Number, Number>> pts = new ArrayList<>(l.counts().length);
            for (int i = 0; i < l.counts().length; i++) {
                long c = l.counts()[i];
                max = Math.max(max, c);
                pts.add(new XYChart.Data<>(i * (g.interval() / 1e9), log ? (c > 0 ? Math.log10(c) : -0.5) : c));
            }
            s.getData().setAll(pts);
            chart.getData().add(s);
        }
        if (log) {
            y.setAutoRanging(false);
            y.setLowerBound(-0.5);
            y.setUpperBound(Math.max(1, Math.log10(max)) + 0.15); // headroom: the top decade's tick inside
            y.setTickUnit(0.5);
            y.setTickLabelFormatter(new StringConverter<>() {
                @Override
                public String toString(Number v) {
                    double d = v.doubleValue();
                    if (d < -0.25) {
                        return "0";
                    }
                    return Math.abs(d - Math.rint(d)) < 1e-9 ? String.format("%,.0f", Math.pow(10, Math.rint(d))) : "";
                }

                @Override
                public Number fromString(String s) {
                    return null;
                }
            });
            y.setLabel("events per " + IoGraphViewModel.intervalText(g.interval()) + " (log)");
        } else {
            y.setAutoRanging(true);
            y.setTickLabelFormatter(linear);
            y.setLabel("events per " + IoGraphViewModel.intervalText(g.interval()));
        }
    }

    /** The chart, for tests. */
    public LineChart<Number, Number> chart() {
        return chart;
    }
}
