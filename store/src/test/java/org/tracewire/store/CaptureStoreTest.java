package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Array;
import java.sql.Blob;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.analysis.LatencyPair;
import org.tracewire.analysis.LatencyTracker;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.format.TaskFields;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * The store of a pcapng written from the checked-in ring-buffer fixture (real records of this
 * machine: sched, syscalls, irq, timers, …) against the records read straight from the file with
 * {@link PcapngInput}: counts, every typed column of every event, the lost table, the derived
 * views against independent computations ({@code sched_slice} from the switch records,
 * {@code sched_latency} against {@link LatencyTracker}); the cache's reuse and renewal; two files
 * as two hosts; cut files and inputs that fail (mutated files: {@link StoreMutationTest}).
 */
class CaptureStoreTest {
    @TempDir
    Path dir;

    private Path fixture(String name, int n) throws IOException {
        return fixture(dir, name, n);
    }

    /** A pcapng of the fixture's first {@code n} records in {@code dir}, with lost events before two of them. */
    static Path fixture(Path dir, String name, int n) throws IOException {
        List<EventRecord> recs = FixtureRecords.load();
        recs = recs.subList(0, Math.min(n, recs.size()));
        return ContextPcapng.write(dir.resolve(name), recs, ContextPcapng.snapshot(recs), Map.of(10, 3L, 200, 7L));
    }

    private StoreCache cache() {
        return new StoreCache(dir.resolve("cache"), 1L << 30);
    }

