package org.tracewire.app.main;

import java.io.File;
import java.nio.file.Path;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.image.ImageView;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import org.tracewire.app.util.Icons;

/** The start page: what tracewire reads, session open/save, and the recent sessions. */
public final class StartView extends VBox {
    /**
     * @param vm       the main view model
     * @param browse   "Browse tracefs" action
     * @param opened   called after a session was opened (shows the capture view)
     */
    public StartView(MainViewModel vm, Runnable browse, Runnable opened) {
        super(14);
        setId("start-view");
        setPadding(new Insets(24));
        ImageView logo = Icons.view("tracewire-64.png");
        Label title = new Label("tracewire");
        title.setStyle("-fx-font-size: 28px; -fx-font-weight: bold;");
        Label sub = new Label("Linux ftrace events as network packets for Wireshark");
        VBox titles = new VBox(2, title, sub);
        HBox head = logo == null ? new HBox(titles) : new HBox(16, logo, titles);
        head.setAlignment(Pos.CENTER_LEFT);

        Label source = new Label();
        source.setId("start-source");
        source.setStyle("-fx-font-weight: bold;");
        source.textProperty().bind(vm.browser().sourceLabelProperty().concat(""));
        Button browseButton = new Button("Browse tracefs");
        browseButton.setId("start-browse");
        browseButton.setOnAction(e -> browse.run());

        TextField file = new TextField(vm.store().configDir().resolve("sessions").resolve("session.json").toString());
        file.setId("start-session-file");
        HBox.setHgrow(file, Priority.ALWAYS);
        Button choose = new Button("…");
        choose.setTooltip(new Tooltip("Chooses the session file"));
        choose.setOnAction(e -> {
            FileChooser fc = new FileChooser();
            fc.getExtensionFilters().add(new FileChooser.ExtensionFilter("tracewire session", "*.json"));
            File f = fc.showSaveDialog(getScene().getWindow());
            if (f != null) {
                file.setText(f.getPath());
            }
        });
        Button save = new Button("Save session");
        save.setId("start-save");
        save.setOnAction(e -> vm.saveSession(Path.of(file.getText()), () -> { }));
        Button open = new Button("Open session");
        open.setId("start-open");
        open.setOnAction(e -> vm.openSession(Path.of(file.getText()), opened));
        HBox sessionRow = new HBox(8, new Label("Session:"), file, choose, save, open);
        sessionRow.setAlignment(Pos.CENTER_LEFT);

        ListView<Path> recent = recentList(vm, file, opened);
        Label message = new Label();
        message.setId("start-message");
        message.textProperty().bind(vm.messageProperty());
        getChildren().addAll(head, new HBox(12, source, browseButton), sessionRow,
                new Label("Recent sessions (double-click to open)"), recent, message);
    }

    /** The recent sessions: a double-click opens one (its path put into {@code file}). */
    private static ListView<Path> recentList(MainViewModel vm, TextField file, Runnable opened) {
        ListView<Path> recent = new ListView<>(vm.getRecent());
        recent.setId("start-recent");
        recent.setPlaceholder(new Label("No recent sessions"));
        recent.setPrefHeight(220);
        recent.setCellFactory(l -> new ListCell<>() {
            @Override
            protected void updateItem(Path item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty || item == null ? null : item.getFileName() + "   —   " + item.getParent());
            }
        });
        recent.setOnMouseClicked(e -> {
            Path p = recent.getSelectionModel().getSelectedItem();
            if (p != null && e.getClickCount() == 2) {
                file.setText(p.toString());
                vm.openSession(p, opened);
            }
        });
        return recent;
    }
}
