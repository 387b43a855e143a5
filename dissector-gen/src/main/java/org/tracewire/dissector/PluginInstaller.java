package org.tracewire.dissector;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.tracewire.posix.InvokingUser;

/**
 * Installs the plugin into the invoking user's Wireshark personal plugin folder
 * ({@code ~/.local/lib/wireshark/plugins}). Under sudo or pkexec the folder is the invoking user's
 * ({@code SUDO_UID}/{@code PKEXEC_UID}, home from the user database), and everything there is
 * written with that user's credentials ({@link InvokingUser#replaceFile}): missing folders and the
 * file are created as the user, the path is opened without following links the user could plant
 * into places the user may not write, and the file replaces an older one atomically.
 */
public final class PluginInstaller {
    /** The personal plugin folder below a home directory. */
    public static final String PERSONAL_PLUGINS = ".local/lib/wireshark/plugins";
    /** File name of the installed plugin. */
    public static final String FILE_NAME = "tracewire.lua";

    private PluginInstaller() {
    }

    /**
     * Who gets the plugin: a home directory and the user who writes there.
     *
     * @param home the user's home directory
     * @param user the user the files are written as
     */
    public record Target(Path home, InvokingUser user) {
        /** The plugin folder of this target. */
        public Path pluginDir() {
            return home.resolve(PERSONAL_PLUGINS);
        }
    }

    /** The invoking user ({@link InvokingUser#current()}) and their home directory. */
    public static Target currentTarget() throws IOException {
        InvokingUser u = InvokingUser.current();
        return new Target(u.home(), u);
    }

    /**
     * Installs the plugin text into the target's plugin folder, atomically replacing an older one,
     * as the target's user.
     *
     * @return the installed file
     * @throws IOException when the user may not write there (e.g. a folder on the way is a link to
     *                     a place they cannot write), or writing fails
     */
    public static Path install(Target target, String lua) throws IOException {
        return write(target.user(), target.pluginDir().resolve(FILE_NAME), lua);
    }

    /** Writes plugin text to a file as {@code user}, atomically (mode 0644 for a new file). */
    public static Path write(InvokingUser user, Path file, String lua) throws IOException {
        return user.replaceFile(file, -1, null, lua.getBytes(StandardCharsets.UTF_8));
    }
}
