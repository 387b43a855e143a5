package org.tracewire.analysis;

/**
 * Counters of a {@link LatencyTracker}: what it saw and what it could not pair.
 *
 * @param records         records fed
 * @param pairs           pairs completed
 * @param pending         starts waiting for their end now
 * @param evicted         pending starts dropped because the cap was reached (oldest first)
 * @param replacedStarts  starts dropped because another start of the same key came first (a syscall
 *                        that never returns, e.g. {@code exit_group}, or an exit not recorded)
 * @param repeatedWakeups wakeups of a task whose earlier wakeup is still pending (the earlier one is kept:
 *                        the task has been runnable since then)
 * @param unmatchedEnds   syscall and irq exits without a pending start (started before the capture,
 *                        evicted, or the start was lost), and syscall exits whose id or name differs from
 *                        the pending enter (that enter is dropped too); a {@code sched_switch} without a
 *                        pending wakeup is not counted: most switches are to preempted tasks
 * @param outOfOrder      records whose time stamp is before the latest one fed (the tracker wants time order)
 * @param negative        pairs discarded because their end record is older than their start
 */
public record LatencyStats(long records, long pairs, long pending, long evicted, long replacedStarts,
                           long repeatedWakeups, long unmatchedEnds, long outOfOrder, long negative) {
}
