package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.analysis.LatencyPair;
import org.tracewire.analysis.LatencyTracker;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * {@code tracewire sql} against {@code tracewire report --json} on a live capture of a broad mix
 * (the events of {@link CaptureContextLiveTest#MIX} this kernel has, with its workload): the count
 * of every event type, the events table row by row (event, CPU, trace time, pid, comm), and every
 * field of every event of every type in its typed table equal to the value {@code report} prints;
 * {@code sched_latency} equal to {@link LatencyTracker}'s pairs fed in file order; the
 * {@code sched_slice} durations of each CPU adding up to its span from first to last switch.
 */
@Tag("live")
class SqlOracleLiveTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private record Out(int exit, String out, String err) {
    }

    private static Out run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Out(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static List<JsonNode> lines(String text) throws Exception {
        List<JsonNode> l = new ArrayList<>();
        for (String s : text.split("\n")) {
            if (!s.isBlank()) {
                l.add(JSON.readTree(s));
            }
        }
        return l;
    }

    @Test
    void sqlEqualsReportAndTheTrackerOnALiveCapture(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        List<String> events = new ArrayList<>();
        for (String e : CaptureContextLiveTest.MIX) {
            String[] se = e.split(":");
            if (top.exists("events/" + se[0] + "/" + se[1] + "/enable")) {
                events.add(e);
            }
        }
        Path file = dir.resolve("mix.pcapng");
        List<String> args = new ArrayList<>();
        events.forEach(e -> {
            args.add("-e");
            args.add(e);
        });
        args.addAll(List.of("--duration", "3", "-w", file.toString(), "--no-iface"));
        CaptureOracle.Run cap = CaptureOracle.run(top, "sql-oracle", events, args, () -> CaptureContextLiveTest.workload(dir));
        assertEquals(0, cap.exit(), cap.stdout() + cap.stderr());
        String cache = dir.resolve("cache").toString();

        Out report = run("report", "--json", file.toString());
        assertEquals(0, report.exit(), report.err());
        List<JsonNode> rep = lines(report.out());
        assertTrue(rep.size() > 1000, "events: " + rep.size());

        // counts per event type
        Map<String, Long> want = new TreeMap<>();
        rep.forEach(j -> want.merge(j.get("event").asText(), 1L, Long::sum));
        Out counts = run("sql", "--cache-dir", cache, "--json", file.toString(),
                "SELECT event, count(*) AS n FROM events GROUP BY event ORDER BY event");
        assertEquals(0, counts.exit(), counts.err());
        assertTrue(counts.err().contains("store built, " + rep.size() + " events"), counts.err());
        Map<String, Long> got = new TreeMap<>();
        lines(counts.out()).forEach(j -> got.put(j.get("event").asText(), j.get("n").asLong()));
        assertEquals(want, got);
        assertTrue(want.size() >= 15, "event types seen: " + want.keySet());

        // the events table, row by row in frame order (report's order)
        Out rows = run("sql", "--cache-dir", cache, "--json", file.toString(),
                "SELECT event, cpu, trace_ts, pid, comm FROM events ORDER BY frame");
        List<JsonNode> ev = lines(rows.out());
        assertEquals(rep.size(), ev.size());
        for (int i = 0; i < ev.size(); i++) {
            JsonNode r = rep.get(i);
            JsonNode s = ev.get(i);
            String at = "event " + i + ": " + r;
            assertEquals(r.get("event").asText(), s.get("event").asText(), at);
            assertEquals(r.get("cpu").asLong(), s.get("cpu").asLong(), at);
            assertEquals(r.get("time").asLong(), s.get("trace_ts").asLong(), at);
            assertEquals(r.get("pid").asLong(), s.get("pid").asLong(), at);
            assertEquals(r.get("comm").asText(), s.get("comm").asText(), at);
        }

        // every field of every event type: the typed table against report's fields
        Map<String, EventFormat> formats = new HashMap<>();
        try (PcapngInput in = PcapngInput.open(file)) {
            in.catalog().formats().forEach(f -> formats.put(f.fullName(), f));
        }
        Out tables = run("sql", "--cache-dir", cache, "--json", file.toString(), "SELECT event, table_name FROM s0.event_tables");
        long compared = 0;
        for (JsonNode t : lines(tables.out())) {
            String event = t.get("event").asText();
            EventFormat f = formats.get(event);
            List<JsonNode> fromReport = rep.stream().filter(j -> j.get("event").asText().equals(event)).toList();
            Out typed = run("sql", "--cache-dir", cache, "--json", file.toString(),
                    "SELECT * FROM \"" + t.get("table_name").asText() + "\" ORDER BY frame");
            assertEquals(0, typed.exit(), typed.err());
            List<JsonNode> fromSql = lines(typed.out());
            assertEquals(fromReport.size(), fromSql.size(), event);
            for (int i = 0; i < fromSql.size(); i++) {
                for (Field field : f.fields()) {
                    String col = column(field.name());
                    JsonNode r = fromReport.get(i).get("fields").get(field.name());
                    JsonNode s = fromSql.get(i).get(col);
                    assertField(field, r, s, event + " #" + i + " " + field.name());
                    compared++;
                }
            }
        }
        System.out.printf("sql vs report: %d events, %d event types, %d field values equal%n", rep.size(), want.size(), compared);

        // sched_latency against the tracker, fed in file order
        List<String> pairs = new ArrayList<>();
        Map<Long, Long> times = new HashMap<>();
        LatencyTracker tracker = new LatencyTracker();
        try (PcapngInput in = PcapngInput.open(file)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                times.put(e.frame(), e.record().timestampNs());
                tracker.feed(e.frame(), e.record()).filter(p -> p.kind() == LatencyPair.Kind.SCHED_WAKEUP)
                        .ifPresent(p -> pairs.add(p.pid() + "," + p.start().sequence() + "," + p.end().sequence() + ","
                                + p.latencyNs()));
            }
        }
        assertTrue(pairs.size() > 50, "wakeup pairs: " + pairs.size());
        Out lat = run("sql", "--cache-dir", cache, "--csv", file.toString(),
                "SELECT pid, wakeup_frame, frame, latency FROM sched_latency ORDER BY frame");
        List<String> gotPairs = new ArrayList<>(List.of(lat.out().strip().split("\n")));
        assertEquals("pid,wakeup_frame,frame,latency", gotPairs.remove(0));
        assertEquals(pairs, gotPairs);

        // sched_slice: per CPU the slices tile the span from the first switch to the last
        Out slices = run("sql", "--cache-dir", cache, "--csv", file.toString(),
                "SELECT cpu, sum(dur) = max(ts) - min(ts) AS tiles, count(*) AS n FROM sched_slice GROUP BY cpu ORDER BY cpu");
        for (String l : slices.out().strip().split("\n")) {
            if (!l.startsWith("cpu")) {
                assertTrue(l.matches("\\d+,true,\\d+"), slices.out());
            }
        }
    }

    /** The typed table's column of a field (a field named like a key column gets a trailing _). */
    private static String column(String field) {
        return List.of("frame", "ts", "common_cpu", "common_pid", "capture", "host").contains(field) ? field + "_" : field;
    }

    /** A value of report --json against the sql --json one, by the field's kind. */
    private static void assertField(Field f, JsonNode r, JsonNode s, String what) {
        if (r == null || r.isNull()) {
            assertTrue(s == null || s.isNull(), what + ": report has no value, sql " + s);
            return;
        }
        switch (f.kind()) {
            case INTEGER -> assertEquals(r.bigIntegerValue(), s.bigIntegerValue(), what);
            case POINTER -> assertEquals(new BigInteger(r.asText().substring(2), 16), s.bigIntegerValue(), what);
            case CHAR_ARRAY, DYNAMIC_STRING -> assertEquals(r.asText(), s.asText(), what);
            case ARRAY, DYNAMIC_ARRAY -> {
                if (r.isArray()) {
                    assertEquals(r.size(), s.size(), what);
                    for (int i = 0; i < r.size(); i++) {
                        assertEquals(r.get(i).longValue(), s.get(i).bigIntegerValue().longValue(), what + "[" + i + "]");
                    }
                } else {
                    assertEquals(r.asText(), s.asText(), what); // element size not 1/2/4/8: hex both ways
                }
            }
            default -> assertEquals(r.asText(), s.asText(), what);
        }
    }
}
