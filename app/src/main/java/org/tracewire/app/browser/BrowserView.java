package org.tracewire.app.browser;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.value.ObservableValue;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.TitledPane;
import javafx.scene.control.Tooltip;
import javafx.scene.control.TreeCell;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import org.tracewire.app.util.Icons;

/**
 * The tracefs browser: a search field and tree of systems and events on the left, the selected
 * event's id, state, fields and print fmt on the right, tracefs-wide facts at the bottom.
 */
public final class BrowserView extends SplitPane {
    private final BrowserViewModel vm;
    private final TreeView<String> tree = new TreeView<>();

    /**
     * @param vm            the view model
     * @param addToCapture  "Add to capture" action
     * @param buildFilter   "Build filter…" action
     */
    public BrowserView(BrowserViewModel vm, Runnable addToCapture, Runnable buildFilter) {
        this.vm = vm;
        setId("browser-view");
        getItems().addAll(left(), right(addToCapture, buildFilter));
        setDividerPositions(0.3);
        rebuildTree();
    }

    /** The source, the search field with its count, and the tree of systems and events. */
    private VBox left() {
        TextField search = new TextField();
        search.setId("browser-search");
        search.setPromptText("Search: sched_sw, sched:*wake*, prev_pid");
        search.setTooltip(new Tooltip("""
                Words separated by spaces must all match (case does not matter).
                A plain word: part of system:event, or exactly a field name (prev_pid).
                A glob (* ? [..]): matches system:event, the event name, or a field name
                (sched:*wake*, *_latency)."""));
        search.textProperty().bindBidirectional(vm.filterTextProperty());
        Label count = new Label();
        count.setId("browser-count");
        count.textProperty().bind(Bindings.createStringBinding(
                () -> vm.matchCountProperty().get() + " of " + vm.totalCountProperty().get() + " events",
                vm.matchCountProperty(), vm.totalCountProperty()));
        Label source = new Label();
        source.setId("browser-source");
        source.textProperty().bind(vm.sourceLabelProperty());
        source.setStyle("-fx-font-weight: bold;");

        setUpTree();
        VBox.setVgrow(tree, Priority.ALWAYS);
        VBox left = new VBox(6, source, search, count, tree);
        left.setPadding(new Insets(8));
        return left;
    }

