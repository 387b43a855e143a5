package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * A store built by a child JVM ({@link StoreBuildProcess}) against one built in this JVM from the
 * same file: the same counts per event and the same place where a cut file stops; the child's
 * refusal is the in-process build's message; a prepared child builds only at its go; a child
 * whose parent goes (its stdin ends) halts and leaves no file in the cache.
 */
class StoreBuildProcessTest {
    @TempDir
    Path dir;

    /** The fixture's records repeated until there are at least {@code min}. */
    private Path fixture(String name, int min) throws IOException {
        List<EventRecord> one = FixtureRecords.load();
        List<EventRecord> recs = new ArrayList<>(one);
        while (recs.size() < min) {
            recs.addAll(one);
        }
        return ContextPcapng.write(dir.resolve(name), recs, ContextPcapng.snapshot(one), Map.of(10, 3L));
    }

    private StoreCache cache(String name) {
        return new StoreCache(dir.resolve(name), 1L << 30);
    }

    /** Events per event name, and where reading stopped, of a file's store in a cache. */
    private static String counts(Path file, StoreCache cache, boolean expectBuilt) throws IOException, SQLException {
        try (CaptureStore cs = CaptureStore.open(List.of(file), cache, null);
             Statement s = cs.connection().createStatement();
             ResultSet rs = s.executeQuery("SELECT event, count(*) FROM events GROUP BY event")) {
            assertEquals(expectBuilt, cs.sources().get(0).built(), "built now (else reused from the cache)");
            Map<String, Long> m = new TreeMap<>();
            while (rs.next()) {
                m.put(rs.getString(1), rs.getLong(2));
            }
            return m + " events " + cs.sources().get(0).events() + " stopped at " + cs.sources().get(0).stoppedAt();
        }
    }

    @Test
    void theChildsStoreIsTheOneThisJvmBuilds() throws Exception {
        Path file = fixture("f.pcapng", 0);
        byte[] all = Files.readAllBytes(file);
        Path cut = Files.write(dir.resolve("cut.pcapng"), Arrays.copyOf(all, all.length * 2 / 3 + 5));
        for (Path f : List.of(file, cut)) {
            StoreCache child = cache("child-" + f.getFileName());
            long n;
            try (StoreBuildProcess p = StoreBuildProcess.start(f, child)) {
                n = p.await(null);
            }
            String inChild = counts(f, child, false); // the child's store, reused
            String here = counts(f, cache("here-" + f.getFileName()), true);
            assertEquals(here, inChild, f.getFileName().toString());
            assertTrue(n > 0 && inChild.contains(" events " + n + " stopped at "), "the child's count: " + n);
        }
        assertTrue(counts(cut, cache("here-cut.pcapng"), false).matches("(?s).* stopped at after \\d+ events: .*"),
                "the cut file's store says where it stopped");
    }

    /** A prepared child starts, then waits: no line, no store until its go; then the same store as a started one. */
    @Test
    void aPreparedChildBuildsOnlyAtItsGo() throws Exception {
        Path file = fixture("f.pcapng", 0);
        StoreCache cache = cache("prepared");
        try (StoreBuildProcess p = StoreBuildProcess.prepare(file, cache)) {
            Thread.sleep(3000); // its JVM started and DuckDB loaded meanwhile; a build of the fixture takes less
            assertTrue(p.isAlive(), "waiting for its go");
            assertFalse(Files.exists(cache.storeFor(file)), "no store before the go");
            try (Stream<Path> files = Files.isDirectory(cache.dir()) ? Files.list(cache.dir()) : Stream.empty()) {
                assertEquals(List.of(), files.toList(), "nothing in the cache before the go");
            }
            p.go();
            long n = p.await(null);
            assertEquals(counts(file, cache("here"), true), counts(file, cache, false));
            assertTrue(counts(file, cache, false).contains(" events " + n + " stopped at "), "the count: " + n);
        }
    }

    @Test
    void aRefusalIsTheInProcessBuildsMessage() throws Exception {
        byte[] all = Files.readAllBytes(fixture("f.pcapng", 0));
        int shb = ByteBuffer.wrap(all, 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        Path bare = Files.write(dir.resolve("bare.pcapng"), Arrays.copyOf(all, shb)); // a section header only
        IOException here = assertThrows(IOException.class, () -> CaptureStore.open(List.of(bare), cache("here"), null));
        try (StoreBuildProcess p = StoreBuildProcess.start(bare, cache("child"))) {
            IOException child = assertThrows(IOException.class, () -> p.await(null));
            assertEquals(here.getMessage(), child.getMessage());
        }
    }

    @Test
    void aChildWhoseStdinEndsHaltsAndLeavesNoFile() throws Exception {
        Path file = fixture("big.pcapng", 8 * StoreBuilder.PROGRESS_EVERY);
        StoreCache cache = cache("cache");
        Process p = new ProcessBuilder(StoreBuildProcess.command(file, cache))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String first = out.readLine();
            assertTrue(first != null && first.startsWith("counted "), "the first progress line: " + first);
            p.getOutputStream().close(); // what the parent's exit does, however it exits
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child halted");
            assertEquals(3, p.exitValue(), "halted by its watch of stdin, not built to the end");
        } finally {
            p.destroyForcibly();
        }
        try (Stream<Path> files = Files.list(cache.dir())) {
            List<Path> left = files.toList();
            assertFalse(left.stream().anyMatch(f -> f.getFileName().toString().startsWith("store-")), left.toString());
        }
    }
}
