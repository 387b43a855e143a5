package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracedat.TraceDatFile;

/**
 * {@code import} and {@code export} on wire format v2, from the files alone: the trace.dat fixture
 * → pcapng → trace.dat gives {@code trace-cmd report} the same lines as the original; the page
 * fixture's records written with their context come back from {@code export} as the same payloads,
 * times and task names, and {@code report} of the exported file prints what {@code report} of the
 * pcapng prints.
 */
class ExportCommandTest {
    @TempDir
    Path dir;

    @Test
    void traceCmdReportsTheExportedFileAsTheOriginal() throws Exception {
        Prerequisites.requireTool("trace-cmd");
        Path pcap = dir.resolve("s.pcapng");
        Path back = dir.resolve("back.dat");
        assertEquals(0, ReportCommandTest.cli("import", "--no-live-kernel", ReportCommandTest.DAT.toString(), "-w",
                pcap.toString()).rc());
        ReportCommandTest.Result ex = ReportCommandTest.cli("export", pcap.toString(), "-o", back.toString());
        assertEquals(0, ex.rc(), ex.err());
        assertEquals("export: 701 records written to " + back + "\n", ex.err());
        List<String> original = traceCmdReport(ReportCommandTest.DAT);
        List<String> exported = traceCmdReport(back);
        assertEquals(701, original.size());
        assertEquals(original.size(), exported.size());
        for (int i = 0; i < original.size(); i++) {
            assertEquals(original.get(i), exported.get(i), "line " + i);
        }
    }

    @Test
    void exportedRecordsAreTheCapturedOnes() throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 5000);
        ContextPcapng.Source src = ContextPcapng.snapshot(recs);
        Path pcap = ContextPcapng.write(dir.resolve("f.pcapng"), recs, src, Map.of(10, 3L));
        Path back = dir.resolve("f.dat");
        ReportCommandTest.Result ex = ReportCommandTest.cli("export", pcap.toString(), "-w", back.toString());
        assertEquals(0, ex.rc(), ex.err());
        try (TraceDatFile f = TraceDatFile.open(back)) {
            assertEquals("local", f.clock());
            var it = f.records();
            List<EventRecord> got = new ArrayList<>();
            while (it.hasNext()) {
                got.add(it.next().record());
            }
            assertEquals(recs.size(), got.size());
            // the trace.dat is in time order across CPUs, as the fixture records are (stable per CPU)
            for (int i = 0; i < recs.size(); i++) {
                EventRecord a = recs.get(i);
                EventRecord b = got.get(i);
                assertEquals(a.timestampNs(), b.timestampNs(), "record " + i);
                assertEquals(a.cpu(), b.cpu(), "record " + i);
                assertEquals(a.format().fullName(), b.format().fullName(), "record " + i);
                assertEquals(a.payload(), b.payload().limit(a.payload().remaining()), "record " + i);
            }
            assertEquals(Map.of(recs.get(10).cpu(), 3L), withoutZeros(it.lostEvents()));
            for (EventRecord r : recs) {
                assertEquals(src.tasks().comm(r.pid()), f.cmdlines().comm(r.pid()), "task " + r.pid());
            }
        }
        ReportCommandTest.Result a = ReportCommandTest.cli("report", pcap.toString());
        ReportCommandTest.Result b = ReportCommandTest.cli("report", "--no-live-kernel", back.toString());
        assertEquals(0, b.rc(), b.err());
        List<String> la = a.out().lines().toList();
        List<String> lb = b.out().lines().toList();
        assertEquals(la.size(), lb.size());
        int differ = 0;
        for (int i = 0; i < la.size(); i++) {
            if (!la.get(i).equals(lb.get(i))) {
                differ++;
                // the one thing a trace.dat cannot say: "this address has no symbol" without any kallsyms
                assertTrue(la.get(i).matches(".*=0x[0-9a-f]+.*"), la.get(i) + "\n" + lb.get(i));
            }
        }
        System.out.printf("export: report of the exported trace.dat = report of the pcapng for %d of %d lines%n",
                la.size() - differ, la.size());
    }

    private static Map<Integer, Long> withoutZeros(Map<Integer, Long> m) {
        Map<Integer, Long> r = new TreeMap<>(m);
        r.values().removeIf(v -> v == 0);
        return r;
    }

    private List<String> traceCmdReport(Path file) throws Exception {
        Path out = Files.createTempFile(dir, "report", ".txt");
        Process p = new ProcessBuilder("trace-cmd", "report", "-i", file.toString()).redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        List<String> lines = new ArrayList<>();
        for (String l : Files.readString(out, StandardCharsets.UTF_8).split("\n")) {
            if (l.startsWith("cpus=") || l.startsWith("version =") || l.isBlank()) {
                continue;
            }
            // the original's lines name its instance buffer (trace-cmd record -B); the export has the top one
            lines.add(l.replaceFirst("^\\s*tracewire-test-\\d+-small: ", "").strip());
        }
        return lines;
    }
}
