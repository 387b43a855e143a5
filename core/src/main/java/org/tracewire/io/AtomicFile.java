package org.tracewire.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import org.tracewire.posix.InvokingUser;

/**
 * The one atomic file write of tracewire (sessions, settings, generated plugins, exported files):
 * the new content goes to a temporary file beside the target, is forced to disk ({@code fsync}),
 * and is renamed over the target, so a reader sees the old file or the new one, never a part, even
 * after a crash. The file keeps the permissions of the file it replaces; a new file gets
 * {@code rw-r--r--}. It is written for {@link InvokingUser#current()}, with that user's credentials
 * ({@link InvokingUser#replaceFile}): under sudo or pkexec the invoking user's, never root's.
 */
public final class AtomicFile {
    private AtomicFile() {
    }

    /**
     * Writes a file's content into an open channel: the temporary file, positioned at 0.
     */
    @FunctionalInterface
    public interface Content {
        /**
         * @param channel the temporary file, empty; the writer may seek in it
         * @throws IOException when writing fails
         */
        void writeTo(FileChannel channel) throws IOException;
    }

    /**
     * Replaces a file's content atomically; creates missing parent directories. The file keeps
     * the permissions of the file it replaces; a new file gets {@code rw-r--r--}.
     *
     * @param target the file to write
     * @param bytes  its new content
     * @throws IOException when writing, syncing or renaming fails; the temporary file is removed
     *                     and the target is left as it was
     */
    public static void write(Path target, byte[] bytes) throws IOException {
        write(target, bytes, null);
    }

    /**
     * Replaces a file's content atomically with given permissions.
     *
     * @param target      the file to write
     * @param bytes       its new content
     * @param permissions the file's permissions, or null as {@link #write(Path, byte[])}
     * @throws IOException as {@link #write(Path, byte[])}
     */
    public static void write(Path target, byte[] bytes, Set<PosixFilePermission> permissions) throws IOException {
        write(target, permissions, ch -> {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b);
            }
        });
    }

    /**
     * Replaces a file's content with text in UTF-8, atomically.
     *
     * @param target the file to write
     * @param text   its new content
     * @throws IOException as {@link #write(Path, byte[])}
     */
    public static void write(Path target, String text) throws IOException {
        write(target, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Replaces a file atomically with content written through a channel (large files streamed,
     * or written out of order), optionally with given permissions.
     *
     * @param target      the file to write
     * @param permissions the file's permissions, or null to keep those of the file it replaces
     *                    ({@code rw-r--r--} for a new file)
     * @param content     writes the new content into the temporary file
     * @throws IOException when writing, syncing or renaming fails; the temporary file is removed
     *                     and the target is left as it was
     */
    public static void write(Path target, Set<PosixFilePermission> permissions, Content content) throws IOException {
        int mode = permissions == null ? -1 : mode(permissions);
        InvokingUser.current().replaceFile(target, mode, null, content::writeTo);
    }

    /** The permission bits of a set of permissions. */
    static int mode(Set<PosixFilePermission> p) {
        int m = 0;
        for (PosixFilePermission x : p) {
            m |= 1 << (8 - x.ordinal());
        }
        return m;
    }
}
