package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * Exit codes of the file commands: 0 ok; 1 bad input (a missing, foreign, malformed or cut-short
 * file) or failure; 2 usage errors only (an unknown option, a missing parameter, a bad option
 * value). A file cut inside a block is read up to its last complete block: those events are
 * printed (or converted), then the error naming the file offset and block, exit code 1.
 */
class ExitCodeTest {
    @TempDir
    Path dir;

    private static ReportCommandTest.Result cli(String... args) {
        return ReportCommandTest.cli(args);
    }

    @Test
    void usageErrorsExitTwoAndBadInputOne() throws Exception {
        Path foreign = Files.writeString(dir.resolve("x.txt"), "hello\n");
        Path missing = dir.resolve("missing.pcapng");
        Path out = dir.resolve("out");
        Map<List<String>, Integer> expected = Map.ofEntries(
                Map.entry(List.of("report"), 2),
                Map.entry(List.of("report", "--no-such-option", foreign.toString()), 2),
                Map.entry(List.of("import", foreign.toString()), 2),                          // -w missing
                Map.entry(List.of("import", foreign.toString(), "-w", out.toString(), "--max-frame", "3"), 2),
                Map.entry(List.of("report", missing.toString()), 1),
                Map.entry(List.of("report", foreign.toString()), 1),
                Map.entry(List.of("report", "--json", foreign.toString()), 1),
                Map.entry(List.of("import", missing.toString(), "-w", out.toString()), 1),
                Map.entry(List.of("import", foreign.toString(), "-w", out.toString()), 1),
                Map.entry(List.of("export", missing.toString(), "-o", out.toString()), 1),
                Map.entry(List.of("export", foreign.toString(), "-o", out.toString()), 1),
                Map.entry(List.of("merge", missing.toString(), "-w", out.toString()), 1));
        expected.forEach((args, code) -> {
            ReportCommandTest.Result r = cli(args.toArray(String[]::new));
            assertEquals(code, r.rc(), args + ": " + r.err());
            assertTrue(!r.err().isBlank(), args + ": a message");
            if (code == 1) {
                assertEquals(1, r.err().lines().count(), args + ": one line: " + r.err());
            }
        });
    }

    @Test
    void aCutPcapngIsReportedUpToItsLastCompleteBlockThenExitsOne() throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 300);
        Path whole = ContextPcapng.write(dir.resolve("whole.pcapng"), recs, ContextPcapng.snapshot(recs), Map.of());
        byte[] b = Files.readAllBytes(whole);
        Path cut = Files.write(dir.resolve("cut.pcapng"), Arrays.copyOf(b, b.length / 2 + 3));
        ReportCommandTest.Result all = cli("report", whole.toString());
        assertEquals(0, all.rc(), all.err());
        ReportCommandTest.Result part = cli("report", cut.toString());
        assertEquals(1, part.rc(), part.err());
        List<String> lines = part.out().lines().toList();
        assertTrue(lines.size() > 50 && lines.size() < recs.size(), "lines: " + lines.size());
        assertEquals(all.out().lines().limit(lines.size()).toList(), lines, "the same lines as the whole file's first ones");
        assertTrue(part.err().matches("report: " + Pattern.quote(cut.toString())
                + ": pcapng offset \\d+: the file ends inside a block \\(a killed capture, or a full disk\\): the events of "
                + "the blocks before it were read; `tracewire recover .*` finishes a killed capture's file\n"), part.err());

        Path merged = dir.resolve("merged.pcapng");
        ReportCommandTest.Result m = cli("merge", whole.toString(), cut.toString(), "-w", merged.toString());
        assertEquals(1, m.rc(), m.err());
        assertTrue(m.err().matches("merge: " + Pattern.quote(cut.toString()) + ": pcapng offset \\d+: "
                + "the file ends inside a block: its packets before that block were merged\n"), m.err());
        ReportCommandTest.Result both = cli("report", merged.toString());
        assertEquals(0, both.rc(), both.err());
        assertEquals(recs.size() + lines.size(), both.out().lines().count(), "the whole file's events and the cut one's");

        Path dat = dir.resolve("cut.dat");
        ReportCommandTest.Result exp = cli("export", cut.toString(), "-o", dat.toString());
        assertEquals(1, exp.rc(), exp.err());
        assertTrue(exp.err().startsWith("export: " + lines.size() + " records written to "), exp.err());
        ReportCommandTest.Result back = cli("report", "--no-live-kernel", dat.toString());
        assertEquals(0, back.rc(), back.err());
        assertEquals(lines.size(), back.out().lines().count(), "the events read were exported");
    }

    @Test
    void aCutTraceDatIsImportedUpToItsWholePagesThenExitsOne() throws Exception {
        byte[] b = Files.readAllBytes(ReportCommandTest.DAT);
        Path v6 = dir.resolve("v6.dat");
        List<EventRecord> recs = FixtureRecords.load().subList(0, 3000);
        Path pcap = ContextPcapng.write(dir.resolve("f.pcapng"), recs, ContextPcapng.snapshot(recs), Map.of());
        assertEquals(0, cli("export", pcap.toString(), "-o", v6.toString()).rc());
        byte[] v = Files.readAllBytes(v6);
        Path cut = Files.write(dir.resolve("cut.dat"), Arrays.copyOf(v, v.length - 6000));
        ReportCommandTest.Result rep = cli("report", "--no-live-kernel", cut.toString());
        assertEquals(1, rep.rc(), rep.err());
        long n = rep.out().lines().count();
        assertTrue(n > 100 && n < recs.size(), "lines: " + n);
        assertTrue(rep.err().matches("report: trace\\.dat offset \\d+: cpu \\d+ data of \\d+ bytes runs past the end of the file "
                + "\\(\\d+ bytes\\): the file is cut short; the records of its \\d+ bytes before the end were read\n"), rep.err());
        Path imported = dir.resolve("i.pcapng");
        ReportCommandTest.Result imp = cli("import", "--no-live-kernel", cut.toString(), "-w", imported.toString());
        assertEquals(1, imp.rc(), imp.err());
        assertTrue(imp.err().startsWith("import: " + n + " event frames"), imp.err());
        assertTrue(b.length > 0);
    }
}
