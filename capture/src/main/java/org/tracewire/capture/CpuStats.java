package org.tracewire.capture;

import org.tracewire.tracefs.RingBufferStats;

/**
 * Counters of one CPU's ring buffer during a capture.
 *
 * @param cpu           the CPU
 * @param records       records read from its {@code trace_pipe_raw}
 * @param pages         sub-buffers read
 * @param lost          events lost, reconciled with the kernel's {@code per_cpu/cpuN/stats}
 *                      (overrun + commit overrun + dropped since the capture's start; exact once the
 *                      capture is drained, a lower bound while it runs)
 * @param lostAfterLast of {@code lost}, those no emitted event carried in its lost field: lost after
 *                      the CPU's last page read, or attributed to events not emitted ({@code --count});
 *                      set after the drain (0 before)
 * @param statsReads    reads of the CPU's stats file (missed-events pages without a usable stored
 *                      count, and the final one)
 * @param kernel        the kernel's counters over the capture (end minus start), or null until the drain
 * @param named         of {@code records}, those read only to follow task names ({@link TaskNaming}), not framed
 */
public record CpuStats(int cpu, long records, long pages, long lost, long lostAfterLast, long statsReads,
                       RingBufferStats kernel, long named) {
    /**
     * After the drain: records read + lost = the events the kernel tried to record on this CPU
     * ({@link RingBufferStats#attempted()}), and none left unread. False before the drain.
     */
    public boolean agreesWithKernel() {
        return kernel != null && kernel.entries() == 0 && records == kernel.readEvents()
                && lost == kernel.lost() && records + lost == kernel.attempted();
    }
}
