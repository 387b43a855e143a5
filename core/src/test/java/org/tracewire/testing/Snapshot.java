package org.tracewire.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the checked-in tracefs snapshot (snapshots/linux-6.18) from any module's tests. */
public final class Snapshot {
    private Snapshot() {
    }

    /** The snapshot directory: system property {@code tracewire.snapshot}, else found upward from the working directory. */
    public static Path path() {
        String prop = System.getProperty("tracewire.snapshot");
        if (prop != null && Files.isDirectory(Path.of(prop))) {
            return Path.of(prop);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("snapshots/linux-6.18");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("snapshots/linux-6.18 not found above " + Path.of("").toAbsolutePath());
    }
}
