package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.duckdb.DuckDBConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * A store built while its pcapng grows ({@link CaptureStore#following}): the fixture's pcapng
 * copied into place in pieces over a few seconds (cut anywhere, as a writer leaves it). While it
 * grows, every snapshot a reader takes on another connection of the store's database is a
 * consistent prefix (every table and view agree with {@code meta.events}, each event's task has
 * one {@code tasks} row); the commit listener sees the count grow; at the end the store equals
 * the one {@link CaptureStore#build} makes of the finished file, every table row for row.
 */
class FollowingStoreTest {
    @TempDir
    Path dir;

    @Test
    void readersSeeConsistentPrefixesAndTheEndEqualsTheFinishedFilesStore() throws Exception {
        List<EventRecord> recs = FixtureRecords.load();
        Path whole = ContextPcapng.write(dir.resolve("whole.pcapng"), recs, ContextPcapng.snapshot(recs), Map.of(10, 3L, 200, 7L));
        byte[] bytes = Files.readAllBytes(whole);
        Path growing = dir.resolve("growing.pcapng");
        int pieces = 8;
        AtomicBoolean written = new AtomicBoolean(true);
        try (OutputStream out = Files.newOutputStream(growing)) {
            out.write(bytes, 0, 64); // the writer has started the file
            out.flush();
        }
        Thread writer = new Thread(() -> {
            try (OutputStream out = Files.newOutputStream(growing, java.nio.file.StandardOpenOption.APPEND)) {
                int at = 64;
                for (int i = 1; i <= pieces; i++) {
                    int to = i == pieces ? bytes.length : (int) ((long) bytes.length * i / pieces) + 13; // mid-block
                    out.write(bytes, at, to - at);
                    out.flush();
                    at = to;
                    Thread.sleep(600);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                written.set(false);
            }
        });
        List<long[]> commits = new CopyOnWriteArrayList<>();
        List<String> snapshots = new ArrayList<>();
        writer.start();
        try (CaptureStore cs = CaptureStore.following(growing, new StoreCache(dir.resolve("cache"), 1L << 30), written::get, null)) {
            cs.addCommitListener((n, frame, last) -> commits.add(new long[] {n, frame, last ? 1 : 0}));
            assertTrue(cs.committedEvents() > 0, "the store opens with its first commit");
            try (Connection reader = cs.connection().unwrap(DuckDBConnection.class).duplicate()) {
                while (!cs.built().isDone()) {
                    snapshots.add(snapshot(reader));
                    Thread.sleep(150);
                }
                snapshots.add(snapshot(reader));
            }
            StoreBuilder.Result r = cs.built().get(30, TimeUnit.SECONDS);
            assertNull(r.stoppedAt());
            assertEquals(r.events(), cs.committedEvents());
            assertFalse(commits.isEmpty());
            assertEquals(1, commits.get(commits.size() - 1)[2], "the last commit is the final one");
            for (int i = 1; i < commits.size(); i++) {
                boolean last = i == commits.size() - 1; // the final commit may add none: a step took them
                long[] c = commits.get(i);
                long[] b = commits.get(i - 1);
                assertTrue(last ? c[0] >= b[0] && c[1] >= b[1] : c[0] > b[0] && c[1] > b[1], "each step commit adds events");
            }
            assertTrue(snapshots.stream().map(s -> s.split(" ")[0]).distinct().count() >= 3,
                    "readers saw the store grow: " + snapshots);
            assertFalse(cs.sources().get(0).store().getFileName().toString().startsWith("following-"),
                    "moved into the cache once built: " + cs.sources().get(0).store());
            // the store CaptureStore.build makes of the finished file, attached beside: every table row for row
            Path built = dir.resolve("whole.duckdb");
            CaptureStore.build(whole, built);
            try (Statement st = cs.connection().createStatement()) {
                st.execute("ATTACH " + Sql.literal(built.toString()) + " AS w (READ_ONLY)");
            }
            List<String> tables = new ArrayList<>();
            try (Statement st = cs.connection().createStatement();
                 ResultSet rs = st.executeQuery("SELECT table_name FROM duckdb_tables() WHERE database_name = 'w'"
                         + " AND table_name <> 'meta' ORDER BY table_name")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            assertTrue(tables.contains("frame_runs") && tables.contains("sched_switch") && tables.contains("tasks"), tables.toString());
            for (String t : tables) {
                String a = "s0." + Sql.quote(t);
                String b = "w." + Sql.quote(t);
                assertEquals(count(cs.connection(), "SELECT count(*) FROM " + b), count(cs.connection(), "SELECT count(*) FROM " + a), t);
                assertEquals(0, count(cs.connection(), "SELECT count(*) FROM (SELECT * FROM " + a + " EXCEPT ALL SELECT * FROM " + b + ")"),
                        t + ": rows of the followed store not in the finished file's");
                assertEquals(0, count(cs.connection(), "SELECT count(*) FROM (SELECT * FROM " + b + " EXCEPT ALL SELECT * FROM " + a + ")"),
                        t + ": rows of the finished file's store not in the followed one");
            }
            assertEquals(recs.size(), count(cs.connection(), "SELECT count(*) FROM events"));
            assertEquals(count(cs.connection(), "SELECT count(*) FROM w.sched_switch"), count(cs.connection(), "SELECT count(*) FROM sched_slice"),
                    "the derived views over the followed store: a slice per switch");
        }
        writer.join();
    }

    /**
     * One reader's snapshot (one transaction): events committed, checked against every table and
     * view of that snapshot; "N" where all agree.
     */
    private static String snapshot(Connection c) throws Exception {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            long meta = count(c, "SELECT value::BIGINT FROM s0.meta WHERE key = 'events'");
            long rows = count(c, "SELECT count(*) FROM " + TypedUnion.frames(c, "s0."));
            long view = count(c, "SELECT count(*) FROM events");
            // frame_runs numbers the events in frame order: rank i has frame run.frame + i - run.rank
            long misnumbered = count(c, "SELECT count(*) FROM (SELECT frame, row_number() OVER (ORDER BY frame) - 1 AS rank"
                    + " FROM " + TypedUnion.frames(c, "s0.") + ") e ASOF LEFT JOIN s0.frame_runs r ON e.rank >= r.rank"
                    + " WHERE r.frame IS NULL OR e.frame <> r.frame + e.rank - r.rank");
            long untasked = count(c, "SELECT count(*) FROM " + TypedUnion.frames(c, "s0.") + " r WHERE NOT EXISTS"
                    + " (SELECT 1 FROM s0.tasks t WHERE t.capture = r.capture AND t.pid = r.pid)");
            long doubled = count(c, "SELECT count(*) FROM (SELECT capture, pid FROM s0.tasks GROUP BY ALL HAVING count(*) > 1)");
            String complete = "";
            try (ResultSet rs = s.executeQuery("SELECT value FROM s0.meta WHERE key = 'complete'")) {
                complete = rs.next() ? rs.getString(1) : "";
            }
            assertEquals(meta, rows, "the typed tables' rows against meta.events");
            assertEquals(rows, view, "the events view");
            assertEquals(0, misnumbered, "events whose frame frame_runs does not give");
            assertEquals(0, untasked, "every event's task has a tasks row");
            assertEquals(0, doubled, "one tasks row per task");
            return rows + " " + complete;
        } finally {
            c.commit();
            c.setAutoCommit(true);
        }
    }

    private static long count(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
