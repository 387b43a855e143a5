package org.tracewire.app.wireshark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.tracewire.protocol.BackendLauncher;
import org.tracewire.app.util.TaskExecutor;

/**
 * The Wireshark actions: open Wireshark live on the capture's interface (with the generated Lua
 * plugin when one exists) or on the capture file; "Generate dissector…" stays disabled until the
 * dissector generator is merged. When {@code wireshark} is not installed, the message gives the
 * apt line to install it.
 */
public final class WiresharkViewModel {
    /** The line that installs Wireshark on Debian. */
    public static final String INSTALL_LINE = "sudo apt-get install -y wireshark";
    /** Label of the generator action. */
    public static final String GENERATE = "Generate dissector…";

    /** Writes the Lua dissector for some events (all when the list is empty); runs in the background. */
    public interface DissectorWriter {
        /**
         * @param events "system:event" names, empty for every event
         * @return the written plugin and a one-line summary
         * @throws Exception when generating or writing fails
         */
        Generated write(List<String> events) throws Exception;
    }

    /**
     * A generated plugin.
     *
     * @param file    the Lua file
     * @param summary e.g. "2 events, 18 fields"
     */
    public record Generated(Path file, String summary) {
    }

    /** Starts a process; tests replace it. */
    public interface ProcessStarter {
        /** @param command the command line @throws IOException when it cannot start */
        void start(List<String> command) throws IOException;
    }

    private final TaskExecutor executor;
    private final ProcessStarter starter;
    private final Map<String, String> env;
    private final StringProperty iface = new SimpleStringProperty("");
    private final StringProperty pcapng = new SimpleStringProperty("");
    private final StringProperty luaPlugin = new SimpleStringProperty("");
    private final StringProperty message = new SimpleStringProperty("");
    private final BooleanProperty installed = new SimpleBooleanProperty();
    private final BooleanProperty generatorAvailable = new SimpleBooleanProperty(false);
    private final javafx.beans.property.ObjectProperty<Generated> generated = new javafx.beans.property.SimpleObjectProperty<>();
    private DissectorWriter writer;
    private java.util.function.Supplier<List<String>> eventsToDissect = List::of;

    /**
     * @param executor runs the launch in the background
     * @param starter  starts processes
     * @param env      the environment (PATH)
     */
    public WiresharkViewModel(TaskExecutor executor, ProcessStarter starter, Map<String, String> env) {
        this.executor = executor;
        this.starter = starter;
        this.env = env;
        refresh();
    }

    /**
     * Enables "Generate dissector…".
     *
     * @param writer generates and writes the plugin
     * @param events the events to cover (the capture's), empty for all
     */
    public void setGenerator(DissectorWriter writer, java.util.function.Supplier<List<String>> events) {
        this.writer = writer;
        this.eventsToDissect = events;
        generatorAvailable.set(writer != null);
    }

    /** Generates the Lua dissector in the background; the plugin then loads with "Open in Wireshark". */
    public void generate() {
        DissectorWriter w = writer;
        if (w == null) {
            return;
        }
        List<String> events = List.copyOf(eventsToDissect.get());
        message.set("generating the dissector for " + (events.isEmpty() ? "every event" : events.size() + " events") + "…");
        executor.execute(() -> w.write(events), g -> {
            luaPlugin.set(g.file().toString());
            message.set("dissector: " + g.summary() + " -> " + g.file());
            generated.set(null);    // an equal record would not fire again
            generated.set(g);
        }, e -> message.set("cannot generate the dissector: " + e.getMessage()));
    }

    /** Looks for {@code wireshark} on PATH again and updates the message. */
    public void refresh() {
        boolean found = wireshark().isPresent();
        installed.set(found);
        message.set(found ? "Wireshark found: " + wireshark().get()
                : "Wireshark is not installed. Install it with:\n" + INSTALL_LINE);
    }

    private Optional<Path> wireshark() {
        return BackendLauncher.onPath("wireshark", env);
    }

