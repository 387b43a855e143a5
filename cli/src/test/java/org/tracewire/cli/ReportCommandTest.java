package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.SavedCmdlines;
import org.tracewire.tracetext.TraceLinePrefix;

/**
 * {@code report FILE.pcapng} on wire format v2, from the file alone: the trace.dat fixture through
 * {@code import} prints exactly the lines its trace.dat report prints (golden file); the page
 * fixture's records (every kind of event of this machine) written with their context print what the
 * Java renderer prints with that knowledge at hand; {@code --json} names the task from PROCESS
 * context; lost events from LOST context are in the summary; a merged file renders each capture
 * with its own context; a version-1 file is refused clearly.
 */
class ReportCommandTest {
    @TempDir
    Path dir;

    static final Path DAT = Path.of("..", "core", "src", "test", "resources", "tracedat", "sched-v7-zstd.dat");
    static final Path GOLDEN = Path.of("..", "core", "src", "test", "resources", "tracedat", "sched-v7-zstd.report.txt");

    record Result(int rc, String out, String err) {
    }

    static Result cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void importedTraceDatReportsTheGoldenLines() throws Exception {
        Path pcap = dir.resolve("s.pcapng");
        Result imp = cli("import", "--no-live-kernel", DAT.toString(), "-w", pcap.toString());
        assertEquals(0, imp.rc, imp.err);
        assertTrue(imp.err.startsWith("import: 701 event frames and "), imp.err);
        Result rep = cli("report", pcap.toString());
        assertEquals(0, rep.rc, rep.err);
        assertEquals(Files.readString(GOLDEN), rep.out, "report of the v2 pcapng = report of the trace.dat");
        assertEquals("", rep.err);
    }

    @Test
    void fixtureRecordsPrintWhatTheRendererPrintsWithTheSameKnowledge() throws Exception {
        List<EventRecord> recs = FixtureRecords.load();
        ContextPcapng.Source src = ContextPcapng.snapshot(recs);
        Path pcap = ContextPcapng.write(dir.resolve("f.pcapng"), recs, src, Map.of());
        Result rep = cli("report", pcap.toString());
        assertEquals(0, rep.rc, rep.err);
        // the file says of every address the text needs that the sender knew no symbol (SYMBOLS item 3):
        // the same knowledge as a resolver that finds none (the snapshot has no kallsyms)
        PrintContext c = src.context();
        KernelTextRenderer expected = new KernelTextRenderer(new TraceLinePrefix(src.tasks(), "local"), src.layout(),
                new PrintContext(SymbolResolver.none(), c.printkFormats(), c.hz(), c.enums(), c.variables()));
        List<String> lines = rep.out.lines().toList();
        assertEquals(recs.size(), lines.size());
        int named = 0;
        for (int i = 0; i < recs.size(); i++) {
            assertEquals(expected.line(recs.get(i)), lines.get(i), "record " + i);
            if (!lines.get(i).trim().startsWith("<...>-")) {
                named++;
            }
        }
        assertTrue(named > recs.size() / 2, "tasks named from PROCESS context: " + named + " of " + recs.size());
        System.out.printf("report of %d fixture records (%d event types) from a v2 pcapng: all equal the renderer's lines,"
                + " %d with a task name%n", recs.size(), recs.stream().map(r -> r.format().id()).distinct().count(), named);
    }

