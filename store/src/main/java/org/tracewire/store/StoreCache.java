package org.tracewire.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Where stores are kept: {@code $XDG_CACHE_HOME/tracewire/} (default {@code ~/.cache/tracewire/}),
 * one DuckDB file per source file, named by the source's identity (real path, size, modification
 * time in ns, inode) and the schema version, so a changed file gets a new store and an unchanged one
 * reuses its store. The source file stays the truth: a store can always be deleted and rebuilt.
 * Bounded: after a build the least recently used stores are deleted until the directory's stores
 * total at most {@link #maxBytes()} (default 8 GiB, {@code TRACEWIRE_STORE_CACHE_MIB}).
 */
public final class StoreCache {
    private static final String PREFIX = "store-";
    private static final String SUFFIX = ".duckdb";
    private final Path dir;
    private final long maxBytes;

    /**
     * @param dir      the directory (created when needed)
     * @param maxBytes the bound on the stores' total size in bytes
     */
    public StoreCache(Path dir, long maxBytes) {
        this.dir = dir;
        this.maxBytes = maxBytes;
    }

    /**
     * The cache of this user: {@code $XDG_CACHE_HOME/tracewire}, else {@code $HOME/.cache/tracewire}
     * (the account's home when {@code HOME} is unset).
     */
    public static StoreCache ofUser(Map<String, String> env) {
        String xdg = env.get("XDG_CACHE_HOME");
        String home = env.get("HOME");
        Path base = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() ? Path.of(xdg)
                : Path.of(home != null && !home.isBlank() && Path.of(home).isAbsolute() ? home
                        : System.getProperty("user.home"), ".cache");
        long max = 8L << 30;
        String mib = env.get("TRACEWIRE_STORE_CACHE_MIB");
        if (mib != null && mib.matches("[0-9]{1,9}")) {
            max = Long.parseLong(mib) << 20;
        }
        return new StoreCache(base.resolve("tracewire"), max);
    }

    /** The directory. */
    public Path dir() {
        return dir;
    }

    /** The bound on the stores' total size, bytes. */
    public long maxBytes() {
        return maxBytes;
    }

    /**
     * The identity of a source file, as a text: real path, size, mtime (ns), inode.
     *
     * @throws IOException when the file cannot be read
     */
    public static String identity(Path source) throws IOException {
        Path real = source.toRealPath();
        Map<String, Object> a = Files.readAttributes(real, "unix:size,lastModifiedTime,ino");
        FileTime mtime = (FileTime) a.get("lastModifiedTime");
        long ns = mtime.to(TimeUnit.NANOSECONDS);
        return real + "\n" + a.get("size") + "\n" + ns + "\n" + a.get("ino");
    }

    /**
     * The store file for a source in its current state (it may not exist yet).
     *
     * @throws IOException when the source cannot be read
     */
    public Path storeFor(Path source) throws IOException {
        String key = identity(source) + "\nschema " + StoreBuilder.SCHEMA_VERSION;
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return dir.resolve(PREFIX + HexFormat.of().formatHex(h, 0, 12) + SUFFIX);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Deletes the least recently used stores (by modification time, which a use renews) until
     * their total is at most {@link #maxBytes()}; the stores named in {@code keep} stay.
     *
     * @return the stores deleted
     * @throws IOException when the directory cannot be listed
     */
    public List<Path> evict(List<Path> keep) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        List<Path> deleted = evictOldest(dir, PREFIX + "*" + SUFFIX, maxBytes, f -> keep.contains(f.path()));
        for (Path p : deleted) {
            Files.deleteIfExists(p.resolveSibling(p.getFileName() + ".wal"));
        }
        return deleted;
    }

    /**
     * A file an eviction considers.
     *
     * @param path       the file
     * @param bytes      its size, bytes
     * @param modifiedMs its modification time, ms since the epoch
     */
    public record Entry(Path path, long bytes, long modifiedMs) {
    }

    /**
     * The one eviction loop of the app's caches (the stores here, the live captures'
     * {@code CACHE/live}): the regular files of {@code dir} whose names match {@code glob} (links
     * are not followed, other files not counted), least recently modified first, are deleted until
     * those left total at most {@code maxBytes}; a file {@code keep} accepts is never deleted.
     *
     * @param dir      the folder
     * @param glob     the names of the files it bounds ({@link Files#newDirectoryStream(Path, String)})
     * @param maxBytes the bound, bytes
     * @param keep     true for a file that must stay
     * @return the files deleted, oldest first
     * @throws IOException when the folder cannot be listed or a file not deleted
     */
    public static List<Path> evictOldest(Path dir, String glob, long maxBytes, Predicate<Entry> keep)
            throws IOException {
        List<Entry> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, glob)) {
            for (Path p : ds) {
                BasicFileAttributes a;
                try {
                    a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (IOException e) {
                    continue; // gone meanwhile
                }
                if (a.isRegularFile()) {
                    files.add(new Entry(p, a.size(), a.lastModifiedTime().toMillis()));
                }
            }
        }
        files.sort(Comparator.comparingLong(Entry::modifiedMs));
        long total = files.stream().mapToLong(Entry::bytes).sum();
        List<Path> deleted = new ArrayList<>();
        for (Entry f : files) {
            if (total <= maxBytes) {
                break;
            }
            if (keep.test(f)) {
                continue;
            }
            Files.deleteIfExists(f.path());
            total -= f.bytes();
            deleted.add(f.path());
        }
        return deleted;
    }
}
