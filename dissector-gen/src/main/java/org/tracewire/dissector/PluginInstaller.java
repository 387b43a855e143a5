package org.tracewire.dissector;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.tracewire.io.AtomicFile;
import java.nio.file.attribute.UserPrincipal;
import java.util.List;
import java.util.Map;

/**
 * Writes a plugin atomically (temporary file in the target directory, then an atomic rename) and
 * finds the invoking user's Wireshark personal plugin folder ({@code ~/.local/lib/wireshark/plugins}).
 * Under sudo the folder is {@code SUDO_USER}'s, and files and folders created there are given to
 * that user, so that Wireshark run as the user loads the plugin and the user can replace it.
 */
public final class PluginInstaller {
    /** The personal plugin folder below a home directory. */
    public static final String PERSONAL_PLUGINS = ".local/lib/wireshark/plugins";
    /** File name of the installed plugin. */
    public static final String FILE_NAME = "tracewire.lua";

    private PluginInstaller() {
    }

    /** Who gets the plugin: a home directory and, under sudo, the user name to own created files. */
    public record Target(Path home, String owner) {
        /** The plugin folder of this target. */
        public Path pluginDir() {
            return home.resolve(PERSONAL_PLUGINS);
        }
    }

    /**
     * The invoking user: {@code SUDO_USER} (home from {@code /etc/passwd}) when set and not root,
     * else {@code user.home}.
     *
     * @param env      the environment
     * @param userHome the {@code user.home} property
     * @param passwd   lines of {@code /etc/passwd} (name:x:uid:gid:gecos:home:shell)
     */
    public static Target target(Map<String, String> env, String userHome, List<String> passwd) {
        String sudoUser = env.get("SUDO_USER");
        if (sudoUser != null && !sudoUser.isBlank() && !sudoUser.equals("root")) {
            for (String line : passwd) {
                String[] p = line.split(":", -1);
                if (p.length >= 7 && p[0].equals(sudoUser) && !p[5].isBlank()) {
                    return new Target(Path.of(p[5]), sudoUser);
                }
            }
            throw new IllegalStateException("SUDO_USER " + sudoUser + " has no home directory in /etc/passwd");
        }
        return new Target(Path.of(userHome), null);
    }

    /** {@link #target(Map, String, List)} for this process. */
    public static Target currentTarget() throws IOException {
        Path passwd = Path.of("/etc/passwd");
        List<String> lines = Files.isReadable(passwd) ? Files.readAllLines(passwd) : List.of();
        return target(System.getenv(), System.getProperty("user.home"), lines);
    }

    /**
     * Installs the plugin text into the target's plugin folder, atomically replacing an older one.
     *
     * @return the installed file
     */
    public static Path install(Target target, String lua) throws IOException {
        Path dir = target.pluginDir();
        createOwned(dir, target);
        Path file = dir.resolve(FILE_NAME);
        AtomicFile.write(file, lua);
        chown(file, target);
        return file;
    }

    private static void createOwned(Path dir, Target target) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        Path parent = dir.getParent();
        if (parent != null && !parent.equals(target.home())) {
            createOwned(parent, target);
        }
        Files.createDirectories(dir);
        chown(dir, target);
    }

    private static void chown(Path p, Target target) throws IOException {
        if (target.owner() == null) {
            return;
        }
        UserPrincipal u = p.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(target.owner());
        Files.setOwner(p, u);
    }
}
