package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link StoreCache#evict} and the one eviction loop under it, {@link StoreCache#evictOldest}, on real files. */
class StoreCacheEvictTest {
    @TempDir
    Path dir;

    private Path file(String name, int bytes, long modifiedMs) throws IOException {
        Path p = Files.write(dir.resolve(name), new byte[bytes]);
        Files.setLastModifiedTime(p, FileTime.fromMillis(modifiedMs));
        return p;
    }

    @Test
    void oldestStoresGoFirstWithTheirWalAndKeptOnesStay() throws IOException {
        Path a = file("store-a.duckdb", 100, 1_000);
        Path aWal = file("store-a.duckdb.wal", 10, 1_000);
        Path b = file("store-b.duckdb", 100, 2_000);
        Path c = file("store-c.duckdb", 100, 3_000);
        Path other = file("notes.txt", 1_000, 0);
        StoreCache cache = new StoreCache(dir, 150);
        assertEquals(List.of(b), cache.evict(List.of(a, c)), "a is kept: b, the next oldest, goes");
        assertTrue(Files.exists(a) && Files.exists(aWal) && Files.exists(c) && Files.exists(other));
        assertEquals(List.of(a), cache.evict(List.of(c)), "then a, with its write-ahead log");
        assertFalse(Files.exists(aWal));
        assertEquals(List.of(), cache.evict(List.of()), "within the bound: nothing");
        assertTrue(Files.exists(c) && Files.exists(other), "other names are not the cache's");
    }

    @Test
    void linksAreNeitherCountedNorFollowed() throws IOException {
        Path target = file("elsewhere.bin", 10_000, 0);
        Path link = Files.createSymbolicLink(dir.resolve("store-l.duckdb"), target);
        Path s = file("store-s.duckdb", 100, 1_000);
        assertEquals(List.of(), StoreCache.evictOldest(dir, "store-*.duckdb", 100, f -> false),
                "the link's target does not count");
        assertEquals(List.of(s), StoreCache.evictOldest(dir, "store-*.duckdb", 99, f -> false));
        assertTrue(Files.isSymbolicLink(link) && Files.exists(target), "a link is never deleted nor followed");
    }
}
