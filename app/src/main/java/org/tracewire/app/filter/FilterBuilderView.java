package org.tracewire.app.filter;

import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import javafx.beans.binding.Bindings;
import javafx.beans.property.StringProperty;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.input.Clipboard;
import javafx.scene.input.ClipboardContent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;
import org.tracewire.filter.Junction;
import org.tracewire.filter.Op;

/**
 * The filter builder: nested AND/OR/NOT groups of condition rows for the selected event, with a
 * live preview of the kernel filter, the Wireshark display filter and the BPF, each with a copy
 * button (disabled while the preview is empty), and a text box that loads a kernel filter into the
 * rows.
 */
public final class FilterBuilderView extends BorderPane {
    private final FilterBuilderViewModel vm;
    private final VBox editor = new VBox(6);
    private final Set<GroupViewModel> listened =
            Collections.newSetFromMap(new WeakHashMap<>());
    private int rowCounter;

    /**
     * @param vm          the view model
     * @param useInCapture "Use in capture" action
     */
    public FilterBuilderView(FilterBuilderViewModel vm, Runnable useInCapture) {
        this.vm = vm;
        setId("filter-view");
        setTop(top(useInCapture));

        ScrollPane scroll = new ScrollPane(editor);
        scroll.setFitToWidth(true);
        editor.setPadding(new Insets(8));
        setCenter(scroll);
        setBottom(preview());

        vm.rootProperty().addListener((o, a, b) -> rebuild());
        rebuild();
    }

    /** The event, Clear and "Use in capture", and the kernel filter text to load (its error under it, with a caret). */
    private VBox top(Runnable useInCapture) {
        Label event = new Label();
        event.setId("filter-event");
        event.setStyle("-fx-font-size: 16px; -fx-font-weight: bold;");
        event.textProperty().bind(Bindings.createStringBinding(
                () -> vm.eventProperty().get() == null ? "Select an event in the browser, then “Build filter…”"
                        : "Filter for " + vm.eventProperty().get().fullName(), vm.eventProperty()));
        Button clear = new Button("Clear");
        clear.setId("filter-clear");
        clear.setOnAction(e -> vm.reset());
        Button use = new Button("Use in capture");
        use.setId("filter-use");
        use.setTooltip(new Tooltip("Adds the event with this kernel filter to the capture (replacing its filter)"));
        use.setOnAction(e -> useInCapture.run());
        use.disableProperty().bind(vm.validProperty().not().or(vm.eventProperty().isNull()));
        HBox head = new HBox(12, event, clear, use);
        head.setAlignment(Pos.CENTER_LEFT);
        TextField text = new TextField();
        text.setId("filter-text");
        text.textProperty().bindBidirectional(vm.textProperty());
        text.setPromptText("type or paste a kernel filter, e.g. prev_pid == 1 && next_comm ~ \"bash*\"");
        text.setStyle("-fx-font-family: monospace;");
        HBox.setHgrow(text, Priority.ALWAYS);
        Button load = new Button("Load");
        load.setId("filter-load");
        load.setTooltip(new Tooltip("Parses the kernel filter text into the builder (errors at their position)"));
        load.disableProperty().bind(vm.eventProperty().isNull());
        load.setOnAction(e -> vm.load(text.getText()));
        text.setOnAction(e -> vm.load(text.getText()));
        Label loadError = new Label();
        loadError.setId("filter-load-error");
        loadError.setStyle("-fx-text-fill: #b00020; -fx-font-family: monospace;");
        loadError.textProperty().bind(Bindings.createStringBinding(() -> {
            int pos = vm.loadErrorPositionProperty().get();
            String t = text.getText();
            if (pos < 0 || t == null || pos > t.length()) {
                return vm.loadErrorProperty().get();
            }
            return vm.loadErrorProperty().get() + "\n" + t + "\n" + " ".repeat(pos) + "^";
        }, vm.loadErrorProperty(), vm.loadErrorPositionProperty()));
        loadError.managedProperty().bind(vm.loadErrorProperty().isNotEmpty());
        HBox loadRow = new HBox(8, new Label("Kernel filter text"), text, load);
        loadRow.setAlignment(Pos.CENTER_LEFT);
        VBox top = new VBox(6, head, loadRow, loadError);
        top.setPadding(new Insets(8));
        return top;
    }

    /** The filter as the kernel, Wireshark's display filter and BPF take it, with the kernel's verdict and the warnings. */
    private GridPane preview() {
        GridPane preview = new GridPane();
        preview.setHgap(8);
        preview.setVgap(6);
        preview.setPadding(new Insets(8));
        addPreview(preview, 0, "Kernel filter", "filter-kernel", vm.kernelProperty());
        addPreview(preview, 1, "Display filter", "filter-display", vm.displayProperty());
        addPreview(preview, 2, "BPF", "filter-bpf", vm.bpfProperty());
        Label approx = new Label("BPF is approximate: it matches more than the kernel filter (see warnings)");
        approx.setId("filter-bpf-approximate");
        approx.setStyle("-fx-text-fill: #a05a00;");
        approx.visibleProperty().bind(vm.bpfExactProperty().not().and(vm.bpfProperty().isNotEmpty()));
        approx.managedProperty().bind(approx.visibleProperty());
        preview.add(approx, 1, 4);
        Label verdict = new Label();
        verdict.setId("filter-kernel-verdict");
        verdict.setWrapText(true);
        verdict.textProperty().bind(Bindings.createStringBinding(() -> {
            int pos = vm.kernelErrorPositionProperty().get();
            String k = vm.kernelProperty().get();
            if (pos < 0 || k == null || pos > k.length()) {
                return vm.kernelVerdictProperty().get();
            }
            // the kernel's caret under the character where its parser stopped
            return vm.kernelVerdictProperty().get() + "\n" + k + "\n" + " ".repeat(pos) + "^";
        }, vm.kernelVerdictProperty(), vm.kernelErrorPositionProperty(), vm.kernelProperty()));
        verdict.setStyle("-fx-font-family: monospace;");
        preview.add(verdict, 1, 5);
        Label warnings = new Label();
        warnings.setId("filter-warnings");
        warnings.setWrapText(true);
        warnings.textProperty().bind(vm.warningsProperty());
        preview.add(warnings, 1, 3);
        return preview;
    }

