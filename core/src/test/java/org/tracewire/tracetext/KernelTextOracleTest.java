package org.tracewire.tracetext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * The foundation's acceptance test: a broad mix of events recorded in an instance of our own,
 * the kernel's text {@code trace} against our rendering of the same buffer read through
 * {@code trace_pipe_raw}, whole line by whole line. Prints the match rate per event and every
 * mismatch; at least 99% of records must match exactly.
 */
@Tag("live")
class KernelTextOracleTest {
    @Test
    void renderedLinesEqualTheKernelsText() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        KernelOracle.Capture c = KernelOracle.run(top, "oracle", KernelOracle.SYSTEMS, 8192);
        assertEquals(c.kernelLines().size(), c.records().size(), "records in the text vs through trace_pipe_raw");
        assertTrue(c.records().size() > 1000, "the workload produced only " + c.records().size() + " records");
        KernelTextRenderer renderer = new KernelTextRenderer(new TraceLinePrefix(c.cmdlines(), c.clock()),
                top.layout(), KernelContext.of(top));
        Map<String, int[]> perEvent = new TreeMap<>();
        Map<String, Integer> printTime = new TreeMap<>();
        int matched = 0;
        int compared = 0;
        StringBuilder mismatches = new StringBuilder();
        for (int i = 0; i < c.records().size(); i++) {
            EventRecord r = c.records().get(i);
            var printer = renderer.printer(r.format());
            if (printer.printFmt() != null && printer.printFmt().readsPrintTimeState()) {
                // the kernel's text depends on when `trace` was read: reported, not compared
                printTime.merge(r.format().fullName(), 1, Integer::sum);
                continue;
            }
            compared++;
            String ours = renderer.line(r);
            String kernel = c.kernelLines().get(i);
            int[] counts = perEvent.computeIfAbsent(r.format().fullName(), k -> new int[2]);
            counts[1]++;
            if (ours.equals(kernel)) {
                counts[0]++;
                matched++;
            } else {
                mismatches.append("  kernel: ").append(kernel).append("\n  ours:   ").append(ours).append('\n');
            }
        }
        System.out.println("match rate per event (matched/total):");
        perEvent.forEach((name, n) -> System.out.printf("  %-45s %6d/%-6d %s%n", name, n[0], n[1],
                n[0] == n[1] ? "" : "<-- " + (n[1] - n[0]) + " differ"));
        if (mismatches.length() > 0) {
            System.out.println("mismatches:\n" + mismatches);
        }
        printTime.forEach((name, n) -> System.out.printf("  not compared: %-40s %6d records: its print fmt reads "
                + "jiffies when the kernel prints, so its text depends on when trace was read%n", name, n));
        double rate = (double) matched / compared;
        System.out.printf("kernel text oracle: %d/%d records match exactly (%.3f%%) over %d event types; "
                + "%d records of %d events not comparable by design%n", matched, compared, rate * 100, perEvent.size(),
                c.records().size() - compared, printTime.size());
        assertTrue(rate >= 0.99, "match rate " + rate);
    }
}
