package org.tracewire.protocol;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Chooses how to start {@code ./tracewire backend}: directly when already root, else through
 * {@code pkexec} (with a display) or {@code sudo -A} (with {@code SUDO_ASKPASS}).
 */
public final class BackendLauncher {
    private BackendLauncher() {
    }

    /**
     * The repository root holding the {@code tracewire} launcher: {@code -Dtracewire.home}, else two
     * levels above {@code -Dtracewire.snapshot} (the launcher sets it), else the working directory.
     */
    public static Path home() {
        String h = System.getProperty("tracewire.home");
        if (h != null) {
            return Path.of(h);
        }
        String snap = System.getProperty("tracewire.snapshot");
        if (snap != null && Path.of(snap).getParent() != null && Path.of(snap).getParent().getParent() != null) {
            return Path.of(snap).toAbsolutePath().getParent().getParent();
        }
        return Path.of("").toAbsolutePath();
    }

    /**
     * The command line that starts the backend through the {@code tracewire} launcher in
     * {@link #home()}: {@link #command(Path, boolean, Map)}, or the problem that the launcher is not
     * there (or not executable).
     *
     * @param root true when this process runs as root
     * @param env  the environment (PATH, DISPLAY, SUDO_ASKPASS)
     * @return the command, or a reason why none is possible
     */
    public static Result command(boolean root, Map<String, String> env) {
        Path launcher = home().resolve("tracewire");
        if (!Files.isExecutable(launcher)) {
            return new Result(List.of(), "cannot find the tracewire launcher at " + launcher);
        }
        return command(root ? launcher : privileged(launcher, INSTALLED), root, env);
    }

    /** Where a root-owned copy of tracewire is looked for: {@code /opt/tracewire/tracewire}. */
    public static final Path INSTALLED = Path.of("/opt/tracewire/tracewire");

    /**
     * The launcher root should run: as root, {@code ./tracewire} refuses a tree another user can
     * change (docs/backend-protocol.md, "The privileged entry"). So a launcher that is not root's
     * gives way to a root-owned copy at {@code installed} when there is one (an executable regular
     * file of root's, not a link, not writable by group or others); else it stays (and will say why
     * it refuses).
     *
     * @param launcher  the launcher of this tree
     * @param installed where a root-owned copy may be
     * @return the launcher to start the backend with
     */
    public static Path privileged(Path launcher, Path installed) {
        return isRoots(launcher) || !isRoots(installed) ? launcher : installed;
    }

    private static boolean isRoots(Path file) {
        try {
            Map<String, Object> a = Files.readAttributes(file, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
            int mode = (Integer) a.get("mode");
            return (Integer) a.get("uid") == 0 && (mode & 0170000) == 0100000 && (mode & 022) == 0 && (mode & 0100) != 0;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /**
     * The command line that starts the backend.
     *
     * @param launcher the {@code tracewire} script
     * @param root     true when this process runs as root
     * @param env      the environment (PATH, DISPLAY, SUDO_ASKPASS)
     * @return the command, or a reason why none is possible
     */
    public static Result command(Path launcher, boolean root, Map<String, String> env) {
        List<String> cmd = new ArrayList<>();
        String exe = launcher.toAbsolutePath().toString();
        if (root) {
            cmd.add(exe);
        } else if (onPath("pkexec", env).isPresent()
                && (env.get("DISPLAY") != null || env.get("WAYLAND_DISPLAY") != null)) {
            cmd.add(onPath("pkexec", env).get().toString());
            cmd.add(exe);
        } else if (onPath("sudo", env).isPresent() && env.get("SUDO_ASKPASS") != null) {
            cmd.add(onPath("sudo", env).get().toString());
            cmd.add("-A");
            cmd.add(exe);
        } else {
            return new Result(List.of(), "capturing needs root: run tracewire as root, or install pkexec "
                    + "(sudo apt-get install -y pkexec) or set SUDO_ASKPASS for sudo -A");
        }
        cmd.add("backend");
        return new Result(List.copyOf(cmd), "");
    }

    /**
     * A backend command line or why there is none.
     *
     * @param command the command (empty when impossible)
     * @param problem why not, empty when {@code command} is set
     */
    public record Result(List<String> command, String problem) {
        /** True when a command was found. */
        public boolean ok() {
            return !command.isEmpty();
        }
    }

    /**
     * Finds an executable on {@code PATH}.
     *
     * @param name the executable
     * @param env  the environment holding PATH
     * @return its path, if found
     */
    public static Optional<Path> onPath(String name, Map<String, String> env) {
        String path = env.getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
