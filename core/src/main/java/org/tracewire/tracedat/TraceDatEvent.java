package org.tracewire.tracedat;

import org.tracewire.record.EventRecord;

/**
 * One record read from a trace.dat.
 *
 * @param buffer       the instance name of its buffer ("" for the top instance)
 * @param record       the record; its time stamp is the trace clock in ns (the raw clock plus the
 *                     file's {@code OFFSET} option, {@code TSC2NSEC} applied when present), as
 *                     {@code trace-cmd report} shows it
 * @param rawTimestamp the time stamp as stored in the ring buffer (trace-clock units)
 * @param sequence     index of the record among its CPU's records in this buffer, from 0
 * @param lostBefore   events the kernel lost on this CPU just before this record (the page's
 *                     missed-events count): 0 none, -1 lost but not counted
 */
public record TraceDatEvent(String buffer, EventRecord record, long rawTimestamp, long sequence, long lostBefore) {
}
