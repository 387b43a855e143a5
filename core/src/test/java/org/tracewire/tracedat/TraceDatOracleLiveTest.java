package org.tracewire.tracedat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelTextRenderer;

/**
 * The acceptance test of the trace.dat reader: a {@code trace-cmd record -k -d} file (v7, zstd)
 * and its {@code trace-cmd convert --file-version 6} copy, rendered into the kernel's text lines,
 * against the text of an oracle instance of ours that recorded the same events at the same time.
 * The two buffers stamp their own times (about 1 µs apart) and start and stop at different
 * moments, so each of our lines is looked up, without its time column, among the oracle's lines
 * of the same CPU. At least 99.5% must be found; the event count must equal
 * {@code trace-cmd report}'s.
 */
@Tag("live")
class TraceDatOracleLiveTest {
    private static final Pattern LINE = Pattern.compile("^(.*?\\[(\\d{3})\\] \\S{5}) +\\d+(?:\\.\\d{6})?: (.*)$");

    @Test
    void reportLinesEqualTheKernelsTextAndCountEqualsTraceCmds() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        TraceCmdRecording.Result rec = TraceCmdRecording.get();
        Map<String, Map<String, Integer>> oracle = new HashMap<>();
        for (String l : rec.oracleLines()) {
            Matcher m = LINE.matcher(l);
            if (m.matches()) {
                oracle.computeIfAbsent(m.group(2), k -> new HashMap<>()).merge(m.group(1) + " " + m.group(3), 1, Integer::sum);
            }
        }
        List<String> lines = new ArrayList<>();
        int matched = 0;
        int compared = 0;
        Map<String, int[]> perEvent = new TreeMap<>();
        StringBuilder mismatches = new StringBuilder();
        try (TraceDatFile f = TraceDatFile.open(rec.dat())) {
            assertEquals(7, f.version());
            PrintContext ctx = TraceDatContext.printContext(f, top);
            KernelTextRenderer renderer = TraceDatContext.renderer(f, ctx);
            try (TraceDatRecords rs = f.records()) {
                while (rs.hasNext()) {
                    EventRecord r = rs.next().record();
                    String line = renderer.line(r);
                    lines.add(line);
                    var printer = renderer.printer(r.format());
                    if (printer.printFmt() != null && printer.printFmt().readsPrintTimeState()) {
                        continue;
                    }
                    compared++;
                    Matcher m = LINE.matcher(line);
                    int[] c = perEvent.computeIfAbsent(r.format().fullName(), k -> new int[2]);
                    c[1]++;
                    Map<String, Integer> cpu = m.matches() ? oracle.get(m.group(2)) : null;
                    String key = m.matches() ? m.group(1) + " " + m.group(3) : line;
                    if (cpu != null && cpu.getOrDefault(key, 0) > 0) {
                        cpu.merge(key, -1, Integer::sum);
                        matched++;
                        c[0]++;
                    } else if (mismatches.length() < 20_000) {
                        mismatches.append("  ours: ").append(line).append('\n');
                    }
                }
                assertEquals(0, rs.unknownRecords(), "records without a format");
            }
        }
        perEvent.forEach((n, c) -> System.out.printf("  %-40s %6d/%-6d%n", n, c[0], c[1]));
        if (mismatches.length() > 0) {
            System.out.println("not found in the oracle's text:\n" + mismatches);
        }
        double rate = (double) matched / compared;
        System.out.printf("trace.dat oracle: %d/%d lines found in the kernel's text (%.3f%%); %d events%n", matched,
                compared, rate * 100, lines.size());
        assertTrue(compared > 1000, "only " + compared + " events compared");
        assertTrue(rate >= 0.995, "match rate " + rate);

        String report = TraceCmdRecording.run(List.of("trace-cmd", "report", "-i", rec.dat().toString()),
                rec.dat().getParent());
        long tcCount = report.lines().filter(l -> l.matches("^\\S+:\\s.*\\[\\d{3}\\].*")).count();
        assertEquals(tcCount, lines.size(), "events: trace-cmd report vs ours");

        List<String> v6 = new ArrayList<>();
        try (TraceDatFile f = TraceDatFile.open(rec.dat6())) {
            assertEquals(6, f.version());
            KernelTextRenderer renderer = TraceDatContext.renderer(f, TraceDatContext.printContext(f, top));
            try (TraceDatRecords rs = f.records()) {
                rs.forEachRemaining(e -> v6.add(renderer.line(e.record())));
            }
        }
        assertEquals(lines, v6, "the v6 conversion reads as the v7 original");
    }
}
