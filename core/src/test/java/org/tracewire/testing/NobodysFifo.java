package org.tracewire.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A FIFO as Wireshark makes one for an extcap run by a user who is not root: in a folder of that
 * user's, mode 0600, owned by them. The user is {@code nobody} (uid {@value #UID}). Needs root (to
 * give the files away) and {@code mkfifo}; callers check both ({@link Prerequisites}).
 */
public final class NobodysFifo {
    /** nobody's uid (and nogroup's gid) on Debian. */
    public static final int UID = 65534;

    private NobodysFifo() {
    }

    /**
     * Creates {@code tmp/wireshark_extcap/NAME}: {@code tmp} made searchable by everyone, the folder
     * and the FIFO owned by nobody.
     *
     * @param tmp  a temporary folder of the test's (root's)
     * @param name the FIFO's file name
     * @return the FIFO's path
     * @throws IOException when a file cannot be made or given away, or {@code mkfifo} fails
     */
    public static Path create(Path tmp, String name) throws IOException, InterruptedException {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path folder = Files.createDirectory(tmp.resolve("wireshark_extcap"));
        Files.setOwner(folder, folder.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
        Path fifo = folder.resolve(name);
        int rc = new ProcessBuilder("mkfifo", "-m", "600", fifo.toString()).inheritIO().start().waitFor();
        if (rc != 0) {
            throw new IOException("mkfifo " + fifo + " exited with " + rc);
        }
        Files.setAttribute(fifo, "unix:uid", UID);
        return fifo;
    }
}
