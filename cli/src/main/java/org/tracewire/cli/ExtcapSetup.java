package org.tracewire.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.tracewire.dissector.DissectorGenerator;
import org.tracewire.dissector.PluginInstaller;
import org.tracewire.posix.InvokingUser;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsLocator;

/**
 * What {@code extcap --install} and {@code --uninstall} do: the entry script through
 * {@link ExtcapInstaller}, the dissector plugin through {@link DissectorGenerator} and
 * {@link PluginInstaller}, each written as the invoking user where it is theirs.
 */
final class ExtcapSetup {
    private ExtcapSetup() {
    }

    /**
     * {@code extcap --install}: the entry into Wireshark's extcap folder (the given one, else the one
     * this Wireshark reads), then, unless {@code noDissector}, the dissector plugin for this
     * kernel into the invoking user's plugin folders.
     *
     * @param extcapDir   the folder, or null for Wireshark's
     * @param noDissector true: the entry only
     * @param classPath   the entry's class path, or null for the tree's ({@link ExtcapInstaller#classPath})
     * @return the exit code: 0, or 1 when only root could write Wireshark's folder (said on {@code err})
     * @throws IOException when a file cannot be written
     */
    static int install(PrintWriter out, PrintWriter err, Path extcapDir, boolean noDissector, String classPath)
            throws IOException {
        Path home = ExtcapCommand.home();
        Path folder = extcapDir;
        Map<String, Path> folders = Map.of();
        if (folder == null || !noDissector) {
            folders = ExtcapInstaller.wiresharkFolders();
        }
        if (folder == null) {
            Optional<Path> f = ExtcapInstaller.extcapFolder(folders, Tracefs.isRoot());
            if (f.isEmpty()) {
                err.println("extcap: this Wireshark reads extcaps only from its global folder "
                        + folders.getOrDefault("Extcap path", Path.of("(unknown)")) + "; run as root:");
                err.println("  sudo " + (home != null ? home.resolve("tracewire") : "./tracewire") + " extcap --install");
                return Main.EXIT_FAILURE;
            }
            folder = f.get();
        }
        String cp = classPath != null ? classPath : ExtcapInstaller.classPath(home);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path installed = ExtcapInstaller.install(folder,
                ExtcapInstaller.script(java, ExtcapInstaller.launcherJvmOptions(), cp, home, ExtcapCommand.version(),
                        Map.of(ExtcapProtocol.INTERFACE, ExtcapProtocol.config(ExtcapCommand.clocks()),
                                ExtcapProtocol.INTERFACE_SSH, ExtcapProtocol.configSsh())));
        out.println("extcap: " + installed + " (interfaces '" + ExtcapProtocol.INTERFACE + "' and '" + ExtcapProtocol.INTERFACE_SSH + "'; check with tshark -D)");
        if (!noDissector) {
            Tracefs tracefs = TracefsLocator.resolve(null, note -> err.println("extcap: " + note));
            DissectorGenerator.Result r = DissectorGenerator.forTracefs(tracefs, List.of());
            // as `dissector --install`: the invoking user's folder (SUDO_UID's under sudo), as that user
            Path user = PluginInstaller.currentTarget().pluginDir().resolve(PluginInstaller.FILE_NAME);
            writeIfChanged(r, user);
            out.println("dissector: " + r.summary() + " -> " + user);
            Path lua = folders.get("Personal Lua Plugins"); // where this user's tshark loads Lua plugins from
            if (lua != null && !lua.resolve(PluginInstaller.FILE_NAME).equals(user)) {
                try {
                    writeIfChanged(r, lua.resolve(PluginInstaller.FILE_NAME));
                    out.println("dissector: " + r.summary() + " -> " + lua.resolve(PluginInstaller.FILE_NAME));
                } catch (IOException e) {
                    err.println("extcap: not written: " + e.getMessage());
                }
            }
        }
        out.flush();
        return 0;
    }

    /**
     * {@code extcap --uninstall}: removes the entry this class wrote (only such a file).
     *
     * @param extcapDir the folder, or null for Wireshark's global one
     * @return the exit code: 0
     * @throws IOException when only root could change the folder, or removing fails
     */
    static int uninstall(PrintWriter out, Path extcapDir) throws IOException {
        Path folder = extcapDir;
        if (folder == null) {
            folder = ExtcapInstaller.extcapFolder(ExtcapInstaller.wiresharkFolders(), Tracefs.isRoot())
                    .orElseThrow(() -> new IOException("only root can change Wireshark's global extcap folder"));
        }
        boolean removed = ExtcapInstaller.uninstall(folder);
        out.println("extcap: " + (removed ? "removed " : "nothing to remove in ") + (removed ? folder.resolve(ExtcapInstaller.FILE_NAME) : folder));
        out.flush();
        return 0;
    }

    /**
     * Writes the plugin to {@code file} unless it already holds it, as the invoking user
     * ({@link InvokingUser#current()}: under sudo the user's credentials read and write it).
     */
    static void writeIfChanged(DissectorGenerator.Result r, Path file) throws IOException {
        InvokingUser user = InvokingUser.current();
        if (!r.lua().equals(user.act(() -> readOrNull(file)))) {
            PluginInstaller.write(user, file, r.lua());
        }
    }

    private static String readOrNull(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
