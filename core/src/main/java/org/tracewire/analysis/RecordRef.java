package org.tracewire.analysis;

/**
 * Where a record is, so a UI can select it: the sequence number the caller fed it with (for
 * {@link LatencyTracker#pairAll} the index in the given list), its CPU and its time stamp.
 *
 * @param sequence    the caller's sequence number or list index of the record
 * @param cpu         the CPU whose buffer held the record ({@link org.tracewire.record.EventRecord#cpu()})
 * @param timestampNs the record's time in ns ({@link org.tracewire.record.EventRecord#timestampNs()})
 */
public record RecordRef(long sequence, int cpu, long timestampNs) {
}