    /** The tree: systems with their event counts, events with the fields the search matched; selection to the view model. */
    private void setUpTree() {
        tree.setId("browser-tree");
        tree.setShowRoot(false);
        tree.setRoot(new TreeItem<>("tracefs"));
        tree.setCellFactory(t -> new TreeCell<>() {
            @Override
            protected void updateItem(String item, boolean empty) {
                super.updateItem(item, empty);
                if (empty || item == null) {
                    setText(null);
                    setGraphic(null);
                } else {
                    boolean system = getTreeItem() != null && getTreeItem().getParent() == tree.getRoot();
                    List<String> via = system ? List.of()
                            : vm.matchedFields(getTreeItem().getParent().getValue() + ":" + item);
                    setText(system ? item + "  (" + getTreeItem().getChildren().size() + ")"
                            : via.isEmpty() ? item : item + "   [" + String.join(", ", via) + "]");
                    setGraphic(Icons.view(system ? "glyph-system.png" : "glyph-event.png"));
                }
            }
        });
        tree.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
        tree.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> {
            if (b != null && b.getParent() != null && b.getParent() != tree.getRoot()) {
                vm.selectedEventProperty().set(b.getParent().getValue() + ":" + b.getValue());
            }
        });
        tree.getSelectionModel().getSelectedItems().addListener((ListChangeListener<TreeItem<String>>) c -> {
            if (rebuilding) {
                return;
            }
            List<String> sel = new ArrayList<>();
            for (TreeItem<String> item : tree.getSelectionModel().getSelectedItems()) {
                if (item == null || item.getParent() == null) {
                    continue;
                }
                sel.add(item.getParent() == tree.getRoot() ? item.getValue() : item.getParent().getValue() + ":" + item.getValue());
            }
            vm.getSelection().setAll(sel);
        });
        vm.getSystems().addListener((ListChangeListener<SystemEntry>) c -> rebuildTree());
    }

    /** The selected event's details, the actions on it, and the tracefs-wide facts. */
    private VBox right(Runnable addToCapture, Runnable buildFilter) {
        Label name = new Label();
        name.setId("details-name");
        name.setStyle("-fx-font-size: 16px; -fx-font-weight: bold;");
        Label id = new Label();
        id.setId("details-id");
        Label enabled = new Label();
        enabled.setId("details-enabled");
        Label filter = new Label();
        filter.setId("details-filter");
        TableView<EventDetails.FieldRow> fields = fieldsTable();
        TextArea raw = new TextArea();
        raw.setId("details-printfmt-raw");
        raw.setEditable(false);
        raw.setWrapText(true);
        raw.setPrefRowCount(3);
        raw.setStyle("-fx-font-family: monospace;");
        TextArea pretty = new TextArea();
        pretty.setId("details-printfmt-pretty");
        pretty.setEditable(false);
        pretty.setPrefRowCount(8);
        pretty.setStyle("-fx-font-family: monospace;");
        vm.detailsProperty().addListener((o, a, d) -> {
            name.setText(d == null ? "" : d.fullName());
            id.setText(d == null ? "" : "id " + d.id());
            enabled.setText(d == null ? "" : "enabled: " + d.enabled());
            filter.setText(d == null ? "" : "filter: " + d.filter());
            fields.getItems().setAll(d == null ? List.of() : d.fields());
            raw.setText(d == null ? "" : d.printFmtRaw());
            pretty.setText(d == null ? "" : d.printFmtPretty());
        });
        HBox header = new HBox(16, name, id, enabled, filter);
        HBox actions = actions(addToCapture, buildFilter);

        TitledPane factsPane = facts();
        VBox.setVgrow(fields, Priority.ALWAYS);
        VBox right = new VBox(8, header, actions, fields, new Label("print fmt (raw)"), raw,
                new Label("print fmt (pretty)"), pretty, factsPane);
        right.setPadding(new Insets(8));
        return right;
    }


    /** The event's fields: name (with its kind's glyph), C type, offset, size, signedness, kind. */
    private static TableView<EventDetails.FieldRow> fieldsTable() {
        TableView<EventDetails.FieldRow> fields = new TableView<>();
        fields.setId("details-fields");
        TableColumn<EventDetails.FieldRow, EventDetails.FieldRow> nameCol = col("Name", r -> r, 215);
        nameCol.setCellFactory(c -> new TableCell<>() {
            @Override
            protected void updateItem(EventDetails.FieldRow r, boolean empty) {
                super.updateItem(r, empty);
                setText(empty || r == null ? null : r.name());
                setGraphic(empty || r == null ? null : Icons.view(kindGlyph(r.kind())));
            }
        });
        fields.getColumns().add(nameCol);
        fields.getColumns().add(col("C type", EventDetails.FieldRow::type, 160));
        fields.getColumns().add(col("Offset", EventDetails.FieldRow::offset, 60));
        fields.getColumns().add(col("Size", EventDetails.FieldRow::size, 50));
        fields.getColumns().add(col("Signed", r -> r.signed() ? "yes" : "no", 60));
        fields.getColumns().add(col("Kind", r -> r.kind() + (r.common() ? " (common)" : ""), 150));
        fields.setPlaceholder(new Label("Select an event"));
        fields.setPrefHeight(260);
        return fields;
    }

    /** "Add to capture" (the selected events, or a system's) and "Build filter…". */
    private HBox actions(Runnable addToCapture, Runnable buildFilter) {
        Button add = new Button();
        add.setId("browser-add-to-capture");
        add.textProperty().bind(Bindings.createStringBinding(() -> {
            int n = vm.eventsToAdd().size();
            return n > 1 ? "Add " + n + " events to capture" : "Add to capture";
        }, vm.getSelection(), vm.selectedEventProperty(), vm.getSystems()));
        add.setOnAction(e -> addToCapture.run());
        add.setTooltip(new Tooltip("Adds the selected events to the capture, without a filter. "
                + "Ctrl/Shift+click selects several; a system adds all its events shown."));
        Button build = new Button("Build filter…");
        build.setId("browser-build-filter");
        build.setOnAction(e -> buildFilter.run());
        add.disableProperty().bind(Bindings.createBooleanBinding(() -> vm.eventsToAdd().isEmpty(),
                vm.getSelection(), vm.selectedEventProperty(), vm.getSystems()));
        build.setTooltip(new Tooltip("Builds a kernel filter for the selected event in the Filter builder."));
        build.disableProperty().bind(vm.detailsProperty().isNull());
        return new HBox(8, add, build);
    }

    /** The tracers, trace clocks and buffer size of the tracefs browsed. */
    private TitledPane facts() {
        GridPane facts = new GridPane();
        facts.setHgap(8);
        facts.setVgap(4);
        facts.addRow(0, new Label("Tracers:"), bound(vm.tracersProperty(), "facts-tracers"));
        facts.addRow(1, new Label("Trace clocks:"), bound(vm.clocksProperty(), "facts-clocks"));
        facts.addRow(2, new Label("Buffer size:"), bound(vm.bufferSizeProperty(), "facts-buffer"));
        TitledPane factsPane = new TitledPane("tracefs", facts);
        factsPane.setCollapsible(false);
        return factsPane;
    }

    private static Label bound(ObservableValue<String> p, String id) {
        Label l = new Label();
        l.setId(id);
        l.setWrapText(true);
        l.textProperty().bind(p);
        return l;
    }

    private static <T> TableColumn<EventDetails.FieldRow, T> col(String title,
            Function<EventDetails.FieldRow, T> get, double width) {
        TableColumn<EventDetails.FieldRow, T> c = new TableColumn<>(title);
        c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(get.apply(cd.getValue())));
        c.setPrefWidth(width);
        return c;
    }

    /** @param kind a field kind in lower case @return the glyph resource showing it */
    static String kindGlyph(String kind) {
        if (kind.startsWith("integer")) {
            return "glyph-field-integer.png";
        }
        if (kind.startsWith("pointer")) {
            return "glyph-field-pointer.png";
        }
        if (kind.startsWith("char_array") || kind.startsWith("dynamic_string")) {
            return "glyph-field-string.png";
        }
        if (kind.contains("array") || kind.contains("cpumask")) {
            return "glyph-field-array.png";
        }
        return "glyph-field-opaque.png";
    }

    private boolean rebuilding;

    private void rebuildTree() {
        rebuilding = true;
        try {
            rebuildTreeItems();
        } finally {
            rebuilding = false;
        }
        // what stayed selected (items gone with the new search drop out of the selection)
        List<String> sel = new ArrayList<>();
        for (TreeItem<String> item : tree.getSelectionModel().getSelectedItems()) {
            if (item != null && item.getParent() != null) {
                sel.add(item.getParent() == tree.getRoot() ? item.getValue() : item.getParent().getValue() + ":" + item.getValue());
            }
        }
        vm.getSelection().setAll(sel);
    }

    private void rebuildTreeItems() {
        String selected = vm.selectedEventProperty().get();
        Set<String> multi = new HashSet<>(vm.getSelection());
        boolean expand = !vm.filterTextProperty().get().isBlank() && vm.matchCountProperty().get() <= 200;
        TreeItem<String> root = new TreeItem<>("tracefs");
        TreeItem<String> toSelect = null;
        List<TreeItem<String>> alsoSelect = new ArrayList<>();
        for (SystemEntry s : vm.getSystems()) {
            TreeItem<String> sys = new TreeItem<>(s.name());
            if (multi.contains(s.name())) {
                alsoSelect.add(sys);
            }
            for (String e : s.events()) {
                TreeItem<String> ev = new TreeItem<>(e);
                sys.getChildren().add(ev);
                if ((s.name() + ":" + e).equals(selected)) {
                    toSelect = ev;
                } else if (multi.contains(s.name() + ":" + e)) {
                    alsoSelect.add(ev);
                }
            }
            sys.setExpanded(expand || vm.getSystems().size() == 1);
            root.getChildren().add(sys);
        }
        root.setExpanded(true);
        tree.setRoot(root);
        for (TreeItem<String> item : alsoSelect) {
            if (item.getParent() != root) {
                item.getParent().setExpanded(true);
            }
            tree.getSelectionModel().select(item);
        }
        if (toSelect != null) {
            toSelect.getParent().setExpanded(true);
            tree.getSelectionModel().select(toSelect);
        }
    }

    /** The tree, for tests. */
    public TreeView<String> tree() {
        return tree;
    }
}
