package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.analysis.LatencyPair;
import org.tracewire.analysis.LatencyTracker;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.KernelLayout;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.testing.Prerequisites;

/**
 * The generated dissector's latency analysis ({@code tracewire.analysis.*}) equals core's
 * {@link LatencyTracker#pairAll} over the same frames: a version-2 pcapng of real records (the page
 * fixture, written by core's {@link FixturePcapng}: FORMAT messages without description trees, so the
 * plugin decodes with its tables) is read back by {@link PcapngInput} (frame numbers = 1-based order in the file) and decoded by
 * tshark with the all-events plugin; both give the same set of (end frame, start frame, kind,
 * latency ns), with no Lua error. A second pass ({@code tshark -2}) also names each pair's end on its
 * start frame, and {@code tracewire.analysis.latency} filters as a time. A synthetic capture with more
 * pending starts than the cap checks that both sides drop the same oldest ones.
 */
@Tag("tshark")
class AnalysisFieldsTest {

    /** One pair as both sides report it. */
    record Row(long end, long start, String kind, long ns) implements Comparable<Row> {
        @Override
        public int compareTo(Row o) {
            return end != o.end ? Long.compare(end, o.end) : Long.compare(start, o.start);
        }

        @Override
        public String toString() {
            return "frame " + end + " <- " + start + " " + kind + " " + ns + " ns";
        }
    }

