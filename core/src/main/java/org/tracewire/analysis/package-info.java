/**
 * Analysis of captured records, GUI-free and I/O-free except {@link org.tracewire.analysis.HistSupport}
 * (one tracefs read): latency pairs ({@link org.tracewire.analysis.LatencyTracker}: scheduling
 * latency, syscall duration, hard and soft interrupt time, fed live or over a list) and histograms in
 * the vocabulary of the kernel's hist triggers ({@code Documentation/trace/histogram.rst}):
 * {@link org.tracewire.analysis.HistSpec} (parse / print the trigger text),
 * {@link org.tracewire.analysis.HistAggregator} (the table from records),
 * {@link org.tracewire.analysis.HistFile} (the table from the kernel's {@code hist} file, and back),
 * both into {@link org.tracewire.analysis.HistTable}. Results are immutable.
 */
package org.tracewire.analysis;
