package org.tracewire.capture;

/**
 * Counters of one CPU's ring buffer during a capture.
 *
 * @param cpu          the CPU
 * @param records      records read
 * @param pages        sub-buffers read
 * @param lostKnown    events the kernel dropped and counted
 * @param lostUnknownPages sub-buffers that said events were dropped without a count
 */
public record CpuStats(int cpu, long records, long pages, long lostKnown, long lostUnknownPages) {
}
