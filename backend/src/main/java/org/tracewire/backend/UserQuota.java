package org.tracewire.backend;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * What one user may hold of the machine through the privileged backend, across all their
 * backends: at most {@code maxBackends} backends at once, and at most {@code maxBufferBytes} of
 * kernel ring buffers (per-CPU KiB × CPUs of each running capture).
 *
 * <p>Held by record locks ({@code fcntl}, released by the kernel when a backend dies, however it
 * dies) on files in a root directory ({@link #DIR}, mode 0755, only root writes it): a backend holds
 * {@code uid-<uid>.slot-<n>}, {@code n < maxBackends}, for its life, and writes into it the buffer
 * bytes of its running capture (0 when none). A capture's start checks, under the lock of
 * {@code uid-<uid>.lock}, its bytes plus those written in the other slots held now; a slot nobody
 * holds counts nothing, so a killed backend's number does not linger.
 */
public final class UserQuota implements AutoCloseable {
    /** Where the lock files are: {@code /run/tracewire} (system property {@code tracewire.runDir} in tests). */
    public static final Path DIR = Path.of(System.getProperty("tracewire.runDir", "/run/tracewire"));
    /** Backends one user may run at once. */
    public static final int MAX_BACKENDS = 2;
    /**
     * Kernel ring-buffer memory one user's captures may hold at once: 1 GiB (system property
     * {@code tracewire.userBufferMiB} in tests).
     */
    public static final long MAX_BUFFER_BYTES = Long.getLong("tracewire.userBufferMiB", 1024) << 20;

    private final Path dir;
    private final int uid;
    private final long maxBufferBytes;
    private final int slot;
    private final FileChannel channel;
    private final FileLock lock;

    private UserQuota(Path dir, int uid, long maxBufferBytes, int slot, FileChannel channel, FileLock lock) {
        this.dir = dir;
        this.uid = uid;
        this.maxBufferBytes = maxBufferBytes;
        this.slot = slot;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes one of the user's backend slots for this process's life.
     *
     * @param dir            the lock directory (created mode 0755; must be root's, not a link)
     * @param uid            the user
     * @param maxBackends    backends the user may run at once
     * @param maxBufferBytes ring-buffer bytes the user's captures may hold at once
     * @throws IOException when all slots are held ("uid 1000 already runs 2 tracewire backends ..."),
     *                     or the directory cannot be used
     */
    public static UserQuota acquire(Path dir, int uid, int maxBackends, long maxBufferBytes) throws IOException {
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        if (Files.isSymbolicLink(dir) || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
                || (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS) != 0
                || ((Integer) Files.getAttribute(dir, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 022) != 0) {
            throw new IOException(dir + " must be a directory of root's that only root may write");
        }
        for (int n = 0; n < maxBackends; n++) {
            FileChannel ch = FileChannel.open(slotFile(dir, uid, n), StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            FileLock l = null;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException held) {
                // held by this JVM
            }
            if (l != null) {
                UserQuota q = new UserQuota(dir, uid, maxBufferBytes, n, ch, l);
                q.write(0);
                return q;
            }
            ch.close();
        }
        throw new IOException("uid " + uid + " already runs " + maxBackends + " tracewire backends (at most "
                + maxBackends + " at once): stop one first");
    }

    private static Path slotFile(Path dir, int uid, int n) {
        return dir.resolve("uid-" + uid + ".slot-" + n);
    }

    /**
     * Reserves ring-buffer memory for a capture about to start (replacing this backend's earlier
     * reservation).
     *
     * @param bytes per-CPU bytes × CPUs
     * @throws IOException when the user's backends would then hold more than the limit, saying so
     */
    public void reserve(long bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(dir.resolve("uid-" + uid + ".lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
             FileLock ignored = ch.lock()) {
            long others = 0;
            try (var files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    String n = f.getFileName().toString();
                    if (n.startsWith("uid-" + uid + ".slot-") && !f.equals(slotFile(dir, uid, slot)) && held(f)) {
                        others += read(f);
                    }
                }
            }
            if (others + bytes > maxBufferBytes) {
                throw new IOException("startCapture: ring buffers of " + mib(bytes) + " MiB with the " + mib(others)
                        + " MiB uid " + uid + "'s other backends hold exceed the per-user limit of "
                        + mib(maxBufferBytes) + " MiB: ask for a smaller bufferKb");
            }
            write(bytes);
        }
    }

    /** Gives this backend's reservation back (its capture stopped). */
    public void release() {
        try {
            write(0);
        } catch (IOException ignored) {
            // the slot is released with the process anyway
        }
    }

    /** Whether another process holds the slot file's lock. */
    private static boolean held(Path f) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            FileLock l = ch.tryLock();
            if (l == null) {
                return true;
            }
            l.release();
            return false;
        } catch (OverlappingFileLockException e) {
            return true; // held by this JVM
        }
    }

    private static long read(Path f) {
        try {
            String s = Files.readString(f, StandardCharsets.US_ASCII).strip();
            return s.isEmpty() ? 0 : Math.max(0, Long.parseLong(s));
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    private void write(long bytes) throws IOException {
        channel.truncate(0);
        channel.write(ByteBuffer.wrap((bytes + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
    }

    private static long mib(long bytes) {
        return (bytes + (1 << 20) - 1) >> 20;
    }

    /** Frees the slot (also freed when the process ends). */
    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
