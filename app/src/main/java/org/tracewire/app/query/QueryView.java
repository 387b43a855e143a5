package org.tracewire.app.query;

import java.util.ArrayList;
import java.util.List;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.chart.BarChart;
import javafx.scene.chart.CategoryAxis;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.Tooltip;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import org.tracewire.app.query.QueryResult.Column;

/**
 * The query view (Perfetto's query page): the schema and the history on the left, the SQL editor
 * (Ctrl+Enter runs), Run, Cancel and "Show these events", DuckDB's error, the result's rows (a
 * virtual table) and its chart. Binds to a {@link QueryViewModel}.
 */
public final class QueryView extends SplitPane {
    private final QueryViewModel vm;
    private final TextArea editor = new TextArea();
    private final TableView<List<String>> table = new TableView<>();
    private final LineChart<Number, Number> line = new LineChart<>(new NumberAxis(), new NumberAxis());
    private final BarChart<String, Number> bar = new BarChart<>(new CategoryAxis(), new NumberAxis());
    private final Label chartNote = new Label();

    /** @param vm the view model */
    public QueryView(QueryViewModel vm) {
        this.vm = vm;
        setId("query-view");

        SplitPane right = new SplitPane(top(), results());
        right.setOrientation(Orientation.VERTICAL);
        right.setDividerPositions(0.3);
        getItems().addAll(left(), right);
        setDividerPositions(0.2);

        vm.resultProperty().addListener((o, a, r) -> showResult(r));
        vm.chartProperty().addListener((o, a, c) -> showChart(c));
        showChart(null);
    }

