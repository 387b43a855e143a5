package org.tracewire.capture;

import org.tracewire.record.EventRecord;

/**
 * A record on its way out of the capture engine, in time order across CPUs.
 *
 * @param record     the decoded record (its CPU and trace-clock time stamp inside)
 * @param wallNs     event time in ns since the Unix epoch (UTC), or the raw trace time when the
 *                   clock offset is unknown
 * @param sequence   per-CPU record number: 0 for the first record of a CPU in this capture,
 *                   +1 for each record of that CPU (the frames' header sequence also counts
 *                   the CPU's LOST context frames)
 * @param lostBefore events the kernel dropped on this CPU since the previous record of this CPU:
 *                   0 none, else the exact count
 */
public record CapturedEvent(EventRecord record, long wallNs, long sequence, long lostBefore) {
}
