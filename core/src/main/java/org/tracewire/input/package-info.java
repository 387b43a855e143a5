/**
 * Recorded events read back from files, for {@code tracewire report}/{@code export} and the desktop
 * app's File › Open and live capture: {@link org.tracewire.input.RecordInput} opens a file by its
 * first bytes (a trace-cmd {@code trace.dat}, {@link org.tracewire.input.TraceDatInput}; a pcapng of
 * tracewire version-2 frames, {@link org.tracewire.input.PcapngInput}) and yields
 * {@link org.tracewire.record.EventRecord}s in file order with the formats they were recorded with.
 * A pcapng describes itself: its context frames (formats, kernel constants, symbols, tasks, lost
 * counts) are read per scope into {@link org.tracewire.wire.WireContext}s, and
 * {@link org.tracewire.input.FrameStream} — the one decoder of frames, also fed by the app with the
 * frames a live capture streams — turns event frames into records. No tracefs is read for a pcapng;
 * a trace.dat recorded on the running kernel may borrow HZ and enums from it. Writes nothing.
 */
package org.tracewire.input;
