package org.tracewire.capture;

import java.util.concurrent.atomic.AtomicLong;
import org.tracewire.tracefs.RingBufferStats;
import org.tracewire.tracefs.TracefsInstance;

/**
 * One CPU's lost events, counted exactly against the kernel's counters ({@link RingBufferStats}):
 * from the pages' {@code RB_MISSED_*} flags and, where a page does not store its count, the CPU's
 * stats read then; what no page carried is settled after the last one. Records read + lost = the
 * events the kernel tried to record ({@link CpuStats#agreesWithKernel()}). The drainer writes it;
 * the counts are read by any thread.
 */
final class LossAccount {
    /** Times the final drain re-reads when the kernel still counts unread entries. */
    static final int FINAL_DRAIN_TRIES = 20;

    private final TracefsInstance instance;
    private final int cpu;
    /** The kernel's counters when the engine started. */
    final RingBufferStats base;
    /** Lost events attributed so far (to frames, or after the last one). */
    final AtomicLong lost = new AtomicLong();
    /** Reads of the CPU's stats file (missed-events pages that needed them, and the final ones). */
    final AtomicLong statsReads = new AtomicLong();
    /** The kernel's counters over the capture, set after the final drain. */
    volatile RingBufferStats kernel;
    /**
     * True while {@link #lost} equals the kernel's {@code last_overrun} − base exactly, so a stored
     * count can be taken as it is; false once a page had no stored count.
     */
    private boolean inSync;
    private int settleTries;

    /**
     * @param instance the capture instance (null for pages read earlier: no counters to read)
     * @param cpu      the CPU
     * @param base     its counters when the engine started
     */
    LossAccount(TracefsInstance instance, int cpu, RingBufferStats base) {
        this.instance = instance;
        this.cpu = cpu;
        this.base = base;
        // last_overrun <= overrun: with no overrun yet, the reader's cursor is at the base too
        this.inSync = base.overrun() == 0;
    }

    /**
     * The lost events to attribute for a page flagged with missed events.
     *
     * @param stored the page's stored count ({@code > 0}), or -1 when the kernel had no room for it
     * @return events to add to the next frame's lost field (may be 0 when earlier pages took them)
     */
    long attribute(long stored) {
        if (stored > 0 && inSync) {
            lost.addAndGet(stored);
            return stored;
        }
        RingBufferStats now = read();
        // the kernel's overrun has moved on since the page was swapped in: what we take beyond the
        // page's own loss is loss of a later page, which then finds it already attributed
        long open = now.lost() - base.lost() - lost.get();
        long n = Math.max(0, stored > 0 ? Math.min(stored, open) : open);
        inSync = false;
        lost.addAndGet(n);
        return n;
    }

    /**
     * After a drain found the buffer empty with tracing off: true when the kernel counts no unread
     * entry (a writer may commit just after tracing_on=0), or after {@link #FINAL_DRAIN_TRIES} tries.
     */
    boolean drained() {
        return read().entries() == 0 || ++settleTries >= FINAL_DRAIN_TRIES;
    }

    /**
     * After the last page: reads the kernel's counters once more, attributes the lost events not
     * attributed yet (lost after the last page read) and records the kernel's counts.
     */
    void settle() {
        RingBufferStats delta = read().minus(base);
        long open = delta.lost() - lost.get();
        if (open > 0) {
            lost.addAndGet(open);
        }
        kernel = delta;
    }

    /**
     * Events the kernel lost on this CPU so far: its counters now minus those at the start, or what
     * was attributed when that is more (after the instance is gone).
     */
    long kernelLost() {
        long k;
        try {
            k = RingBufferStats.read(instance, cpu).minus(base).lost();
        } catch (RuntimeException e) {
            k = 0; // the instance is gone: what was attributed is all there is
        }
        return Math.max(k, lost.get());
    }

    private RingBufferStats read() {
        RingBufferStats now = RingBufferStats.read(instance, cpu);
        statsReads.incrementAndGet();
        return now;
    }
}
