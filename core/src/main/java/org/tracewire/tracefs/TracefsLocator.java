package org.tracewire.tracefs;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The one place that decides which tracefs tree a process reads: an explicit directory when
 * given, else the live tracefs when readable (root), else the repository's snapshot of a kernel's
 * tracefs metadata ({@value #SNAPSHOT_DIR}), with a note saying so. Used by the command line, the
 * desktop app and the backend alike.
 */
public final class TracefsLocator {
    /** System property naming the snapshot directory; the launcher sets it. */
    public static final String SNAPSHOT_PROPERTY = "tracewire.snapshot";
    /** The snapshot relative to the repository root. */
    public static final String SNAPSHOT_DIR = "snapshots/linux-6.18";

    private TracefsLocator() {
    }

    /**
     * Opens the tracefs tree to read.
     *
     * @param dir  an explicit tracefs tree ({@code --tracefs DIR}: a mount or a snapshot), or null
     *             for the default (live, else the snapshot)
     * @param note receives one line when the snapshot is used instead of the live tracefs, e.g.
     *             "live tracefs not readable (...); using /path/snapshots/linux-6.18"
     * @return the tracefs
     * @throws TracefsException when {@code dir} is not a tracefs tree, or neither the live tracefs
     *                          nor a snapshot is available
     */
    public static Tracefs resolve(Path dir, Consumer<String> note) {
        if (dir != null) {
            return Tracefs.open(dir);
        }
        try {
            return Tracefs.live();
        } catch (TracefsException live) {
            Path snap = findSnapshot();
            if (snap == null) {
                throw new TracefsException(live.getMessage() + "; no snapshot found either: pass --tracefs DIR");
            }
            note.accept("live tracefs not readable (" + live.getMessage() + "); using " + snap);
            return Tracefs.open(snap);
        }
    }

    /**
     * The snapshot directory: the system property {@value #SNAPSHOT_PROPERTY}, else
     * {@value #SNAPSHOT_DIR} found walking up from this class's jar, else from the working
     * directory.
     *
     * @return the absolute, normalized snapshot directory, or null when none is found
     */
    public static Path findSnapshot() {
        String prop = System.getProperty(SNAPSHOT_PROPERTY);
        if (prop != null && !prop.isBlank() && isTree(Path.of(prop))) {
            return Path.of(prop).toAbsolutePath().normalize();
        }
        Path start = null;
        try {
            start = Path.of(TracefsLocator.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | RuntimeException ignored) {
            // fall through to user.dir
        }
        for (Path from : new Path[] {start, Path.of(System.getProperty("user.dir"))}) {
            for (Path d = from == null ? null : from.toAbsolutePath(); d != null; d = d.getParent()) {
                if (isTree(d.resolve(SNAPSHOT_DIR))) {
                    return d.resolve(SNAPSHOT_DIR).normalize();
                }
            }
        }
        return null;
    }

    private static boolean isTree(Path p) {
        return Files.isReadable(p.resolve("events/header_page"));
    }
}
