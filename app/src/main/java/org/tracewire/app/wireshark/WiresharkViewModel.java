package org.tracewire.app.wireshark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.dissector.PluginInstaller;
import org.tracewire.input.RecordInput;
import org.tracewire.protocol.BackendLauncher;

/**
 * The Wireshark actions: open Wireshark on the opened file, else live on the capture's interface,
 * else on the capture's pcapng output; open a file at a frame ("Show in Wireshark"); generate the
 * Lua dissector. Every hand-off follows one rule for the dissector ({@link #luaScript}): Wireshark
 * gets {@code -X lua_script:PLUGIN} only when the user's personal plugin folder has no
 * {@code tracewire.lua} (else Wireshark loads that one too and refuses the second: "there cannot
 * be two protocols with the same description"); the plugin passed is the generated one, generated
 * first when there is none. When {@code wireshark} is not installed, the message gives the apt
 * line to install it.
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
    private final StringProperty openedFile = new SimpleStringProperty("");
    private final StringProperty luaPlugin = new SimpleStringProperty("");
    private final StringProperty message = new SimpleStringProperty("");
    private final BooleanProperty installed = new SimpleBooleanProperty();
    private final BooleanProperty generatorAvailable = new SimpleBooleanProperty(false);
    private final ObjectProperty<Generated> generated = new SimpleObjectProperty<>();
    private DissectorWriter writer;
    private Supplier<List<String>> eventsToDissect = List::of;

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
    public void setGenerator(DissectorWriter writer, Supplier<List<String>> events) {
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

    /**
     * The user's personal Wireshark plugin folder ({@code $HOME/.local/lib/wireshark/plugins}, where
     * {@code tracewire dissector --install} and {@code extcap --install} put {@code tracewire.lua}).
     */
    public Path pluginFolder() {
        String home = env.get("HOME");
        return Path.of(home != null && !home.isBlank() ? home : System.getProperty("user.home"))
                .resolve(PluginInstaller.PERSONAL_PLUGINS);
    }

    /**
     * The one rule every hand-off to Wireshark follows: the Lua plugin to pass with
     * {@code -X lua_script:}, or "" to pass none.
     *
     * @param pluginFolder the user's personal plugin folder
     * @param plugin       the plugin the app has (generated), or null / "" for none
     * @return "" when {@code pluginFolder} holds {@code tracewire.lua} (Wireshark loads it itself;
     *         a second copy would be refused) or when there is no plugin file; else {@code plugin}
     */
    public static String luaScript(Path pluginFolder, String plugin) {
        if (Files.isRegularFile(pluginFolder.resolve(PluginInstaller.FILE_NAME))) {
            return "";
        }
        return plugin != null && !plugin.isBlank() && Files.isRegularFile(Path.of(plugin)) ? plugin : "";
    }

    /**
     * The plugin to pass (background): by {@link #luaScript}; when none is installed and none was
     * generated, the generator writes one first (for every event: a file may hold any).
     */
    private String pluginToPass(String current) throws Exception {
        Path folder = pluginFolder();
        String lua = luaScript(folder, current);
        if (!lua.isEmpty() || Files.isRegularFile(folder.resolve(PluginInstaller.FILE_NAME))) {
            return lua;
        }
        DissectorWriter w = writer;
        return w == null ? "" : w.write(List.of()).file().toString();
    }

    /** Starts Wireshark in the background with the command for the plugin {@link #pluginToPass} picks. */
    private void launch(Function<String, List<String>> command) {
        String current = luaPlugin.get();
        executor.execute(() -> {
            String lua = pluginToPass(current);
            List<String> cmd = command.apply(lua);
            starter.start(cmd);
            return new Object[] {cmd, lua};
        }, r -> {
            @SuppressWarnings("unchecked")
            List<String> cmd = (List<String>) r[0];
            String lua = (String) r[1];
            if (!lua.isEmpty() && !lua.equals(luaPlugin.get())) {
                luaPlugin.set(lua);
            }
            message.set("started: " + String.join(" ", cmd));
        }, e -> message.set("cannot start Wireshark: " + e.getMessage()));
    }

    /**
     * What "Open in Wireshark" opens: the file opened in the app when it is a pcapng, else the
     * capture's interface, else its pcapng output.
     *
     * @return a sentence for the view
     */
    public String target() {
        String f = openedFile.get();
        if (f != null && !f.isBlank()) {
            return isPcapng(Path.of(f)) ? "the opened file " + f
                    : "nothing: the opened file " + f + " is a trace.dat, which Wireshark does not read";
        }
        if (iface.get() != null && !iface.get().isBlank()) {
            return "the capture's interface " + iface.get() + " (live)";
        }
        if (pcapng.get() != null && !pcapng.get().isBlank()) {
            return "the capture's pcapng " + pcapng.get();
        }
        return "nothing yet: open a file, or set an interface or a pcapng file in the Capture view";
    }

    /** Whether a file starts with the pcapng Section Header Block (core's {@link org.tracewire.input.RecordInput#PCAPNG_MAGIC}). */
    static boolean isPcapng(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] b = in.readNBytes(4);
            return b.length == 4 && ByteBuffer.wrap(b).getInt() == RecordInput.PCAPNG_MAGIC;
        } catch (IOException e) {
            return false;
        }
    }

    /** Opens Wireshark on {@link #target()}. */
    public void open() {
        refresh();
        Optional<Path> ws = wireshark();
        if (ws.isEmpty()) {
            return;
        }
        String exe = ws.get().toString();
        String f = openedFile.get();
        if (f != null && !f.isBlank()) {
            if (!isPcapng(Path.of(f))) {
                message.set("Wireshark does not read a trace.dat (" + f + "): open a pcapng, or capture into one");
                return;
            }
            launch(lua -> fileCommand(exe, f, lua));
        } else if (iface.get() != null && !iface.get().isBlank()) {
            String i = iface.get();
            launch(lua -> liveCommand(exe, i, lua));
        } else if (pcapng.get() != null && !pcapng.get().isBlank()) {
            String p = pcapng.get();
            launch(lua -> fileCommand(exe, p, lua));
        } else {
            message.set("set an interface or a pcapng file in the Capture view first");
        }
    }

    /**
     * Opens a capture file in Wireshark at one frame: {@code wireshark [-X lua_script:PLUGIN] -r FILE -g N},
     * the plugin by {@link #luaScript}.
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
        String exe = ws.get().toString();
        launch(lua -> frameCommand(exe, file, frame, lua));
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
    public ObjectProperty<Generated> generatedProperty() {
        return generated;
    }

    /** Interface to open live. */
    public StringProperty ifaceProperty() {
        return iface;
    }

    /** The file opened in the app (absolute path), empty for none: "Open in Wireshark" opens it first. */
    public StringProperty openedFileProperty() {
        return openedFile;
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
