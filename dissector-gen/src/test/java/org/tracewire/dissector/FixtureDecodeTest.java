package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracetext.KernelTextRenderer;

/**
 * Real records of this kernel (the page fixture) encoded by the Java codec, decoded by tshark with
 * the all-events plugin: every field value equals the Java decoder's, the Info column equals
 * {@link KernelTextRenderer}'s kernel text (≥ 99 %, mismatches listed), no Lua errors, and
 * display filters select exactly the matching frames.
 */
@Tag("tshark")
class FixtureDecodeTest {
    static List<EventRecord> records;
    static Path pcap;
    static Path plugin;
    static List<Map<String, List<String>>> frames;

    @BeforeAll
    static void decode() throws Exception {
        Prerequisites.requireTool("tshark");
        records = Frames.fixtureRecords();
        pcap = Tools.tempDir().resolve("fixture.pcapng");
        Frames.write(pcap, records, Frames.hash(), Map.of(3, 17L));
        plugin = Tools.allPlugin();
        Tools.Run r = Tools.tshark(plugin, pcap, "-T", "json", "--no-duplicate-keys");
        assertEquals(0, r.exit(), r.err());
        JsonNode root = new ObjectMapper().readTree(r.out());
        frames = new ArrayList<>();
        for (JsonNode pkt : root) {
            Map<String, List<String>> m = new HashMap<>();
            flatten(pkt.path("_source").path("layers"), m);
            frames.add(m);
        }
    }

