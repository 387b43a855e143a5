package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The app's live captures in the cache are bounded as the store cache's stores are: the least
 * recently modified go first until the rest fit; links, other names, fresh files and files with a
 * spool stay.
 */
class LiveCacheEvictionTest {
    @TempDir
    Path dir;
    private final long now = 1_800_000_000_000L;

    private Path file(String name, int kib, long ageMs) throws Exception {
        Path p = dir.resolve(name);
        Files.write(p, new byte[kib * 1024]);
        Files.setLastModifiedTime(p, FileTime.fromMillis(now - ageMs));
        return p;
    }

    @Test
    void theOldestCapturesGoUntilTheRestFit() throws Exception {
        Path oldest = file("capture-20260101-000000.pcapng", 300, 4 * 3_600_000L);
        Path old = file("capture-20260101-010000.pcapng", 200, 3 * 3_600_000L);
        Path newer = file("capture-20260101-020000.pcapng", 100, 2 * 3_600_000L);
        Path newest = file("capture-20260101-030000-2.pcapng", 100, 3_600_000L);
        Path mine = file("mine.pcapng", 900, 10 * 3_600_000L);
        List<Path> deleted = LiveCapture.evictLive(dir, 250 * 1024, now);
        assertEquals(List.of(oldest, old), deleted, "oldest first, until 200 KiB are left");
        assertFalse(Files.exists(oldest));
        assertFalse(Files.exists(old));
        assertTrue(Files.exists(newer) && Files.exists(newest));
        assertTrue(Files.exists(mine), "a file of another name is never touched");
        assertEquals(List.of(), LiveCapture.evictLive(dir, 250 * 1024, now), "within the bound: nothing");
    }

    @Test
    void linksFreshFilesAndSpooledFilesStay() throws Exception {
        Path outside = Files.createDirectories(dir.resolve("elsewhere")).resolve("user.pcapng");
        Files.write(outside, new byte[500 * 1024]);
        Path live = Files.createDirectories(dir.resolve("live"));
        Path link = Files.createSymbolicLink(live.resolve("capture-20260101-000000.pcapng"), outside);
        Path spooled = Files.write(live.resolve("capture-20260101-010000.pcapng"), new byte[200 * 1024]);
        Files.setLastModifiedTime(spooled, FileTime.fromMillis(now - 3_600_000L));
        Files.createDirectory(live.resolve("capture-20260101-010000.pcapng.tw-spool"));
        Path fresh = Files.write(live.resolve("capture-20260101-020000.pcapng"), new byte[200 * 1024]);
        Files.setLastModifiedTime(fresh, FileTime.fromMillis(now - 5_000L));
        assertEquals(List.of(), LiveCapture.evictLive(live, 0, now));
        assertTrue(Files.exists(outside) && Files.isSymbolicLink(link), "a link and its target stay");
        assertTrue(Files.exists(spooled), "a killed capture's file stays for tracewire recover");
        assertTrue(Files.exists(fresh), "a capture may still write a file modified a moment ago");
    }

    @Test
    void aNewCacheFileEvictsTheLiveFolderFirst() throws Exception {
        Path live = Files.createDirectories(dir.resolve("live"));
        Path old = Files.write(live.resolve("capture-20250101-000000.pcapng"), new byte[64 * 1024]);
        Files.setLastModifiedTime(old, FileTime.fromMillis(System.currentTimeMillis() - 3_600_000L));
        Path next = LiveCapture.newCacheFile(dir, 1024);
        assertFalse(Files.exists(old), "over the bound: evicted");
        assertEquals(live, next.getParent());
        assertFalse(Files.exists(next), "the backend creates it");
        assertEquals(5L << 20, LiveCapture.liveCacheBytes(Map.of("TRACEWIRE_LIVE_CACHE_MIB", "5")));
        assertEquals(LiveCapture.LIVE_CACHE_BYTES, LiveCapture.liveCacheBytes(Map.of("TRACEWIRE_LIVE_CACHE_MIB", "-1")));
    }
}
