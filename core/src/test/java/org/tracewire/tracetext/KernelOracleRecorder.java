package org.tracewire.tracetext;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.tracewire.ringbuffer.PageFixture;
import org.tracewire.tracefs.Tracefs;

/**
 * Refreshes the checked-in page fixture from the live kernel (root): records the foundation's
 * event mix under the oracle workload and writes every sub-buffer drained.
 * Run on purpose only: {@code java -cp ... org.tracewire.tracetext.KernelOracleRecorder OUT.bin.gz}.
 */
public final class KernelOracleRecorder {
    private KernelOracleRecorder() {
    }

    public static void main(String[] args) throws Exception {
        KernelOracle.Capture c = KernelOracle.run(Tracefs.live(), "fixture", KernelOracle.SYSTEMS, 2048);
        List<PageFixture.Page> pages = new ArrayList<>();
        for (var p : c.pages()) {
            pages.add(new PageFixture.Page(p.cpu(), p.rawBytes()));
        }
        PageFixture.write(Path.of(args[0]), pages);
        System.out.println(pages.size() + " pages, " + c.records().size() + " records written to " + args[0]);
    }
}
