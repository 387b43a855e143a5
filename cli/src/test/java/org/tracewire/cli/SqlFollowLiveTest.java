package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.store.CaptureStore;
import org.tracewire.store.StoreCache;
import org.tracewire.testing.Prerequisites;

/**
 * The capture store of a file still being written: a 10-s capture in another JVM writes
 * {@code -w FILE} while {@link CaptureStore#open(List, StoreCache, java.util.function.Consumer,
 * boolean)} follows it; once the capture closes the file, that store equals the one built from the
 * finished file (row counts and per-column sums of every table).
 *
 * <p>The three followers (each test's body) follow one capture at once, each with a store cache of
 * its own: one 10-s capture for the class instead of one per test (39 s to about 15 s). Each test
 * waits for its body and fails with its assertion.
 */
@Tag("live")
class SqlFollowLiveTest {
    @TempDir
    static Path dir;
    private static Process load;
    private static Process capture;
    private static final Map<String, CompletableFuture<Void>> BODIES = new ConcurrentHashMap<>();

    /** Starts the load and the capture, then the three followers on it, each on a thread of its own. */
    @BeforeAll
    static void captureOnceFollowedThreeWays() throws Exception {
        Prerequisites.requireTracefs();
        Path file = dir.resolve("growing.pcapng");
        Path log = dir.resolve("capture.log");
        load = load();
        capture = capture(file, log);
        Map<String, WhileCapturing> bodies = Map.of("open", SqlFollowLiveTest::builtWhileTheFileGrows,
                "following", SqlFollowLiveTest::readWhileTheFileGrows, "sql", SqlFollowLiveTest::sqlFollow);
        bodies.forEach((name, body) -> {
            Path own = dir.resolve(name);
            BODIES.put(name, CompletableFuture.runAsync(() -> {
                try {
                    Files.createDirectories(own);
                    body.run(capture, file, log, own);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, r -> new Thread(r, "follower-" + name).start()));
        });
    }

    @AfterAll
    static void endLoadAndCapture() throws Exception {
        if (load != null) {
            load.destroyForcibly().waitFor();
        }
        if (capture != null) {
            capture.destroyForcibly().waitFor();
        }
    }

    /** Waits for one follower's body: its assertion error (or exception) is the test's. */
    private static void await(String name) throws Throwable {
        try {
            BODIES.get(name).get(150, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof IllegalStateException && c.getCause() != null ? c.getCause() : c;
        }
    }

    @Test
    void aStoreBuiltWhileTheFileGrowsEqualsTheFinishedFilesStore() throws Throwable {
        await("open");
    }

    private static void builtWhileTheFileGrows(Process capture, Path file, Path log, Path dir) throws Exception {
        long sizeAtStart = Files.size(file);
        CompletableFuture<CaptureStore> following = CompletableFuture.supplyAsync(() -> {
            try {
                return CaptureStore.open(List.of(file), new StoreCache(dir.resolve("follow"), 1L << 32), null, true);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(2000);
        if (following.isDone()) {
            following.join(); // its failure, if any
        }
        assertTrue(capture.isAlive(), "the capture runs 10 s: " + Files.readString(log));
        assertTrue(!following.isDone(), "the store waits for the capture");
        assertTrue(capture.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, capture.exitValue(), Files.readString(log));
        long sizeAtEnd = Files.size(file);
        try (CaptureStore followed = following.get(30, TimeUnit.SECONDS);
             CaptureStore finished = CaptureStore.open(List.of(file), new StoreCache(dir.resolve("whole"), 1L << 32),
                     null)) {
            List<String> a = fingerprint(followed);
            List<String> b = fingerprint(finished);
            System.out.printf("[live] store of a growing file (%d -> %d bytes): %s%n", sizeAtStart, sizeAtEnd, a);
            assertEquals(b, a, "the followed store equals the finished file's");
            assertTrue(a.get(0).matches("event_rows \\d{4,}.*"), a.get(0));
            assertTrue(sizeAtEnd > sizeAtStart * 4, "the file grew while followed: " + sizeAtStart + " -> " + sizeAtEnd);
        }
    }

    /**
     * The store the app reads during a live capture ({@link CaptureStore#following}): readable
     * after its first commit while the capture runs, its committed count growing; at the end equal
     * to the store built from the finished file.
     */
    @Test
    void aStoreReadWhileItsFileGrowsEqualsTheFinishedFilesStore() throws Throwable {
        await("following");
    }

    private static void readWhileTheFileGrows(Process capture, Path file, Path log, Path dir) throws Exception {
        List<Long> seen = new ArrayList<>();
        try (CaptureStore followed = CaptureStore.following(file, new StoreCache(dir.resolve("follow"), 1L << 32),
                capture::isAlive, null)) {
            List<Long> commits = new java.util.concurrent.CopyOnWriteArrayList<>();
            followed.addCommitListener((n, frame, last) -> commits.add(n));
            while (capture.isAlive()) {
                try (Statement st = followed.connection().createStatement();
                     ResultSet rs = st.executeQuery("SELECT count(*) FROM events")) {
                    rs.next();
                    seen.add(rs.getLong(1));
                }
                Thread.sleep(1000);
            }
            assertEquals(0, capture.exitValue(), Files.readString(log));
            long events = followed.built().get(60, TimeUnit.SECONDS).events();
            assertTrue(seen.stream().filter(n -> n > 0).distinct().count() >= 5,
                    "events queried while the capture ran: " + seen);
            assertTrue(seen.get(seen.size() - 1) < events, "the last look before the end saw a prefix: " + seen);
            assertTrue(commits.size() >= 5, "commits: " + commits);
            try (CaptureStore finished = CaptureStore.open(List.of(file), new StoreCache(dir.resolve("whole"), 1L << 32),
                    null)) {
                List<String> a = fingerprint(followed);
                List<String> b = fingerprint(finished);
                System.out.printf("[live] store read while its file grew, counts seen each second %s: %s%n", seen, a);
                assertEquals(b, a, "the followed store equals the finished file's");
                assertTrue(a.get(0).matches("event_rows \\d{4,}.*"), a.get(0));
            }
        }
    }

    /**
     * {@code sql --follow FILE QUERY} of one pcapng (the app's stepped build, {@link CaptureStore#following}):
     * started while a 10-s capture writes the file, it answers once the capture has closed it, with
     * the count of the finished file's store.
     */
    @Test
    void sqlFollowOfOneFileAnswersOverTheWholeCapture() throws Throwable {
        await("sql");
    }

    private static void sqlFollow(Process capture, Path file, Path log, Path dir) throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int exit = Main.run(new String[] {"sql", "--follow", "--csv", "--cache-dir", dir.resolve("cli").toString(),
            file.toString(), "SELECT count(*) FROM events"}, new java.io.PrintStream(out, true, "UTF-8"),
                new java.io.PrintStream(err, true, "UTF-8"));
        String errText = err.toString("UTF-8");
        assertEquals(0, exit, errText);
        assertTrue(!capture.isAlive() || capture.waitFor(5, TimeUnit.SECONDS), "answered once the capture had ended");
        assertEquals(0, capture.exitValue(), Files.readString(log));
        assertTrue(errText.contains("store built while the file grew"), errText);
        long followed = Long.parseLong(out.toString("UTF-8").strip().lines().reduce((x, y) -> y).orElseThrow());
        try (CaptureStore finished = CaptureStore.open(List.of(file), new StoreCache(dir.resolve("whole"), 1L << 32), null);
             Statement st = finished.connection().createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM events")) {
            rs.next();
            assertEquals(rs.getLong(1), followed, "sql --follow counts the finished file's events");
            assertTrue(followed > 1000, "events: " + followed);
        }
    }

    /** What a follower does while a capture writes {@code file} (its output in {@code log}), in {@code dir}. */
    private interface WhileCapturing {
        void run(Process capture, Path file, Path log, Path dir) throws Exception;
    }

    /** A load that schedules tasks and opens files, until destroyed. */
    private static Process load() throws Exception {
        return new ProcessBuilder("sh", "-c", "while :; do cat /proc/version >/dev/null; done")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    /**
     * A 10-s capture in another JVM into {@code file}, framed while tracing (the file grows as the
     * capture runs, not after it), returned once it has started the file.
     */
    private static Process capture(Path file, Path log) throws Exception {
        Process capture = CaptureRecoveryLiveTest.childCapture(log, "-e", "sched:sched_switch", "-e",
                "sched:sched_wakeup", "-e", "syscalls:sys_enter_openat", "--duration", "10", "--read-ahead", "0", "-w",
                file.toString());
        for (int i = 0; i < 600 && (!Files.exists(file) || Files.size(file) == 0); i++) {
            Thread.sleep(50);
        }
        assertTrue(capture.isAlive(), Files.readString(log));
        return capture;
    }

    /** Per table (and the {@code event_rows} view): its row count and, per column, a sum of hashes (order-free). */
    private static List<String> fingerprint(CaptureStore s) throws Exception {
        List<String> out = new ArrayList<>();
        List<String> tables = new ArrayList<>(List.of("event_rows")); // the store's view of every event, then its tables
        try (Statement st = s.connection().createStatement();
             ResultSet rs = st.executeQuery("SELECT table_name FROM duckdb_tables() WHERE database_name = 's0' AND table_name NOT IN "
                     + "('meta', 'captures') ORDER BY table_name")) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
        }
        for (String t : tables) {
            try (Statement st = s.connection().createStatement();
                 ResultSet rs = st.executeQuery("SELECT count(*), sum(hash(columns(*)) % 1000003) FROM s0.\"" + t + "\"")) {
                rs.next();
                StringBuilder sb = new StringBuilder(t).append(' ').append(rs.getLong(1));
                for (int i = 2; i <= rs.getMetaData().getColumnCount(); i++) {
                    sb.append(' ').append(rs.getString(i));
                }
                out.add(sb.toString());
            }
        }
        return out;
    }
}