    /** The schema (a double-click puts a name into the query) above the history (one puts its query into the editor). */
    private VBox left() {
        TreeView<String> schema = new TreeView<>(new TreeItem<>("store"));
        schema.setId("query-schema");
        schema.setShowRoot(false);
        schema.setTooltip(new Tooltip("The store's tables and views (docs/store.md); a double-click puts a name into the query"));
        vm.getSchema().addListener((ListChangeListener<SchemaTable>) c -> fillSchema(schema));
        schema.setOnMouseClicked(e -> {
            TreeItem<String> item = schema.getSelectionModel().getSelectedItem();
            if (e.getClickCount() == 2 && item != null) {
                String name = item.getValue().split(" ")[0];
                editor.insertText(editor.getCaretPosition(), name);
                editor.requestFocus();
            }
        });
        ListView<String> history = new ListView<>(vm.getHistory());
        history.setId("query-history");
        history.setTooltip(new Tooltip("The queries run, newest first; a double-click puts one into the editor"));
        history.setCellFactory(l -> new ListCell<>() {
            @Override
            protected void updateItem(String item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty || item == null ? null : item.replaceAll("\\s+", " "));
            }
        });
        history.setOnMouseClicked(e -> {
            String q = history.getSelectionModel().getSelectedItem();
            if (e.getClickCount() == 2 && q != null) {
                vm.sqlProperty().set(q);
                editor.requestFocus();
            }
        });
        Label schemaTitle = new Label("Tables and views");
        Label historyTitle = new Label("History");
        VBox left = new VBox(4, schemaTitle, schema, historyTitle, history);
        VBox.setVgrow(schema, Priority.ALWAYS);
        history.setPrefHeight(180);
        left.setMinWidth(180);
        return left;
    }

    /** The editor, its buttons with the status, and DuckDB's error. */
    private VBox top() {
        editor.setId("query-editor");
        editor.setStyle("-fx-font-family: monospace;");
        editor.setPrefRowCount(6);
        editor.textProperty().bindBidirectional(vm.sqlProperty());
        editor.addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            if (e.getCode() == KeyCode.ENTER && e.isShortcutDown()) {
                e.consume();
                vm.run();
            }
        });
        Button run = new Button("Run");
        run.setId("query-run");
        run.setTooltip(new Tooltip("Runs the query on the opened capture's store (Ctrl+Enter)"));
        run.disableProperty().bind(vm.runningProperty().or(vm.availableProperty().not()));
        run.setOnAction(e -> vm.run());
        Button cancel = new Button("Cancel");
        cancel.setId("query-cancel");
        cancel.disableProperty().bind(vm.runningProperty().not());
        cancel.setOnAction(e -> vm.cancel());
        Button show = new Button("Show these events");
        show.setId("query-show-events");
        show.setTooltip(new Tooltip("The event table shows only the frames of the result's column frame"));
        show.disableProperty().bind(Bindings.createBooleanBinding(() -> vm.resultProperty().get() == null
                || vm.resultProperty().get().frameColumn() < 0, vm.resultProperty()));
        show.setOnAction(e -> vm.showEvents());
        Label status = new Label();
        status.setId("query-status");
        status.textProperty().bind(vm.statusProperty());
        HBox buttons = new HBox(8, run, cancel, show, status);
        buttons.setAlignment(Pos.CENTER_LEFT);
        Label error = new Label();
        error.setId("query-error");
        error.setWrapText(true);
        error.setStyle("-fx-text-fill: #b00020; -fx-font-family: monospace;");
        error.textProperty().bind(vm.errorProperty());
        error.visibleProperty().bind(vm.errorProperty().isNotEmpty());
        error.managedProperty().bind(error.visibleProperty());
        VBox top = new VBox(6, editor, buttons, error);
        VBox.setVgrow(editor, Priority.ALWAYS);
        return top;
    }

    /** The result's table beside its chart. */
    private SplitPane results() {
        table.setId("query-table");
        table.setFixedCellSize(22);
        table.setPlaceholder(new Label("No rows"));
        line.setId("query-chart-line");
        line.setCreateSymbols(false);
        line.setAnimated(false);
        NumberAxis x = (NumberAxis) line.getXAxis();
        x.setForceZeroInRange(false);
        // a space each side of a tick label: NumberAxis leaves 6 px between labels over one gap
        // fewer than it draws, so in a narrow chart they ran together ("1,0001,500")
        x.setTickLabelFormatter(new NumberAxis.DefaultFormatter(x, " ", " "));
        bar.setId("query-chart-bar");
        bar.setAnimated(false);
        chartNote.setId("query-chart-note");
        chartNote.setWrapText(true);
        StackPane charts = new StackPane(line, bar);
        VBox chartBox = new VBox(4, chartNote, charts);
        VBox.setVgrow(charts, Priority.ALWAYS);
        SplitPane results = new SplitPane(table, chartBox);
        results.setDividerPositions(0.55);
        return results;
    }

    private void fillSchema(TreeView<String> schema) {
        TreeItem<String> root = schema.getRoot();
        root.getChildren().clear();
        for (SchemaTable t : vm.getSchema()) {
            TreeItem<String> ti = new TreeItem<>(t.name() + (t.view() ? "  (view)" : ""));
            for (Column c : t.columns()) {
                ti.getChildren().add(new TreeItem<>(c.name() + "  " + c.type()));
            }
            root.getChildren().add(ti);
        }
    }

    private void showResult(QueryResult r) {
        table.getColumns().clear();
        if (r == null) {
            table.setItems(FXCollections.emptyObservableList());
            return;
        }
        for (int i = 0; i < r.columns().size(); i++) {
            int k = i;
            Column c = r.columns().get(i);
            TableColumn<List<String>, String> col = new TableColumn<>(c.name());
            col.setSortable(false); // ORDER BY in the query
            col.setCellValueFactory(cd -> new ReadOnlyStringWrapper(cd.getValue().size() > k ? cd.getValue().get(k) : "…"));
            if (c.numeric()) {
                col.setStyle("-fx-alignment: CENTER-RIGHT;");
            }
            col.setPrefWidth(Math.max(70, Math.min(260, 9 * Math.max(c.name().length(), 8))));
            table.getColumns().add(col);
        }
        table.setItems(r.rows());
        table.scrollTo(0);
    }

    @SuppressWarnings("unchecked")
    private void showChart(QueryChart c) {
        line.getData().clear();
        bar.getData().clear();
        boolean has = c != null && !c.series().isEmpty();
        line.setVisible(has && !c.bar());
        bar.setVisible(has && c.bar());
        chartNote.setText(c == null ? "" : c.note());
        if (!has) {
            return;
        }
        if (c.bar()) {
            bar.getXAxis().setLabel(c.xName());
            for (QueryChart.Series s : c.series()) {
                XYChart.Series<String, Number> xs = new XYChart.Series<>();
                xs.setName(s.name());
                for (int i = 0; i < c.categories().size(); i++) {
                    if (!Double.isNaN(s.y()[i])) {
                        xs.getData().add(new XYChart.Data<>(c.categories().get(i), s.y()[i]));
                    }
                }
                bar.getData().add(xs);
            }
        } else {
            line.getXAxis().setLabel(c.xName());
            for (QueryChart.Series s : c.series()) {
                XYChart.Series<Number, Number> xs = new XYChart.Series<>();
                xs.setName(s.name());
                List<XYChart.Data<Number, Number>> points = new ArrayList<>(c.x().length);
                for (int i = 0; i < c.x().length; i++) {
                    if (!Double.isNaN(c.x()[i]) && !Double.isNaN(s.y()[i])) {
                        points.add(new XYChart.Data<>(c.x()[i], s.y()[i]));
                    }
                }
                xs.getData().setAll(points);
                line.getData().add(xs);
            }
        }
    }

    /** The result table, for tests. */
    public TableView<List<String>> table() {
        return table;
    }
}