    /**
     * The command that opens Wireshark live on an interface.
     *
     * @param wireshark the executable
     * @param iface     the interface
     * @param lua       a Lua plugin file, or empty
     * @return the command line
     */
    public static List<String> liveCommand(String wireshark, String iface, String lua) {
        List<String> cmd = new ArrayList<>(List.of(wireshark, "-k", "-i", iface));
        if (lua != null && !lua.isBlank()) {
            cmd.add("-X");
            cmd.add("lua_script:" + lua);
        }
        return cmd;
    }

    /**
     * The command that opens a capture file.
     *
     * @param wireshark the executable
     * @param file      the pcapng file
     * @param lua       a Lua plugin file, or empty
     * @return the command line
     */
    public static List<String> fileCommand(String wireshark, String file, String lua) {
        List<String> cmd = new ArrayList<>(List.of(wireshark));
        if (lua != null && !lua.isBlank()) {
            cmd.add("-X");
            cmd.add("lua_script:" + lua);
        }
        cmd.add("-r");
        cmd.add(file);
        return cmd;
    }

    /** Opens Wireshark live on {@link #ifaceProperty()}, else on {@link #pcapngProperty()}. */
    public void open() {
        refresh();
        Optional<Path> ws = wireshark();
        if (ws.isEmpty()) {
            return;
        }
        String lua = luaPlugin.get() != null && Files.isRegularFile(Path.of(luaPlugin.get())) ? luaPlugin.get() : "";
        List<String> cmd;
        if (iface.get() != null && !iface.get().isBlank()) {
            cmd = liveCommand(ws.get().toString(), iface.get(), lua);
        } else if (pcapng.get() != null && !pcapng.get().isBlank()) {
            cmd = fileCommand(ws.get().toString(), pcapng.get(), lua);
        } else {
            message.set("set an interface or a pcapng file in the Capture view first");
            return;
        }
        executor.execute(() -> {
            starter.start(cmd);
            return cmd;
        }, c -> message.set("started: " + String.join(" ", c)), e -> message.set("cannot start Wireshark: " + e.getMessage()));
    }

    /**
     * Opens a capture file in Wireshark at one frame: {@code wireshark [-X lua_script:PLUGIN] -r FILE -g N}.
     *
     * @param file  the pcapng
     * @param frame the 1-based frame number
     */
    public void showFrame(String file, long frame) {
        refresh();
        Optional<Path> ws = wireshark();
        if (ws.isEmpty()) {
            return;
        }
        String lua = luaPlugin.get() != null && Files.isRegularFile(Path.of(luaPlugin.get())) ? luaPlugin.get() : "";
        List<String> cmd = frameCommand(ws.get().toString(), file, frame, lua);
        executor.execute(() -> {
            starter.start(cmd);
            return cmd;
        }, c -> message.set("started: " + String.join(" ", c)), e -> message.set("cannot start Wireshark: " + e.getMessage()));
    }

    /**
     * The command that opens a capture file at a frame.
     *
     * @param wireshark the executable
     * @param file      the pcapng file
     * @param frame     the 1-based frame number ({@code frame.number})
     * @param lua       a Lua plugin file, or empty
     * @return the command line
     */
    public static List<String> frameCommand(String wireshark, String file, long frame, String lua) {
        List<String> cmd = fileCommand(wireshark, file, lua);
        cmd.add("-g");
        cmd.add(Long.toString(frame));
        return cmd;
    }

    /** The last plugin "Generate dissector…" wrote (set anew on every generation), null before. */
    public javafx.beans.property.ObjectProperty<Generated> generatedProperty() {
        return generated;
    }

    /** Interface to open live. */
    public StringProperty ifaceProperty() {
        return iface;
    }

    /** Capture file to open when no interface is set. */
    public StringProperty pcapngProperty() {
        return pcapng;
    }

    /** A generated Lua plugin to load, empty for none. */
    public StringProperty luaPluginProperty() {
        return luaPlugin;
    }

    /** What happened, or how to install Wireshark. */
    public StringProperty messageProperty() {
        return message;
    }

    /** True when {@code wireshark} is on PATH. */
    public BooleanProperty installedProperty() {
        return installed;
    }

    /** True once the dissector generator is available (not yet). */
    public BooleanProperty generatorAvailableProperty() {
        return generatorAvailable;
    }
}
