package org.tracewire.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The one atomic file write of tracewire (sessions, settings, generated plugins): the new content
 * goes to a temporary file beside the target, is forced to disk ({@code fsync}), and is renamed
 * over the target, so a reader sees the old file or the new one, never a part, even after a crash.
 * The file keeps the permissions of the file it replaces; a new file gets {@code rw-r--r--}.
 */
public final class AtomicFile {
    private static final Set<PosixFilePermission> NEW_FILE = PosixFilePermissions.fromString("rw-r--r--");

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
        Path abs = target.toAbsolutePath();
        Path dir = abs.getParent();
        Files.createDirectories(dir);
        Set<PosixFilePermission> perms = permissions != null ? permissions
                : Files.exists(abs, LinkOption.NOFOLLOW_LINKS) ? Files.getPosixFilePermissions(abs, LinkOption.NOFOLLOW_LINKS)
                : NEW_FILE;
        Path tmp = Files.createTempFile(dir, "." + abs.getFileName() + ".", ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                content.writeTo(ch);
                ch.force(true);
            }
            Files.setPosixFilePermissions(tmp, perms);
            try {
                Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