    /** Operators shown as written in filter text ({@code ==}, {@code ~}, ...). */
    private static final StringConverter<Op> OP_SYMBOLS = new StringConverter<>() {
        @Override
        public String toString(Op op) {
            return op == null ? "" : op.symbol();
        }

        @Override
        public Op fromString(String s) {
            for (Op op : Op.values()) {
                if (op.symbol().equals(s)) {
                    return op;
                }
            }
            return null;
        }
    };

    private static void addPreview(GridPane grid, int row, String title, String id, StringProperty p) {
        TextField f = new TextField();
        f.setId(id);
        f.setEditable(false);
        f.setStyle("-fx-font-family: monospace;");
        f.textProperty().bind(p);
        GridPane.setHgrow(f, Priority.ALWAYS);
        Button copy = new Button("Copy");
        copy.setId(id + "-copy");
        copy.setTooltip(new Tooltip("Copies this text to the clipboard"));
        copy.disableProperty().bind(p.isEmpty());
        copy.setOnAction(e -> {
            ClipboardContent c = new ClipboardContent();
            c.putString(p.get());
            Clipboard.getSystemClipboard().setContent(c);
        });
        grid.addRow(row, new Label(title), f, copy);
    }

    private void rebuild() {
        rowCounter = 0;
        editor.getChildren().setAll(groupNode(vm.rootProperty().get()));
    }

    private Node groupNode(GroupViewModel g) {
        String gid = "filter-group-" + rowCounter++;
        ChoiceBox<Junction> kind = new ChoiceBox<>();
        kind.getItems().setAll(Junction.values());
        kind.valueProperty().bindBidirectional(g.junctionProperty());
        kind.setId(gid + "-kind");
        kind.setTooltip(new Tooltip("AND: all conditions must hold; OR: one is enough"));
        CheckBox not = new CheckBox("NOT");
        not.setId(gid + "-not");
        not.setTooltip(new Tooltip("Negates the whole group: !( ... )"));
        not.selectedProperty().bindBidirectional(g.negatedProperty());
        Button addCond = new Button("+ Condition");
        addCond.setId(gid + "-add-condition");
        addCond.setOnAction(e -> g.addEmptyCondition());
        Button addGroup = new Button("+ Group");
        addGroup.setId(gid + "-add-group");
        addGroup.setOnAction(e -> g.addGroup(Junction.OR));
        HBox head = new HBox(8, new Label(g.parent() == null ? "Match" : "Group"), kind, not, addCond, addGroup);
        head.setAlignment(Pos.CENTER_LEFT);
        if (g.parent() != null) {
            Button remove = new Button("✕");
            remove.setId(gid + "-remove");
            remove.setOnAction(e -> g.parent().remove(g));
            head.getChildren().add(remove);
        }
        VBox children = new VBox(4);
        children.setPadding(new Insets(0, 0, 0, 24));
        for (FilterItemViewModel c : g.getChildren()) {
            children.getChildren().add(c instanceof GroupViewModel sub ? groupNode(sub) : conditionNode((ConditionViewModel) c));
        }
        if (listened.add(g)) {
            g.getChildren().addListener((ListChangeListener<FilterItemViewModel>) c -> rebuild());
        }
        VBox box = new VBox(4, head, children);
        box.setStyle("-fx-border-color: #b8c4d6; -fx-border-radius: 4; -fx-padding: 6;");
        return box;
    }

    private Node conditionNode(ConditionViewModel c) {
        String cid = "filter-cond-" + rowCounter++;
        ComboBox<String> field = new ComboBox<>(vm.getFieldNames());
        field.setId(cid + "-field");
        field.valueProperty().bindBidirectional(c.fieldProperty());
        field.setPrefWidth(180);
        field.setPromptText("field");
        ChoiceBox<Op> op = new ChoiceBox<>(c.getOperators());
        op.setId(cid + "-op");
        op.setConverter(OP_SYMBOLS);
        op.valueProperty().bindBidirectional(c.operatorProperty());
        TextField value = new TextField();
        value.setId(cid + "-value");
        value.setPromptText("value");
        value.textProperty().bindBidirectional(c.valueProperty());
        Label error = new Label();
        error.setId(cid + "-error");
        error.setStyle("-fx-text-fill: #b00020;");
        error.textProperty().bind(c.errorProperty());
        Tooltip tip = new Tooltip();
        tip.textProperty().bind(c.errorProperty());
        value.setTooltip(tip);
        Runnable style = () -> value.setStyle(c.errorProperty().get().isEmpty() ? "" : "-fx-border-color: #b00020;");
        c.errorProperty().addListener((o, a, b) -> style.run());
        style.run();
        Button remove = new Button("✕");
        remove.setId(cid + "-remove");
        remove.setOnAction(e -> c.parent().remove(c));
        HBox row = new HBox(8, field, op, value, remove, error);
        row.setAlignment(Pos.CENTER_LEFT);
        return row;
    }
}