    /** LatencyPair.Kind as the dissector names it. */
    static String kind(LatencyPair.Kind k) {
        return k.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    /** The Java pairs over the frames of a pcapng, read back as records. */
    static TreeSet<Row> javaPairs(Path pcap) throws IOException {
        List<EventRecord> records = new ArrayList<>();
        List<Long> frames = new ArrayList<>();
        try (PcapngInput in = PcapngInput.open(pcap)) {
            for (var it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                records.add(e.record());
                frames.add(e.frame());
            }
        }
        TreeSet<Row> out = new TreeSet<>();
        for (LatencyPair p : LatencyTracker.pairAll(records)) {
            assertTrue(out.add(new Row(frames.get((int) p.end().sequence()), frames.get((int) p.start().sequence()),
                    kind(p.kind()), p.latencyNs())), "one pair per end frame: " + p);
        }
        return out;
    }

    /** Packets in a pcapng (tshark prints one line per packet). */
    static long packets(Path pcap) throws IOException {
        long n = 0;
        try (PcapngPacketReader r = new PcapngPacketReader(pcap)) {
            while (r.next() != null) {
                n++;
            }
        }
        return n;
    }

    /**
     * tshark's pairs; asserts one row per frame and no Lua error. With {@code visibleTree} the fields
     * are printed ({@code -T fields}: every item of every frame), else they are custom columns
     * ({@link Tools#columns}: only the referenced items, as in Wireshark's packet list).
     */
    static TreeSet<Row> tsharkPairs(Path plugin, Path pcap, long frames, boolean visibleTree) throws Exception {
        String[] fields = {"frame.number", "tracewire.analysis.kind", "tracewire.analysis.latency_ns",
            "tracewire.analysis.start_frame", "_ws.lua.error", "tracewire.expert.internal"};
        List<String> args = new ArrayList<>(List.of("-T", "fields", "-E", "separator=/t"));
        for (String f : fields) {
            args.addAll(List.of("-e", f));
        }
        Tools.Run r = visibleTree ? Tools.tshark(plugin, pcap, args.toArray(String[]::new))
                : Tools.columns(plugin, pcap, fields);
        assertEquals(0, r.exit(), r.err());
        TreeSet<Row> out = new TreeSet<>();
        long n = 0;
        int errors = 0;
        for (String line : r.out().split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            n++;
            String[] c = line.split("\t", -1);
            if (!c[4].isEmpty() || !c[5].isEmpty()) {
                errors++;
            }
            if (!c[1].isEmpty()) {
                assertTrue(out.add(new Row(Long.parseLong(c[0]), Long.parseLong(c[3]), c[1], Long.parseLong(c[2]))), line);
            }
        }
        assertEquals(frames, n, "tshark printed one line per frame");
        assertEquals(0, errors, "frames with Lua errors");
        return out;
    }

    static void assertSame(TreeSet<Row> java, TreeSet<Row> lua) {
        TreeSet<Row> onlyJava = new TreeSet<>(java);
        onlyJava.removeAll(lua);
        TreeSet<Row> onlyLua = new TreeSet<>(lua);
        onlyLua.removeAll(java);
        assertTrue(onlyJava.isEmpty() && onlyLua.isEmpty(), "only in Java (" + onlyJava.size() + "): "
                + onlyJava.stream().limit(10).toList() + "\nonly in Lua (" + onlyLua.size() + "): "
                + onlyLua.stream().limit(10).toList());
    }

    @Test
    void fixtureCapturePairsEqualTheTracker() throws Exception {
        Prerequisites.requireTool("tshark");
        List<EventRecord> records = FixtureRecords.load();
        Path pcap = FixturePcapng.write(Tools.tempDir().resolve("analysis-fixture.pcapng"), records);
        TreeSet<Row> java = javaPairs(pcap);
        Map<String, Integer> perKind = new TreeMap<>();
        java.forEach(r -> perKind.merge(r.kind(), 1, Integer::sum));
        for (LatencyPair.Kind k : LatencyPair.Kind.values()) {
            assertTrue(perKind.getOrDefault(kind(k), 0) > 10, "the fixture has pairs of every kind: " + perKind);
        }
        Path plugin = Tools.allPlugin();
        TreeSet<Row> lua = tsharkPairs(plugin, pcap, packets(pcap), true);
        assertSame(java, lua);
        System.out.println("[analysis] " + records.size() + " frames: " + lua.size() + " pairs equal the tracker's "
                + perKind);

        // second pass: the start frame names its end; the latency filters as a relative time
        Tools.Run two = Tools.tshark(plugin, pcap, "-2", "-T", "fields", "-e", "frame.number",
                "-e", "tracewire.analysis.end_frame", "-e", "tracewire.analysis.start_frame");
        assertEquals(0, two.exit(), two.err());
        Map<Long, Long> endOf = new HashMap<>();
        int ends = 0;
        for (String line : two.out().split("\n")) {
            String[] c = line.split("\t", -1);
            if (!c[1].isEmpty()) {
                endOf.put(Long.parseLong(c[0]), Long.parseLong(c[1]));
            }
            if (!c[2].isEmpty()) {
                ends++;
            }
        }
        Map<Long, Long> want = new HashMap<>();
        java.forEach(r -> want.put(r.start(), r.end()));
        assertEquals(want, endOf, "end_frame on the start frames (second pass)");
        assertEquals(java.size(), ends, "start_frame on the end frames (second pass)");

        TreeSet<Long> got = new TreeSet<>();
        Tools.listed(plugin, pcap, "tracewire.analysis.latency > 0.00005").forEach(f -> got.add((long) f));
        TreeSet<Long> over = new TreeSet<>();
        java.stream().filter(r -> r.ns() > 50_000).forEach(r -> over.add(r.end()));
        assertTrue(!over.isEmpty() && over.size() < java.size(), "the filter splits the pairs: " + over.size());
        assertEquals(over, got, "frames with tracewire.analysis.latency > 0.00005");
    }

    @Test
    void morePendingStartsThanTheCapDropTheSameOldest() throws Exception {
        Prerequisites.requireTool("tshark");
        int n = LatencyTracker.DEFAULT_MAX_PENDING + 3000;
        List<EventRecord> records = new ArrayList<>();
        long t = 1_000;
        // a syscall start that is evicted before its exit, and one that is not
        records.add(synth("syscalls", "sys_enter_openat", 0, t++, Map.of("__syscall_nr", 257L), 7));
        for (int i = 0; i < n; i++) {
            records.add(synth("sched", "sched_wakeup", i % 2, t++, Map.of("pid", 100_000L + i, "target_cpu", 1L), 1));
            if (i == n - 10) {
                records.add(synth("syscalls", "sys_enter_openat", 1, t++, Map.of("__syscall_nr", 257L), 8));
            }
        }
        records.add(synth("syscalls", "sys_exit_openat", 0, t++, Map.of("__syscall_nr", 257L, "ret", 3L), 7));
        records.add(synth("syscalls", "sys_exit_openat", 1, t++, Map.of("__syscall_nr", 257L, "ret", 4L), 8));
        for (int i = 0; i < n; i++) {
            records.add(synth("sched", "sched_switch", i % 2, t, Map.of("prev_pid", 1L, "next_pid", 100_000L + i), 1));
            t += 1 + i % 7;
        }
        Path pcap = FixturePcapng.write(Tools.tempDir().resolve("analysis-cap.pcapng"), records);
        TreeSet<Row> java = javaPairs(pcap);
        Map<String, Integer> perKind = new TreeMap<>();
        java.forEach(r -> perKind.merge(r.kind(), 1, Integer::sum));
        assertEquals(Map.of("sched wakeup", LatencyTracker.DEFAULT_MAX_PENDING - 1, "syscall", 1), perKind,
                "the oldest starts (the first syscall, the first wakeups) were dropped");
        Path plugin = Tools.tempDir().resolve("analysis-sched-syscalls.lua");
        List<EventFormat> sel = new ArrayList<>();
        for (EventFormat f : Tools.catalog().formats()) {
            if (f.system().equals("sched") || f.name().endsWith("_openat")) {
                sel.add(f);
            }
        }
        Files.writeString(plugin, new DissectorGenerator(Tools.catalog(), Tools.layout(), "snapshots/linux-6.18")
                .generate(sel).lua());
        // 137,000 frames: the fields as packet-list columns (the fixture above prints them with a visible tree)
        assertSame(java, tsharkPairs(plugin, pcap, packets(pcap), false));
    }

    private static final Map<String, EventFormat> FORMATS = new HashMap<>();

    /** A record of the snapshot's format with the given integer fields (the rest 0), little-endian. */
    static EventRecord synth(String system, String event, int cpu, long ts, Map<String, Long> fields, int pid) {
        EventFormat f = FORMATS.computeIfAbsent(system + ":" + event, k -> Tools.snapshot().format(system, event));
        ByteBuffer b = ByteBuffer.allocate(f.fixedSize()).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(f.field("common_type").offset(), (short) f.id());
        b.putInt(f.field("common_pid").offset(), pid);
        for (var e : fields.entrySet()) {
            Field field = f.field(e.getKey());
            long v = e.getValue();
            switch (field.size()) {
                case 4 -> b.putInt(field.offset(), (int) v);
                case 8 -> b.putLong(field.offset(), v);
                default -> throw new IllegalArgumentException(field.name() + " size " + field.size());
            }
        }
        return new EventRecord(f, new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8), cpu, ts, b);
    }
}
