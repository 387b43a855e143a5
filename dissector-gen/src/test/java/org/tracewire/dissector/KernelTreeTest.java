package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracetext.KernelTextRenderer;

/**
 * The details tree reads like the kernel's text (issue 36, item 6), checked with tshark on the page
 * fixture's real {@code sched:*} and {@code irq:softirq_entry} records in a v2 capture (core's codec,
 * {@link V2Capture}), with a plugin generated for those events; the oracle is the Java
 * {@link KernelTextRenderer} given the same context:
 * <ul>
 *   <li>{@code tracewire.sched.sched_switch.prev_state} keeps the raw value and
 *       {@code ….prev_state.text} is the kernel's letter(s) ({@code D} for 2); both filter, and so
 *       does {@code tracewire.field.text} with the runtime alone;</li>
 *   <li>the packet list's Source is {@code comm-pid}, its Destination {@code CPU n};</li>
 *   <li>in {@code tshark -V} the event's fields come first ({@code prev_state: D (2)}), the header
 *       subtree after them, with the time as an absolute time.</li>
 * </ul>
 */
@Tag("tshark")
class KernelTreeTest {
    static final String PS = "tracewire.sched.sched_switch.prev_state";
    static List<EventRecord> records;
    static V2Capture.Context context;
    static KernelTextRenderer kernel;
    static Path pcap;
    static Path plugin;
    /** Per EVENT frame, in record order: the fields asked of tshark (see {@link #FIELDS}). */
    static List<String[]> rows;
    static final String[] FIELDS = {"frame.number", "tracewire.event", PS, PS + ".text", "_ws.col.Source",
        "_ws.col.Destination", "tracewire.time_ns", "tracewire.irq.softirq_entry.vec.text", "tracewire.cpu",
        "tracewire.pid", "_ws.lua.error"};

    static boolean chosen(String fullName) {
        return fullName.startsWith("sched:") || fullName.equals("irq:softirq_entry");
    }

    @BeforeAll
    static void decode() throws Exception {
        Prerequisites.requireTool("tshark");
        records = Frames.fixtureRecords().stream().filter(r -> chosen(r.format().fullName())).toList();
        context = V2Capture.context(records, Tools.layout(), KernelEnums.empty());
        kernel = context.renderer(Tools.layout());
        pcap = Tools.tempDir().resolve("kernel-tree.pcapng");
        try (V2Capture c = V2Capture.open(pcap)) {
            c.records(records, context, Map.of());
        }
        List<EventFormat> selection = Tools.catalog().formats().stream().filter(f -> chosen(f.fullName())).toList();
        plugin = Tools.tempDir().resolve("kernel-tree.lua");
        Files.writeString(plugin, new DissectorGenerator(Tools.catalog(), Tools.layout(), "snapshots/linux-6.18")
                .generate(selection).lua());
        List<String> args = new ArrayList<>(List.of("-Y", "tracewire.kind == 0", "-T", "fields", "-E", "separator=|"));
        for (String f : FIELDS) {
            args.add("-e");
            args.add(f);
        }
        Tools.Run r = Tools.tshark(plugin, pcap, args.toArray(String[]::new));
        assertEquals(0, r.exit(), r.err());
        assertFalse(r.err().contains("Lua"), r.err());
        rows = r.out().lines().filter(l -> !l.isBlank()).map(l -> l.split("\\|", -1)).toList();
        assertEquals(records.size(), rows.size(), "one EVENT frame per record");
    }

    static String col(int row, String field) {
        return rows.get(row)[List.of(FIELDS).indexOf(field)];
    }

    /** What the kernel's text prints after {@code name=} in the record's line. */
    static String printed(EventRecord r, String name) {
        Matcher m = Pattern.compile("(?:^| |\\[)" + name + "=([^ \\]]*)").matcher(kernel.body(r));
        assertTrue(m.find(), kernel.body(r));
        return m.group(1);
    }