    /** The events of a file as PcapngInput reads them. */
    private static List<RecordInput.Event> read(Path file) throws IOException {
        List<RecordInput.Event> out = new ArrayList<>();
        try (PcapngInput in = PcapngInput.open(file)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                out.add(it.next());
            }
        }
        return out;
    }

    @Test
    void eventsAndEveryTypedColumnEqualTheRecords() throws Exception {
        Path file = fixture("a.pcapng", Integer.MAX_VALUE);
        List<RecordInput.Event> events = read(file);
        assertTrue(events.size() > 1000, "fixture events: " + events.size());
        try (CaptureStore store = CaptureStore.open(List.of(file), cache(), null);
             Statement s = store.connection().createStatement()) {
            // counts per event
            Map<String, Long> want = new TreeMap<>();
            events.forEach(e -> want.merge(e.record().format().fullName(), 1L, Long::sum));
            Map<String, Long> got = new TreeMap<>();
            try (ResultSet rs = s.executeQuery("SELECT event, count(*) FROM events GROUP BY event")) {
                while (rs.next()) {
                    got.put(rs.getString(1), rs.getLong(2));
                }
            }
            assertEquals(want, got);
            assertTrue(want.size() >= 5, "event types: " + want.keySet());

            // the events table, row by row
            Map<Long, RecordInput.Event> byFrame = new HashMap<>();
            events.forEach(e -> byFrame.put(e.frame(), e));
            int rows = 0;
            try (ResultSet rs = s.executeQuery("SELECT frame, ts, trace_ts, cpu, pid, comm, event, id, flags, preempt_count,"
                    + " file_offset, host FROM events ORDER BY frame")) {
                long lastOffset = -1;
                while (rs.next()) {
                    RecordInput.Event e = byFrame.get(rs.getLong(1));
                    assertNotNull(e, "frame " + rs.getLong(1));
                    EventRecord r = e.record();
                    assertEquals(e.timeNs(), rs.getLong(2));
                    assertEquals(r.timestampNs(), rs.getLong(3));
                    assertEquals(r.cpu(), rs.getInt(4));
                    assertEquals(r.pid(), rs.getInt(5));
                    assertEquals(e.renderer().comm(r.pid()), rs.getString(6));
                    assertEquals(r.format().fullName(), rs.getString(7));
                    assertEquals(r.format().id(), rs.getInt(8));
                    assertEquals(r.flags(), rs.getInt(9));
                    assertEquals(r.preemptCount(), rs.getInt(10));
                    assertTrue(rs.getLong(11) > lastOffset, "offsets grow with frames");
                    lastOffset = rs.getLong(11);
                    assertEquals("fixture", rs.getString(12));
                    rows++;
                }
            }
            assertEquals(events.size(), rows);

            // the sparse index of file offsets: rank k * OFFSET_STEP's offset, one per step
            List<Long> sparse = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT file_offset FROM s0.event_offsets ORDER BY rowid")) {
                while (rs.next()) {
                    sparse.add(rs.getLong(1));
                }
            }
            List<Long> every = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT file_offset FROM (SELECT file_offset, row_number() OVER (ORDER BY frame) - 1"
                    + " AS rank FROM events) WHERE rank % " + StoreBuilder.OFFSET_STEP + " = 0 ORDER BY rank")) {
                while (rs.next()) {
                    every.add(rs.getLong(1));
                }
            }
            assertEquals((events.size() + StoreBuilder.OFFSET_STEP - 1) / StoreBuilder.OFFSET_STEP, sparse.size());
            assertEquals(every, sparse);

            // every typed column of every event
            Map<String, String> tables = new HashMap<>();
            try (ResultSet rs = s.executeQuery("SELECT event, table_name FROM s0.event_tables")) {
                while (rs.next()) {
                    tables.put(rs.getString(1), rs.getString(2));
                }
            }
            long values = 0;
            for (Map.Entry<String, String> t : tables.entrySet()) {
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + Sql.quote(t.getValue()) + " ORDER BY frame")) {
                    int n = 0;
                    while (rs.next()) {
                        EventRecord r = byFrame.get(rs.getLong("frame")).record();
                        assertEquals(t.getKey(), r.format().fullName());
                        assertEquals(r.cpu(), rs.getInt("common_cpu"));
                        for (Field f : r.format().fields()) {
                            String col = TypedColumn.of(f, 8).name();
                            assertValue(r, f, rs.getObject(col), t.getKey() + "." + f.name());
                            values++;
                        }
                        n++;
                    }
                    assertEquals(want.get(t.getKey()), n, t.getKey());
                }
            }
            assertTrue(values > 5000, "values compared: " + values);

            // lost: the two LOST marks of the fixture
            try (ResultSet rs = s.executeQuery("SELECT sum(count), count(*) FROM lost")) {
                assertTrue(rs.next());
                long lost = events.stream().mapToLong(e -> Math.max(0, e.lostBefore())).sum();
                assertEquals(10, lost);
                assertEquals(lost, rs.getLong(1));
                assertEquals(2, rs.getLong(2));
            }
        }
    }

    /**
     * {@code tasks} holds every task an event ran in or names ({@link TaskFields}: a switch's
     * {@code next_pid}, a wakeup's {@code pid}, …), named as the file's context names it: the file
     * ends on a record that names a task no event of the file ran in.
     */
    /**
     * A fixed array ({@code raw_syscalls:sys_enter}'s {@code unsigned long args[6]}) travels an
     * element per batch column and is stored as the list of its elements; unsigned values above
     * 2^63 stay unsigned; a record cut before its array gets NULL, its other columns kept.
     */
    @Test
    void fixedArraysAreListsOfTheirElements() throws Exception {
        org.tracewire.tracefs.Tracefs snap = org.tracewire.tracefs.Tracefs.open(org.tracewire.testing.Prerequisites.snapshot());
        org.tracewire.format.EventFormat enter = snap.format("raw_syscalls", "sys_enter");
        Field args = enter.field("args");
        assertEquals(6, TypedColumn.of(args, 8).spread(), "args[6] is spread");
        List<EventRecord> recs = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            Map<String, Object> v = new HashMap<>();
            v.put("id", Integer.toString(i % 300));
            EventRecord r = org.tracewire.record.RecordEncoder.encode(enter, snap.layout(), i % 2, 1_000_000L + i * 1000L,
                    100 + i % 7, v);
            java.nio.ByteBuffer p = r.payload().duplicate();
            byte[] bytes = new byte[p.remaining()];
            p.get(bytes);
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes).order(snap.layout().byteOrder());
            long[] a = {i, -1L - i, 0x8000_0000_0000_0000L + i, 0, 4096, i * 31L};
            for (int k = 0; k < 6; k++) {
                b.putLong(args.offset() + 8 * k, a[k]);
            }
            recs.add(new EventRecord(enter, r.layout(), r.cpu(), r.timestampNs(), b));
        }
        EventRecord whole = recs.get(1500);
        java.nio.ByteBuffer cut = whole.payload().duplicate();
        cut.limit(args.offset() + 8); // the id and the first element only
        recs.set(1500, new EventRecord(enter, whole.layout(), whole.cpu(), whole.timestampNs(), cut.slice()));
        Path file = ContextPcapng.write(dir.resolve("args.pcapng"), recs, ContextPcapng.snapshot(recs), Map.of());
        List<RecordInput.Event> events = read(file);
        assertEquals(3000, events.size());
        try (CaptureStore store = CaptureStore.open(List.of(file), cache(), null);
             Statement s = store.connection().createStatement();
             ResultSet rs = s.executeQuery("SELECT frame, id, args FROM sys_enter ORDER BY frame")) {
            int n = 0;
            int nulls = 0;
            while (rs.next()) {
                EventRecord r = events.get(n).record();
                assertEquals(events.get(n).frame(), rs.getLong(1));
                assertEquals(r.integer(enter.field("id")), rs.getLong(2));
                if (rs.getObject(3) == null) {
                    nulls++;
                    assertEquals(1500, n, "only the cut record's list is NULL");
                } else {
                    assertValue(r, args, rs.getObject(3), "frame " + rs.getLong(1));
                }
                n++;
            }
            assertEquals(3000, n);
            assertEquals(1, nulls);
        }
    }

    @Test
    void tasksHoldTheTasksEventsRanInAndName() throws Exception {
        List<EventRecord> recs = FixtureRecords.load();
        Set<Integer> ran = new HashSet<>();
        int end = -1;
        int unseen = -1;
        for (int i = 0; i < recs.size() && end < 0; i++) {
            EventRecord r = recs.get(i);
            ran.add(r.pid());
            for (TaskFields.TaskField t : TaskFields.of(r.format())) {
                int pid = (int) r.integer(t.pid());
                if (pid > 0 && !ran.contains(pid)) {
                    end = i + 1;
                    unseen = pid;
                }
            }
        }
        assertTrue(end > 0, "the fixture names a task before it runs");
        Path file = fixture("named.pcapng", end);
        Map<Integer, String> want = new TreeMap<>();
        for (RecordInput.Event e : read(file)) {
            EventRecord r = e.record();
            want.put(r.pid(), e.renderer().comm(r.pid()));
            for (TaskFields.TaskField t : TaskFields.of(r.format())) {
                int pid = (int) r.integer(t.pid());
                if (pid > 0) {
                    want.put(pid, e.renderer().comm(pid));
                }
            }
        }
        Map<Integer, String> stored = new TreeMap<>();
        try (CaptureStore store = CaptureStore.open(List.of(file), cache(), null);
             Statement s = store.connection().createStatement();
             ResultSet rs = s.executeQuery("SELECT pid, comm FROM s0.tasks")) {
            while (rs.next()) {
                assertNull(stored.put(rs.getInt(1), rs.getString(2)), "one row per pid");
            }
        }
        assertTrue(stored.containsKey(unseen), "task " + unseen + " named by the last record: " + stored.keySet());
        assertEquals(want, stored);
    }

    /** A stored value against the record's own, by the field's kind. */
    private static void assertValue(EventRecord r, Field f, Object v, String what) throws SQLException {
        switch (f.kind()) {
            case INTEGER, POINTER -> {
                long x = r.integer(f);
                String want = f.signed() && f.kind() == FieldKind.INTEGER ? Long.toString(x)
                        : Long.toUnsignedString(x);
                assertEquals(want, v.toString(), what);
            }
            case CHAR_ARRAY, DYNAMIC_STRING -> assertEquals(r.string(f), v, what);
            case ARRAY, DYNAMIC_ARRAY -> {
                Object[] items = (Object[]) ((Array) v).getArray();
                assertEquals(r.arrayLength(f), items.length, what);
                for (int i = 0; i < items.length; i++) {
                    long x = r.arrayElement(f, i);
                    assertEquals(f.signed() ? Long.toString(x) : Long.toUnsignedString(x), items[i].toString(), what + "[" + i + "]");
                }
            }
            default -> assertArrayEquals(r.bytes(f), v instanceof Blob b ? b.getBytes(1, (int) b.length()) : (byte[]) v, what);
        }
    }

    @Test
    void derivedViewsEqualIndependentComputations() throws Exception {
        Path file = fixture("v.pcapng", Integer.MAX_VALUE);
        List<RecordInput.Event> events = read(file);
        // sched_slice: per CPU, from each switch to the next, in time order
        Map<Integer, List<long[]>> switches = new TreeMap<>(); // cpu -> {ts, frame, next_pid, prev_state, prev_pid}
        LatencyTracker tracker = new LatencyTracker();
        List<LatencyPair> pairs = new ArrayList<>();
        Map<Long, Long> frameTs = new HashMap<>();
        for (RecordInput.Event e : events) {
            EventRecord r = e.record();
            frameTs.put(e.frame(), e.timeNs());
            tracker.feed(e.frame(), r).ifPresent(p -> {
                if (p.kind() == LatencyPair.Kind.SCHED_WAKEUP) {
                    pairs.add(p);
                }
            });
            if (r.format().fullName().equals("sched:sched_switch")) {
                switches.computeIfAbsent(r.cpu(), k -> new ArrayList<>()).add(new long[] {e.timeNs(), e.frame(),
                        r.integer(r.format().field("next_pid")), r.integer(r.format().field("prev_state")),
                        r.integer(r.format().field("prev_pid"))});
            }
        }
        List<String> want = new ArrayList<>();
        for (Map.Entry<Integer, List<long[]>> c : switches.entrySet()) {
            List<long[]> l = new ArrayList<>(c.getValue());
            l.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
            for (int i = 0; i < l.size(); i++) {
                long[] a = l.get(i);
                long[] b = i + 1 < l.size() ? l.get(i + 1) : null;
                want.add(c.getKey() + " " + a[0] + " " + (b == null ? "null" : b[0] - a[0]) + " " + a[2] + " "
                        + (b == null ? "null" : ViewOracle.state(b[3])) + " " + (b == null ? "null" : b[4]));
            }
        }
        assertTrue(want.size() > 100, "slices: " + want.size());
        List<String> wantPairs = new ArrayList<>();
        for (LatencyPair p : pairs) {
            wantPairs.add(p.pid() + " " + p.start().sequence() + " " + p.end().sequence() + " "
                    + (frameTs.get(p.end().sequence()) - frameTs.get(p.start().sequence())) + " " + p.wakerPid() + " " + p.cpu());
        }
        assertTrue(wantPairs.size() > 20, "wakeup pairs: " + wantPairs.size());
        try (CaptureStore store = CaptureStore.open(List.of(file), cache(), null);
             Statement s = store.connection().createStatement()) {
            List<String> got = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT cpu, ts, dur, pid, end_state, end_prev_pid FROM sched_slice"
                    + " ORDER BY cpu, ts, frame")) {
                while (rs.next()) {
                    got.add(rs.getInt(1) + " " + rs.getLong(2) + " " + rs.getString(3) + " " + rs.getInt(4) + " "
                            + rs.getString(5) + " " + rs.getString(6));
                }
            }
            assertEquals(want, got);
            List<String> gotPairs = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT pid, wakeup_frame, frame, latency, waker_pid, target_cpu FROM sched_latency ORDER BY frame")) {
                while (rs.next()) {
                    gotPairs.add(rs.getInt(1) + " " + rs.getLong(2) + " " + rs.getLong(3) + " " + rs.getLong(4) + " "
                            + rs.getInt(5) + " " + rs.getInt(6));
                }
            }
            assertEquals(wantPairs, gotPairs);
        }
    }

    @Test
    void aStoreIsReusedWhileTheFileIsUnchangedAndRebuiltAfter() throws Exception {
        Path file = fixture("c.pcapng", 500);
        StoreCache cache = cache();
        Path first;
        try (CaptureStore store = CaptureStore.open(List.of(file), cache, null)) {
            assertTrue(store.sources().get(0).built());
            first = store.sources().get(0).store();
            assertEquals(500, store.sources().get(0).events());
        }
        try (CaptureStore store = CaptureStore.open(List.of(file), cache, null)) {
            assertFalse(store.sources().get(0).built());
            assertEquals(first, store.sources().get(0).store());
        }
        Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 5000));
        try (CaptureStore store = CaptureStore.open(List.of(file), cache, null)) {
            assertTrue(store.sources().get(0).built());
            assertFalse(first.equals(store.sources().get(0).store()));
        }
        // bounded: a cache of 1 byte keeps only the stores in use
        StoreCache tiny = new StoreCache(cache.dir(), 1);
        try (CaptureStore store = CaptureStore.open(List.of(file), tiny, null)) {
            assertFalse(Files.exists(first), "the stale store was evicted");
            assertTrue(Files.exists(store.sources().get(0).store()));
        }
    }

    @Test
    void twoFilesAreTwoHosts() throws Exception {
        Path a = fixture("a.pcapng", 300);
        Path b = fixture("b.pcapng", 700);
        try (CaptureStore store = CaptureStore.open(List.of(a, b), cache(), null);
             Statement s = store.connection().createStatement();
             ResultSet rs = s.executeQuery("SELECT host, count(*) FROM events GROUP BY host ORDER BY host")) {
            assertTrue(rs.next());
            assertEquals("fixture", rs.getString(1));
            assertEquals(300, rs.getLong(2));
            assertTrue(rs.next());
            assertEquals("fixture-2", rs.getString(1));
            assertEquals(700, rs.getLong(2));
            assertFalse(rs.next());
        }
    }

    @Test
    void aCutFileGivesAPartialStoreThatSaysWhereItStopped() throws Exception {
        Path file = fixture("t.pcapng", 2000);
        byte[] all = Files.readAllBytes(file);
        Path cut = dir.resolve("cut.pcapng");
        Files.write(cut, Arrays.copyOf(all, all.length * 2 / 3 + 5));
        try (CaptureStore store = CaptureStore.open(List.of(cut), cache(), null)) {
            CaptureStore.Source src = store.sources().get(0);
            assertTrue(src.events() > 100 && src.events() < 2000, "events kept: " + src.events());
            assertTrue(src.stoppedAt() != null && src.stoppedAt().matches("after " + src.events() + " events: .*pcapng "
                    + "offset \\d+: the file ends inside a block .*"), src.stoppedAt());
        }
    }

    @Test
    void anInputThatFailsMidwayGivesAPartialStoreThatSaysWhereItStopped() throws Exception {
        Path file = fixture("p.pcapng", 1500);
        Path store = dir.resolve("partial.duckdb");
        try (PcapngInput in = PcapngInput.open(file);
             org.duckdb.DuckDBConnection c = (org.duckdb.DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:" + store)) {
            // the input as it is, failing at its 1001st event as a read error would (a disk, a file cut while read)
            RecordInput failing = (RecordInput) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {RecordInput.class}, (proxy, m, args) -> {
                        if (!m.getName().equals("events")) {
                            return m.invoke(in, args);
                        }
                        Iterator<RecordInput.Event> it = in.events();
                        return new Iterator<RecordInput.Event>() {
                            int n;

                            @Override
                            public boolean hasNext() {
                                if (n == 1000) {
                                    throw new UncheckedIOException(new IOException("pcapng offset 4242: read error"));
                                }
                                return it.hasNext();
                            }

                            @Override
                            public RecordInput.Event next() {
                                n++;
                                return it.next();
                            }
                        };
                    });
            StoreBuilder.Result r = StoreBuilder.build(failing, c, file.toString());
            assertEquals(1000, r.events());
            assertEquals("after 1000 events: pcapng offset 4242: read error", r.stoppedAt());
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM " + TypedUnion.frames(c, "") + "),"
                         + " (SELECT value FROM meta WHERE key = 'complete'), (SELECT value FROM meta WHERE key = 'stopped_at'),"
                         + " (SELECT max(frame) FROM " + TypedUnion.frames(c, "") + ")")) {
                assertTrue(rs.next());
                assertEquals(1000, rs.getLong(1));
                assertEquals("false", rs.getString(2));
                assertEquals(r.stoppedAt(), rs.getString(3));
                assertEquals(read(file).get(999).frame(), rs.getLong(4), "the rows are the first 1000 events");
            }
        }
    }

    @Test
    void parquetExportIsHivePartitionedAndReadsBackTheSame() throws Exception {
        Path a = fixture("pa.pcapng", 600);
        Path b = fixture("pb.pcapng", 900);
        Path out = dir.resolve("parquet");
        try (CaptureStore store = CaptureStore.open(List.of(a, b), cache(), null);
             Statement s = store.connection().createStatement()) {
            Map<String, Long> written = store.exportParquet(out);
            assertEquals(1500, written.get("events"));
            assertTrue(written.containsKey("sched_switch") && written.containsKey("sched_slice"), written.toString());
            assertTrue(Files.isDirectory(out.resolve("events/host=fixture-2/event=sched%3Asched_switch"))
                    || Files.isDirectory(out.resolve("events/host=fixture-2/event=sched:sched_switch")), "Hive partitions");
            String want = "SELECT host, event, count(*) AS n, sum(pid) AS p, sum(ts % 1000003) AS t FROM $T GROUP BY ALL ORDER BY ALL";
            List<String> fromStore = ViewOracle.rows(s, want.replace("$T", "events"));
            List<String> fromParquet = ViewOracle.rows(s, want.replace("$T", "read_parquet('" + out + "/events/*/*/*.parquet', hive_partitioning = true)"));
            assertEquals(fromStore, fromParquet);
            assertEquals(ViewOracle.rows(s, "SELECT host, sum(dur) FROM sched_slice GROUP BY ALL ORDER BY ALL"),
                    ViewOracle.rows(s, "SELECT host, sum(dur) FROM read_parquet('" + out + "/sched_slice/*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY ALL"));
            assertThrows(IOException.class, () -> store.exportParquet(out), "an existing, non-empty directory is refused");
        }
    }

    @Test
    void outputFormsAndEscaping() throws Exception {
        Path file = fixture("o.pcapng", 400);
        try (CaptureStore store = CaptureStore.open(List.of(file), cache(), null);
             Statement s = store.connection().createStatement()) {
            String q = "SELECT 'a\u001b[31mb' AS t, 42::UBIGINT AS n, [1, 2]::UTINYINT[] AS l, NULL AS z, 'x,\"y' AS c";
            var sw = new StringWriter();
            try (ResultSet rs = s.executeQuery(q)) {
                QueryOutput.print(rs, QueryOutput.Form.TABLE, new PrintWriter(sw));
            }
            assertTrue(sw.toString().contains("a\\x1b[31mb"), sw.toString());
            assertFalse(sw.toString().contains("\u001b"));
            assertTrue(sw.toString().contains("[1, 2]") && sw.toString().contains("NULL") && sw.toString().contains("(1 row)"));
            sw = new StringWriter();
            try (ResultSet rs = s.executeQuery(q)) {
                QueryOutput.print(rs, QueryOutput.Form.CSV, new PrintWriter(sw));
            }
            assertEquals("t,n,l,z,c\na\u001b[31mb,42,\"[1, 2]\",,\"x,\"\"y\"\n", sw.toString().replace("\r\n", "\n"));
            sw = new StringWriter();
            try (ResultSet rs = s.executeQuery(q)) {
                QueryOutput.print(rs, QueryOutput.Form.JSON, new PrintWriter(sw));
            }
            assertEquals("{\"t\":\"a\\u001B[31mb\",\"n\":42,\"l\":[1,2],\"z\":null,\"c\":\"x,\\\"y\"}", sw.toString().strip());
        }
    }
}
