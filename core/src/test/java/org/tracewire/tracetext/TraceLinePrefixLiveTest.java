package org.tracewire.tracetext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * The context columns (task-pid, CPU, flags, time stamp) and the record count and order decoded
 * from {@code trace_pipe_raw} equal the kernel's text {@code trace} of the same buffer.
 */
@Tag("live")
class TraceLinePrefixLiveTest {
    @Test
    void contextColumnsMatchTheKernel() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        KernelOracle.Capture c = KernelOracle.run(top, "prefix", List.of("sched", "irq", "timer", "signal"), 4096);
        assertTrue(c.records().size() > 100, "the workload produced only " + c.records().size() + " records");
        assertEquals(c.kernelLines().size(), c.records().size(), "records in text vs raw");
        TraceLinePrefix prefix = new TraceLinePrefix(c.cmdlines(), c.clock());
        int mismatches = 0;
        for (int i = 0; i < c.records().size(); i++) {
            EventRecord r = c.records().get(i);
            StringBuilder sb = new StringBuilder();
            prefix.append(sb, r, r.format().name());
            String kernel = c.kernelLines().get(i);
            if (!kernel.startsWith(sb.toString()) && c.commChanged(r.pid())) {
                // the kernel's comm cache changed while the text was read: either name is right
                StringBuilder other = new StringBuilder();
                new TraceLinePrefix(c.cmdlinesBefore(), c.clock()).append(other, r, r.format().name());
                if (kernel.startsWith(other.toString())) {
                    continue;
                }
            }
            if (!kernel.startsWith(sb.toString())) {
                if (mismatches++ < 20) {
                    System.out.println("mismatch " + i + "\n  kernel: " + kernel + "\n  ours:   " + sb);
                }
            }
        }
        System.out.println("prefix: " + (c.records().size() - mismatches) + "/" + c.records().size() + " match");
        assertEquals(0, mismatches, "lines whose context columns differ from the kernel's");
    }
}