    @Test
    void prevStateIsTheKernelsLetterWithTheRawValue() throws Exception {
        TreeSet<Integer> two = new TreeSet<>();
        TreeSet<Integer> d = new TreeSet<>();
        int switches = 0;
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            assertEquals("", col(i, "_ws.lua.error"), "record " + i);
            if (!r.format().fullName().equals("sched:sched_switch")) {
                continue;
            }
            switches++;
            long raw = r.integer(r.format().field("prev_state"));
            String text = printed(r, "prev_state");
            assertEquals(Long.toString(raw), col(i, PS), "record " + i);
            assertEquals(text, col(i, PS + ".text"), "record " + i);
            int frame = Integer.parseInt(col(i, "frame.number"));
            if (raw == 2) {
                two.add(frame);
            }
            if (text.equals("D")) {
                d.add(frame);
            }
        }
        assertFalse(d.isEmpty(), "the fixture's " + switches + " switches hold no prev_state D");
        assertEquals(two, Tools.frameNumbers(plugin, pcap, PS + " == 2"));
        assertEquals(d, Tools.frameNumbers(plugin, pcap, PS + ".text == \"D\""));
        // the runtime alone (no tables: generic items from the capture's description trees) says the same
        assertEquals(d, Tools.frameNumbers(Tools.runtimeOnly(), pcap, "tracewire.field.text == \"D\""));
        System.out.printf("[kernel tree] %d sched_switch frames, %d with prev_state D (2)%n", switches, d.size());
    }

    @Test
    void symbolicFieldsGetTheKernelsName() {
        int n = 0;
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            if (r.format().fullName().equals("irq:softirq_entry")) {
                assertEquals(printed(r, "action"), col(i, "tracewire.irq.softirq_entry.vec.text"), "record " + i);
                n++;
            }
        }
        assertTrue(n > 0, "no softirq_entry in the fixture");
    }

    @Test
    void sourceIsTheTaskAndDestinationTheCpu() {
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            String comm = r.pid() == 0 ? "<idle>" : context.tasks().get(r.pid());
            assertEquals(comm + "-" + r.pid(), col(i, "_ws.col.Source"), "record " + i);
            assertEquals("CPU " + r.cpu(), col(i, "_ws.col.Destination"), "record " + i);
        }
    }

    /** Live frames (Ethernet on a TAP, as dumpcap saves them): the same columns, not the MAC addresses. */
    @Test
    void ethernetFramesGetTheSameColumns() throws Exception {
        List<EventRecord> some = records.subList(0, Math.min(500, records.size()));
        Path eth = Tools.tempDir().resolve("kernel-tree-eth.pcapng");
        try (V2Capture c = new V2Capture(eth, Tools.layout(), KernelEnums.empty(), true, true)) {
            c.records(some, context, Map.of());
        }
        Tools.Run r = Tools.tshark(plugin, eth, "-Y", "tracewire.kind == 0", "-T", "fields", "-E", "separator=|",
                "-e", "_ws.col.Source", "-e", "_ws.col.Destination", "-e", PS + ".text");
        assertEquals(0, r.exit(), r.err());
        List<String> lines = r.out().lines().filter(l -> !l.isBlank()).toList();
        assertEquals(some.size(), lines.size());
        for (int i = 0; i < some.size(); i++) {
            EventRecord e = some.get(i);
            String comm = e.pid() == 0 ? "<idle>" : context.tasks().get(e.pid());
            String text = e.format().fullName().equals("sched:sched_switch") ? printed(e, "prev_state") : "";
            assertEquals(comm + "-" + e.pid() + "|CPU " + e.cpu() + "|" + text, lines.get(i), "record " + i);
        }
    }

    @Test
    void fieldsComeFirstThenTheHeaderWithAnAbsoluteTime() throws Exception {
        int row = -1;
        for (int i = 0; i < records.size() && row < 0; i++) {
            if (records.get(i).format().fullName().equals("sched:sched_switch") && "2".equals(col(i, PS))) {
                row = i;
            }
        }
        assertTrue(row >= 0, "no prev_state 2");
        EventRecord r = records.get(row);
        Tools.Run v = Tools.tshark(plugin, pcap, "-V", "-Y", "frame.number == " + col(row, "frame.number"));
        assertEquals(0, v.exit(), v.err());
        List<String> lines = v.out().lines().map(String::strip).toList();
        int proto = index(lines, "tracewire trace event, sched:sched_switch, ");
        int prevComm = index(lines, "prev_comm: ");
        int prevState = lines.indexOf("prev_state: D (2)");
        int text = lines.indexOf("prev_state (text): D");
        int nextPrio = index(lines, "next_prio: ");
        int header = lines.indexOf("Header");
        int version = index(lines, "Version: 2");
        int time = index(lines, "Time: ");
        String all = String.join("\n", lines);
        assertTrue(proto >= 0 && prevComm > proto && prevState > prevComm && text == prevState + 1
                && nextPrio > text && header > nextPrio && version > header && time > version, all);
        assertTrue(lines.get(proto).endsWith(", CPU " + r.cpu()), lines.get(proto));
        // the absolute time of the header: the frame's time, in UTC, to the nanosecond
        long ns = V2Capture.EPOCH_NS + r.timestampNs();
        assertEquals(Long.toString(ns), col(row, "tracewire.time_ns"));
        Instant t = Instant.ofEpochSecond(ns / 1_000_000_000L, ns % 1_000_000_000L);
        String date = DateTimeFormatter.ofPattern("yyyy HH:mm:ss.SSSSSSSSS", Locale.ROOT).withZone(ZoneOffset.UTC)
                .format(t);
        assertTrue(lines.get(time).contains(date) && lines.get(time).endsWith("UTC"), lines.get(time) + " vs " + date);
        assertTrue(index(lines, "Time (ns since the epoch): " + ns) > time, all);
    }

    static int index(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        return -1;
    }
}
