package org.tracewire.app.wireshark;

import javafx.beans.binding.Bindings;
import javafx.beans.binding.StringExpression;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.VBox;

/** The Wireshark view: generate the dissector (disabled until the generator exists), open Wireshark. */
public final class WiresharkView extends VBox {
    /** @param vm the view model */
    public WiresharkView(WiresharkViewModel vm) {
        super(12);
        setId("wireshark-view");
        setPadding(new Insets(16));
        Label title = new Label("Wireshark");
        title.setStyle("-fx-font-size: 18px; -fx-font-weight: bold;");
        Button generate = new Button(WiresharkViewModel.GENERATE);
        generate.setId("wireshark-generate");
        generate.disableProperty().bind(vm.generatorAvailableProperty().not());
        generate.setOnAction(e -> vm.generate());
        generate.setTooltip(new Tooltip("Writes a Wireshark Lua plugin for the capture's events (all events when none are chosen)."));
        Button open = new Button("Open in Wireshark");
        open.setId("wireshark-open");
        open.setOnAction(e -> vm.open());
        open.setTooltip(new Tooltip("Opens the file opened in the app; else starts Wireshark live on the capture's interface, "
                + "or on its pcapng file when no interface is set"));
        TextField lua = new TextField();
        lua.setId("wireshark-lua");
        lua.setPromptText("generated Lua plugin (optional)");
        lua.textProperty().bindBidirectional(vm.luaPluginProperty());
        Label iface = orNone(vm.ifaceProperty());
        Label pcap = orNone(vm.pcapngProperty());
        Label opened = orNone(vm.openedFileProperty());
        Label target = new Label();
        target.setId("wireshark-target");
        target.setWrapText(true);
        target.textProperty().bind(Bindings.createStringBinding(() -> "Open in Wireshark opens " + vm.target(),
                vm.openedFileProperty(), vm.ifaceProperty(), vm.pcapngProperty()));
        GridPane grid = new GridPane();
        grid.setHgap(8);
        grid.setVgap(6);
        grid.addRow(0, new Label("Opened file:"), opened);
        grid.addRow(1, new Label("Interface (from Capture):"), iface);
        grid.addRow(2, new Label("pcapng (from Capture):"), pcap);
        grid.addRow(3, new Label("Lua plugin:"), lua);
        Label message = new Label();
        message.setId("wireshark-message");
        message.setWrapText(true);
        message.setStyle("-fx-font-family: monospace;");
        message.textProperty().bind(vm.messageProperty());
        Label install = new Label("Wireshark is not installed. Install it with:\n" + WiresharkViewModel.INSTALL_LINE);
        install.setId("wireshark-install");
        install.setStyle("-fx-font-family: monospace; -fx-text-fill: #a05a00;");
        install.visibleProperty().bind(vm.installedProperty().not());
        install.managedProperty().bind(install.visibleProperty());
        Label help = new Label("Open in Wireshark runs `wireshark -r <opened file>`, else `wireshark -k -i <interface>`, else "
                + "`wireshark -r <pcapng>`, with -X lua_script:<plugin> only when ~/.local/lib/wireshark/plugins has no "
                + "tracewire.lua (a plugin is generated first when there is none).");
        help.setWrapText(true);
        lua.setPrefColumnCount(50);
        getChildren().addAll(title, grid, target, generate, open, install, message, help);
    }

    /** A label showing the text, or "(none)" while it is empty. */
    private static Label orNone(StringExpression text) {
        Label l = new Label();
        l.textProperty().bind(Bindings.when(text.isEmpty()).then("(none)").otherwise(text));
        return l;
    }
}
