package org.tracewire.cli;

import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsException;

/**
 * Picks the tracefs tree a command reads: {@code --tracefs DIR} when given, else the live tracefs
 * when readable, else the repository's snapshot ({@value #SNAPSHOT_DIR}) with a note on stderr.
 */
final class TracefsSource {
    /** System property naming the snapshot directory; the launcher sets it. */
    static final String SNAPSHOT_PROPERTY = "tracewire.snapshot";
    /** The snapshot relative to the repository root. */
    static final String SNAPSHOT_DIR = "snapshots/linux-6.18";

    private TracefsSource() {
    }

    /**
     * @param dir  the {@code --tracefs} directory, or null for the default
     * @param err  where the "using the snapshot" note goes
     * @param name the command name, prefixing the note
     * @throws TracefsException when {@code dir} is not a tracefs tree, or neither the live tracefs
     *                          nor a snapshot is available
     */
    static Tracefs resolve(Path dir, PrintWriter err, String name) {
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
            err.println(name + ": live tracefs not readable (" + live.getMessage() + "); using " + snap);
            return Tracefs.open(snap);
        }
    }

    /** The snapshot: system property, else walking up from this jar, else from the working directory; null if none. */
    static Path findSnapshot() {
        String prop = System.getProperty(SNAPSHOT_PROPERTY);
        if (prop != null && !prop.isBlank() && isTree(Path.of(prop))) {
            return Path.of(prop).toAbsolutePath().normalize();
        }
        Path start = null;
        try {
            start = Path.of(TracefsSource.class.getProtectionDomain().getCodeSource().getLocation().toURI());
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
