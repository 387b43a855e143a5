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
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracetext.KernelTextRenderer;

/**
 * Real records of this kernel (the page fixture) written as a version-2 capture by core's codec,
 * with the context a capture carries (CAPTURE constants, FORMAT with the description tree,
 * SYMBOLS, PROCESS, a LOST message; see {@link V2Capture}), decoded by tshark with the all-events
 * plugin: every typed field value equals the Java decoder's, the Info column equals
 * {@link KernelTextRenderer}'s kernel text given the same context, comm and tgid come from the
 * PROCESS context, no Lua errors, and display filters select exactly the matching frames.
 */
@Tag("tshark")
class FixtureDecodeTest {
    static List<EventRecord> records;
    static V2Capture.Context context;
    static Path pcap;
    static Path plugin;
    /** The JSON layers of every frame, in file order. */
    static List<Map<String, List<String>>> all;
    /** Those of the EVENT frames, in record order. */
    static List<Map<String, List<String>>> events;
    static List<Integer> eventFrameNumbers;

    @BeforeAll
    static void decode() throws Exception {
        Prerequisites.requireTool("tshark");
        records = Frames.fixtureRecords();
        context = V2Capture.context(records, Tools.layout(), KernelEnums.empty());
        pcap = Tools.tempDir().resolve("fixture-v2.pcapng");
        try (V2Capture c = V2Capture.open(pcap)) {
            c.records(records, context, Map.of(3, 17L));
        }
        plugin = Tools.allPlugin();
        all = json(plugin, pcap);
        events = new ArrayList<>();
        eventFrameNumbers = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            if ("0".equals(one(all.get(i), "tracewire.kind"))) {
                events.add(all.get(i));
                eventFrameNumbers.add(i + 1);
            }
        }
    }

    /** tshark -T json of a capture: each frame's fields, flattened. */
    static List<Map<String, List<String>>> json(Path plugin, Path pcap, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("-T", "json", "--no-duplicate-keys"));
        args.addAll(List.of(extra));
        Tools.Run r = Tools.tshark(plugin, pcap, args.toArray(String[]::new));
        assertEquals(0, r.exit(), r.err());
        assertTrue(!r.err().contains("Lua"), r.err());
        JsonNode root = new ObjectMapper().readTree(r.out());
        List<Map<String, List<String>>> frames = new ArrayList<>();
        for (JsonNode pkt : root) {
            Map<String, List<String>> m = new HashMap<>();
            flatten(pkt.path("_source").path("layers"), m);
            frames.add(m);
        }
        return frames;
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
    void noLuaErrorsAndOneEventFramePerRecord() {
        assertEquals(records.size(), events.size());
        long errors = all.stream().filter(f -> f.containsKey("_ws.lua.error") || f.containsKey("tracewire.expert.internal")
                || f.containsKey("tracewire.expert.malformed") || f.containsKey("tracewire.expert.unknown_event")).count();
        assertEquals(0, errors, "frames with Lua errors, malformed or unknown events");
        assertTrue(records.size() > 30_000, "fixture has " + records.size() + " records");
        System.out.printf("[v2 fixture] %d frames: %d events and %d context frames%n", all.size(), events.size(),
                all.size() - events.size());
    }

    @Test
    void headerFieldsAndTheProcessContext() {
        Map<String, Long> seq = new HashMap<>();
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            Map<String, List<String>> f = events.get(i);
            String where = "record " + i + " (frame " + eventFrameNumbers.get(i) + ")";
            assertEquals(r.format().fullName(), one(f, "tracewire.event"), where);
            assertEquals(String.valueOf(r.cpu()), one(f, "tracewire.cpu"), where);
            assertEquals(String.valueOf(r.format().id()), one(f, "tracewire.event_id"), where);
            assertEquals(String.valueOf(r.pid()), one(f, "tracewire.pid"), where);
            assertEquals(Long.toUnsignedString(V2Capture.EPOCH_NS + r.timestampNs()), one(f, "tracewire.time_ns"), where);
            assertEquals(comm(r.pid()), one(f, "tracewire.comm"), where);
            assertEquals(String.valueOf(r.pid()), one(f, "tracewire.tgid"), where);
        }
        // one sequence per header cpu value (65535 for context frames of no CPU), over all frames
        for (int i = 0; i < all.size(); i++) {
            long s = seq.merge(one(all.get(i), "tracewire.cpu"), 1L, Long::sum) - 1;
            assertEquals(String.valueOf(s), one(all.get(i), "tracewire.seq"), "frame " + (i + 1) + ": per-CPU sequence");
        }
        // the LOST message before record 3: on its own frame, with the count and the expert info
        int lostFrame = eventFrameNumbers.get(3) - 1;
        Map<String, List<String>> lost = all.get(lostFrame - 1);
        assertEquals("5", one(lost, "tracewire.kind"));
        assertEquals("17", one(lost, "tracewire.lost"));
        assertTrue(lost.containsKey("tracewire.expert.lost"), lost.toString());
    }

    @Test
    void everyFieldValueEqualsTheJavaDecoder() {
        Map<String, List<String>> abbrevs = Tools.all().abbreviations();
        int checked = 0;
        List<String> mismatches = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            Map<String, List<String>> f = events.get(i);
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
                    mismatches.add("record " + i + " " + names.get(k) + ": lua=" + got + " java=" + want);
                }
            }
        }
        assertTrue(mismatches.isEmpty(), mismatches.size() + " of " + checked + " field values differ:\n"
                + String.join("\n", mismatches.subList(0, Math.min(40, mismatches.size()))));
        assertTrue(checked > 100_000, "checked " + checked);
        System.out.println("[field values] " + checked + " field values equal the Java decoder's");
    }

    /** tracewire.comm of a pid: the PROCESS context's name, "<idle>" for pid 0 (as the kernel's text). */
    static String comm(int pid) {
        return pid == 0 ? "<idle>" : context.tasks().get(pid);
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

    /** Info of every EVENT frame equals the kernel text; returns the mismatches. */
    static List<String> compareInfo(List<Map<String, List<String>>> frames, KernelTextRenderer kernel, String label) {
        int same = 0;
        List<String> mismatches = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            String want = kernel.body(records.get(i));
            String got = one(frames.get(i), "tracewire.text");
            if (want.equals(got)) {
                same++;
            } else {
                mismatches.add("record " + i + " " + records.get(i).format().fullName() + "\n  lua:    " + got
                        + "\n  kernel: " + want);
            }
        }
        System.out.printf("[%s] %d of %d Info texts equal the kernel text (%.2f %%)%n", label, same, records.size(),
                100.0 * same / records.size());
        return mismatches;
    }

    @Test
    void infoColumnEqualsTheKernelText() {
        KernelTextRenderer kernel = context.renderer(Tools.layout());
        List<String> mismatches = compareInfo(events, kernel, "info, all-events plugin");
        assertTrue(mismatches.isEmpty(), mismatches.size() + " differ; first:\n"
                + String.join("\n", mismatches.subList(0, Math.min(30, mismatches.size()))));
        // one renderer for all records (a renderer per record compiled each record's print fmt anew)
        long symbols = records.stream().filter(r -> kernel.body(r).contains("fn_")).count();
        assertTrue(symbols > 1000, "records printing symbols from the SYMBOLS context: " + symbols);
    }

    @Test
    void displayFilterSelectsExactlyTheMatchingFrames() throws Exception {
        // each filter as Wireshark filters its packet list (Tools.listed: the tree not visible, the
        // plugin adds the items the filter references)
        Map<Long, TreeSet<Integer>> byPid = new HashMap<>();
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            if (r.format().fullName().equals("sched:sched_switch")) {
                byPid.computeIfAbsent(r.integer(r.format().field("prev_pid")), k -> new TreeSet<>())
                        .add(eventFrameNumbers.get(i));
            }
        }
        assertTrue(!byPid.isEmpty(), "fixture has sched_switch records");
        long pid = byPid.keySet().stream().filter(p -> p != 0).findFirst().orElse(0L);
        for (long p : new long[] {pid, 1}) {
            assertEquals(byPid.getOrDefault(p, new TreeSet<>()),
                    Tools.listed(plugin, pcap, "tracewire.sched.sched_switch.prev_pid == " + p), "prev_pid == " + p);
        }
        // comm from the PROCESS context is a filterable field too
        int somePid = records.stream().mapToInt(EventRecord::pid).filter(p -> p > 0).findFirst().orElseThrow();
        TreeSet<Integer> want = new TreeSet<>();
        for (int i = 0; i < records.size(); i++) {
            if (records.get(i).pid() == somePid) {
                want.add(eventFrameNumbers.get(i));
            }
        }
        assertEquals(want, Tools.listed(plugin, pcap, "tracewire.comm == \"task" + somePid + "\""));
        // a visible tree lists only the flag bits that are set; a filter still sees the unset ones
        TreeSet<Integer> irqsOn = new TreeSet<>();
        for (int i = 0; i < records.size(); i++) {
            if ((records.get(i).flags() & 0x01) == 0) {
                irqsOn.add(eventFrameNumbers.get(i));
            }
        }
        assertTrue(!irqsOn.isEmpty() && irqsOn.size() < records.size(), "both kinds of frames: " + irqsOn.size());
        assertEquals(irqsOn, Tools.listed(plugin, pcap, "tracewire.common_flags.irqs_off == 0"));
    }

    @Test
    void ethernetFramesDecodeTheSame() throws Exception {
        List<EventRecord> some = records.subList(0, 3000);
        Path eth = Tools.tempDir().resolve("fixture-v2-ethernet.pcapng");
        try (V2Capture c = new V2Capture(eth, Tools.layout(), KernelEnums.empty(), true, true)) {
            c.records(some, context, null);
        }
        Tools.Run r = Tools.tshark(plugin, eth, "-Y", "tracewire.kind == 0", "-T", "fields", "-e", "tracewire.text",
                "-e", "tracewire.comm", "-e", "_ws.lua.error");
        assertEquals(0, r.exit(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(some.size(), lines.size());
        KernelTextRenderer kernel = context.renderer(Tools.layout());
        for (int i = 0; i < some.size(); i++) {
            String[] p = lines.get(i).split("\t", -1);
            assertEquals(kernel.body(some.get(i)), p[0], "record " + i);
            assertEquals(comm(some.get(i).pid()), p[1]);
            assertEquals("", p[2]);
        }
    }
}
