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
    private static final Pattern LINE = Pattern.compile("^(.*?\\[(\\d{3})\\] \\S{5}) +(\\d+(?:\\.\\d{6})?): (.*)$");
    /** Our lines this close to the start of the oracle's kept text are not compared (seconds). */
    private static final double EDGE_S = 0.002;
    /** The task column: comm, pid, CPU and flags. */
    private static final Pattern TASK = Pattern.compile("^\\s*(.*)-(\\d+) +\\[\\d{3}\\] (\\S{5})$");
    private static final String UNKNOWN_COMM = "<...>";

    @Test
    void reportLinesEqualTheKernelsTextAndCountEqualsTraceCmds() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        TraceCmdRecording.Result rec = TraceCmdRecording.get();
        // per CPU: the line without its comm (pid, flags, text) -> comm -> count
        Map<String, Map<String, Map<String, Integer>>> oracle = new HashMap<>();
        // The oracle's ring buffer overwrites its oldest pages on a busy machine; per CPU, only
        // our lines after the oracle's first kept line can be looked up in it.
        Map<String, Double> oracleStart = new HashMap<>();
        for (String l : rec.oracleLines()) {
            Matcher m = LINE.matcher(l);
            if (m.matches()) {
                String[] kc = keyAndComm(m);
                oracle.computeIfAbsent(m.group(2), k -> new HashMap<>()).computeIfAbsent(kc[0], k -> new HashMap<>())
                        .merge(kc[1], 1, Integer::sum);
                oracleStart.merge(m.group(2), Double.parseDouble(m.group(3)), Math::min);
            }
        }
        int beforeOracle = 0;
        int commUnknown = 0;
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
                    Matcher m = LINE.matcher(line);
                    if (m.matches() && Double.parseDouble(m.group(3))
                            < oracleStart.getOrDefault(m.group(2), Double.MAX_VALUE) + EDGE_S) {
                        beforeOracle++;
                        continue;
                    }
                    compared++;
                    int[] c = perEvent.computeIfAbsent(r.format().fullName(), k -> new int[2]);
                    c[1]++;
                    String[] kc = m.matches() ? keyAndComm(m) : new String[] {line, ""};
                    Map<String, Integer> comms = m.matches()
                            ? oracle.getOrDefault(m.group(2), Map.of()).getOrDefault(kc[0], Map.of())
                            : Map.of();
                    // The comm comes from the kernel's saved_cmdlines table, which both read at
                    // their own moment while other processes evict entries: a task named on one
                    // side and "<...>" on the other is the same line.
                    String comm = comms.getOrDefault(kc[1], 0) > 0 ? kc[1]
                            : comms.getOrDefault(UNKNOWN_COMM, 0) > 0 ? UNKNOWN_COMM
                            : kc[1].equals(UNKNOWN_COMM) ? comms.entrySet().stream().filter(e -> e.getValue() > 0)
                                    .map(Map.Entry::getKey).findFirst().orElse(null)
                            : null;
                    if (comm != null) {
                        comms.merge(comm, -1, Integer::sum);
                        matched++;
                        c[0]++;
                        if (!comm.equals(kc[1])) {
                            commUnknown++;
                        }
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
        System.out.printf("trace.dat oracle: %d/%d lines found in the kernel's text (%.3f%%); %d events, %d before"
                + " the oracle's kept text (overwritten: %s), %d with a task name on one side only%n", matched, compared,
                rate * 100, lines.size(), beforeOracle, rec.oracleOverrun(), commUnknown);
        assertTrue(compared > 1000, "only " + compared + " events compared");
        assertTrue(rate >= 0.995, "match rate " + rate + "; first lines not found:\n"
                + mismatches.substring(0, Math.min(2000, mismatches.length())));

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

    /** The line's key without its comm, and the comm. */
    private static String[] keyAndComm(Matcher line) {
        Matcher t = TASK.matcher(line.group(1));
        if (!t.matches()) {
            return new String[] {line.group(1) + " " + line.group(4), ""};
        }
        return new String[] {t.group(2) + " " + line.group(2) + " " + t.group(3) + " " + line.group(4), t.group(1)};
    }
}
