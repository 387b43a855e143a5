/**
 * Recorded events read back from files, for {@code tracewire report} and the desktop app's File ›
 * Open: {@link org.tracewire.input.RecordInput} opens a file by its first bytes (a trace-cmd
 * {@code trace.dat}, {@link org.tracewire.input.TraceDatInput}; a pcapng of tracewire frames,
 * {@link org.tracewire.input.PcapngInput}) and yields {@link org.tracewire.record.EventRecord}s in
 * file order with the formats they were recorded with. A pcapng's frames name their formats only by
 * their identity hash ({@link org.tracewire.format.FormatIdentity}): the catalog with that identity
 * is chosen among {@link org.tracewire.input.FormatSources} (an explicit source, the live tracefs,
 * the checked-in snapshot). Reads files and tracefs; writes nothing.
 */
package org.tracewire.input;
