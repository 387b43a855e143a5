package org.tracewire.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

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
        List<Path> stores = new ArrayList<>();
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return stores;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, PREFIX + "*" + SUFFIX)) {
            ds.forEach(stores::add);
        }
        stores.sort((x, y) -> Long.compare(mtime(x), mtime(y)));
        long total = 0;
        for (Path p : stores) {
            total += size(p);
        }
        List<Path> deleted = new ArrayList<>();
        for (Path p : stores) {
            if (total <= maxBytes) {
                break;
            }
            if (keep.contains(p) || !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            long s = size(p);
            Files.deleteIfExists(p);
            Files.deleteIfExists(p.resolveSibling(p.getFileName() + ".wal"));
            total -= s;
            deleted.add(p);
        }
        return deleted;
    }

    private static long mtime(Path p) {
        try {
            return Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return 0;
        }
    }
}