    @Test
    void jsonNamesTasksAndLostEventsAreSummarised() throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 3000);
        ContextPcapng.Source src = ContextPcapng.snapshot(recs);
        Map<Integer, Long> lost = new HashMap<>();
        lost.put(100, 7L);
        lost.put(2000, 5L);
        Path pcap = ContextPcapng.write(dir.resolve("l.pcapng"), recs, src, lost);
        Result rep = cli("report", "--json", pcap.toString());
        assertEquals(0, rep.rc, rep.err);
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> events = new ArrayList<>();
        for (String l : rep.out.lines().toList()) {
            if (!l.isBlank()) {
                events.add(json.readTree(l));
            }
        }
        assertEquals(recs.size(), events.size());
        for (int i = 0; i < recs.size(); i++) {
            EventRecord r = recs.get(i);
            JsonNode e = events.get(i);
            assertEquals(r.pid(), e.get("pid").asInt());
            assertEquals(src.tasks().comm(r.pid()), e.get("comm").asText(), "event " + i);
            assertEquals(r.timestampNs(), e.get("time").asLong(), "trace clock");
            assertEquals(r.timestampNs() + src.clockOffset(), e.get("wall").asLong(), "wall clock");
            assertEquals(lost.getOrDefault(i, 0L).longValue(), e.has("lost") ? e.get("lost").asLong() : 0, "event " + i);
            for (Field f : r.format().fields()) {
                if (f.kind() == FieldKind.INTEGER && f.signed() && f.size() <= 8) {
                    assertEquals(r.integer(f), e.get("fields").get(f.name()).asLong(), "event " + i + " " + f.name());
                }
            }
        }
        int cpu100 = recs.get(100).cpu();
        int cpu2000 = recs.get(2000).cpu();
        List<String> expected = cpu100 == cpu2000 ? List.of("report: cpu " + cpu100 + ": 12 events lost")
                : List.of("report: cpu " + Math.min(cpu100, cpu2000) + ": " + (cpu100 < cpu2000 ? 7 : 5) + " events lost",
                "report: cpu " + Math.max(cpu100, cpu2000) + ": " + (cpu100 < cpu2000 ? 5 : 7) + " events lost");
        assertEquals(expected, rep.err.lines().toList());
    }

    @Test
    void mergedCapturesAreEachRenderedWithTheirOwnContext() throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 500);
        ContextPcapng.Source src = ContextPcapng.snapshot(recs);
        // the same records as two hosts whose tasks have other names
        SavedCmdlines alpha = renamed(recs, "alpha");
        SavedCmdlines beta = renamed(recs, "beta");
        Path a = ContextPcapng.write(dir.resolve("a.pcapng"), recs, src.withHost("alpha").withTasks(alpha), Map.of());
        Path b = ContextPcapng.write(dir.resolve("b.pcapng"), recs, src.withHost("beta").withTasks(beta), Map.of());
        Path m = dir.resolve("m.pcapng");
        Result merge = cli("merge", a.toString(), b.toString(), "-w", m.toString());
        assertEquals(0, merge.rc, merge.err);
        Result rep = cli("report", m.toString());
        assertEquals(0, rep.rc, rep.err);
        List<String> lines = rep.out.lines().toList();
        assertEquals(2 * recs.size(), lines.size());
        long alphaLines = lines.stream().filter(l -> l.contains("alpha-")).count();
        long betaLines = lines.stream().filter(l -> l.contains("beta-")).count();
        long idle = recs.stream().filter(r -> r.pid() == 0).count();
        assertEquals(recs.size() - idle, alphaLines, "every non-idle event of capture alpha named by alpha's PROCESS context");
        assertEquals(recs.size() - idle, betaLines);
        Result exp = cli("export", m.toString(), "-o", dir.resolve("m.dat").toString());
        assertEquals(1, exp.rc);
        assertTrue(exp.err.startsWith("export: " + m + " holds 2 captures (interfaces [0, 1])"), exp.err);
    }

    /** Each task's comm replaced by {@code NAME-pid}'s prefix, so lines show which capture named them. */
    private static SavedCmdlines renamed(List<EventRecord> recs, String name) {
        StringBuilder sb = new StringBuilder();
        recs.stream().map(EventRecord::pid).distinct().filter(p -> p != 0)
                .forEach(p -> sb.append(p).append(' ').append(name).append('\n'));
        return SavedCmdlines.parse(sb.toString());
    }

    @Test
    void versionOneAndForeignFilesAreRefusedClearly() throws Exception {
        Path v1 = dir.resolve("v1.pcapng");
        try (PcapngWriter w = PcapngWriter.create(v1, SectionInfo.host())) {
            int i = w.addInterface(InterfaceInfo.ethernet("tracewire", "old", 1514));
            byte[] f = new byte[80];
            f[12] = (byte) 0x88;
            f[13] = (byte) 0xB5;
            f[14] = 'T';
            f[15] = 'W';
            w.writePacket(i, 1, f);
        }
        Result r = cli("report", v1.toString());
        assertEquals(1, r.rc);
        assertEquals("tracewire report: " + v1 + ": no tracewire capture context (CAPTURE frame) in the file: it holds tracewire "
                + "wire format version 1 frames, not read by this version\n", r.err);
        Path text = Files.writeString(dir.resolve("x.txt"), "hello\n");
        Result t = cli("report", text.toString());
        assertEquals(1, t.rc, "bad input, not a usage error");
        assertTrue(t.err.contains("neither a trace.dat nor a pcapng"), t.err);
    }
}