    static void flatten(JsonNode n, Map<String, List<String>> out) {
        Iterator<Map.Entry<String, JsonNode>> it = n.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            if (v.isObject()) {
                flatten(v, out);
            } else if (v.isArray()) {
                for (JsonNode x : v) {
                    if (x.isObject()) {
                        flatten(x, out);
                    } else {
                        out.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(x.asText());
                    }
                }
            } else {
                out.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(v.asText());
            }
        }
    }

    static String one(Map<String, List<String>> f, String key) {
        List<String> v = f.get(key);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    @Test
    void noLuaErrors() {
        assertEquals(records.size(), frames.size());
        long errors = frames.stream().filter(f -> f.containsKey("_ws.lua.error")
                || f.containsKey("tracewire.expert.internal")).count();
        assertEquals(0, errors, "frames with Lua errors");
        assertTrue(records.size() > 500, "fixture has " + records.size() + " records");
    }

    @Test
    void headerFieldsEqualTheRecords() {
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            Map<String, List<String>> f = frames.get(i);
            assertEquals(r.format().fullName(), one(f, "tracewire.event"), "frame " + (i + 1));
            assertEquals(String.valueOf(r.cpu()), one(f, "tracewire.cpu"));
            assertEquals(String.valueOf(r.format().id()), one(f, "tracewire.event_id"));
            assertEquals(String.valueOf(r.pid()), one(f, "tracewire.pid"));
            assertEquals(Long.toUnsignedString(r.timestampNs()), one(f, "tracewire.time"));
        }
        assertTrue(frames.get(3).containsKey("tracewire.expert.lost"), "lost events expert on frame 4");
    }

    @Test
    void everyFieldValueEqualsTheJavaDecoder() {
        Map<String, List<String>> abbrevs = Tools.all().abbreviations();
        int checked = 0;
        List<String> mismatches = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            Map<String, List<String>> f = frames.get(i);
            List<String> names = abbrevs.get(r.format().fullName());
            List<Field> fields = r.format().fields();
            for (int k = 0; k < fields.size(); k++) {
                Field fl = fields.get(k);
                String got = one(f, names.get(k));
                String want = expected(r, fl);
                if (want == null) {
                    continue;
                }
                checked++;
                if (!normalize(fl, want).equals(got == null ? null : normalize(fl, got))) {
                    mismatches.add("frame " + (i + 1) + " " + names.get(k) + ": lua=" + got + " java=" + want);
                }
            }
        }
        assertTrue(mismatches.isEmpty(), mismatches.size() + " of " + checked + " field values differ:\n"
                + String.join("\n", mismatches.subList(0, Math.min(40, mismatches.size()))));
        assertTrue(checked > 1000, "checked " + checked);
        System.out.println("[field values] " + checked + " field values equal the Java decoder's");
    }

    static String expected(EventRecord r, Field f) {
        String[] t = DissectorGenerator.protoType(f);
        try {
            switch (t[0]) {
                case "str" -> {
                    return r.string(f);
                }
                case "bytes" -> {
                    byte[] b = r.bytes(f);
                    if (f.kind() == FieldKind.ARRAY || f.kind() == FieldKind.OPAQUE || f.kind() == FieldKind.INTEGER) {
                        if (f.size() > 0 && b.length != f.size()) {
                            return null;
                        }
                    }
                    StringBuilder sb = new StringBuilder();
                    for (byte x : b) {
                        sb.append(String.format("%02x", x & 0xff));
                    }
                    return sb.toString();
                }
                default -> {
                    long v = r.integer(f);
                    if (t[1].equals("hex")) {
                        return "0x" + Long.toHexString(v);
                    }
                    return t[0].startsWith("i") ? Long.toString(v) : Long.toUnsignedString(v);
                }
            }
        } catch (RuntimeException e) {
            return null;
        }
    }

    static String normalize(Field f, String v) {
        String[] t = DissectorGenerator.protoType(f);
        if (t[0].equals("bytes")) {
            return v.replace(":", "").toLowerCase();
        }
        if (t[1].equals("hex")) {
            return new BigInteger(v.substring(2), 16).toString();
        }
        return v;
    }

    @Test
    void infoColumnEqualsTheKernelText() {
        KernelTextRenderer kernel = new KernelTextRenderer(null, Tools.layout(), PrintContext.empty());
        int same = 0;
        List<String> mismatches = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            String want = kernel.body(records.get(i));
            String got = one(frames.get(i), "tracewire.text");
            if (want.equals(got)) {
                same++;
            } else {
                mismatches.add("frame " + (i + 1) + " " + records.get(i).format().fullName() + "\n  lua:    " + got
                        + "\n  kernel: " + want);
            }
        }
        double rate = 100.0 * same / records.size();
        System.out.printf("[info] %d of %d Info texts equal the kernel text (%.2f %%)%n", same, records.size(), rate);
        mismatches.forEach(m -> System.out.println("[info mismatch] " + m));
        assertTrue(rate >= 99.0, String.format("%.2f %% match; first mismatches:%n%s", rate,
                String.join("\n", mismatches.subList(0, Math.min(30, mismatches.size())))));
    }

    @Test
    void displayFilterSelectsExactlyTheMatchingFrames() throws Exception {
        Map<Long, TreeSet<Integer>> byPid = new HashMap<>();
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            if (r.format().fullName().equals("sched:sched_switch")) {
                byPid.computeIfAbsent(r.integer(r.format().field("prev_pid")), k -> new TreeSet<>()).add(i + 1);
            }
        }
        assertTrue(!byPid.isEmpty(), "fixture has sched_switch records");
        long pid = byPid.keySet().stream().filter(p -> p != 0).findFirst().orElse(0L);
        for (long p : new long[] {pid, 1}) {
            Tools.Run r = Tools.tshark(plugin, pcap, "-Y", "tracewire.sched.sched_switch.prev_pid == " + p,
                    "-T", "fields", "-e", "frame.number");
            assertEquals(0, r.exit(), r.err());
            TreeSet<Integer> got = new TreeSet<>();
            for (String l : r.out().split("\n")) {
                if (!l.isBlank()) {
                    got.add(Integer.parseInt(l.trim()));
                }
            }
            assertEquals(byPid.getOrDefault(p, new TreeSet<>()), got, "prev_pid == " + p);
        }
    }
}
