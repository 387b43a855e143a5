package org.tracewire.input;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import org.tracewire.format.FormatCatalog;
import org.tracewire.record.EventRecord;
import org.tracewire.tracedat.TraceDatFile;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.SavedCmdlines;

/**
 * A source of recorded events ({@code tracewire report}, the desktop app's File › Open): a file
 * opened by its first bytes, a trace-cmd {@code trace.dat} ({@link TraceDatInput}) or a pcapng of
 * tracewire frames ({@link PcapngInput}).
 */
public interface RecordInput extends AutoCloseable {
    /** The pcapng Section Header Block type, the first four bytes of a pcapng file (either byte order). */
    int PCAPNG_MAGIC = 0x0A0D0D0A;

    /**
     * One event.
     *
     * @param buffer     the trace.dat buffer (instance) name, "" for the top one or a pcapng
     * @param record     the record, with the formats of the file; its time stamp in the trace clock
     *                   (as the ring buffer had it, what the kernel's text prints)
     * @param lostBefore events lost on its CPU just before it (-1: an unknown number), else 0
     * @param frame      for a pcapng, the 1-based packet number in the file (Wireshark's
     *                   {@code frame.number}, {@code wireshark -g N}); 0 otherwise
     * @param timeNs     the event's time in ns since the Unix epoch when the file maps the trace
     *                   clock to it (a pcapng's frames without the raw-clock flag, a trace.dat with a
     *                   {@code DATE} option), else the record's time stamp
     * @param truncated  the frame was cut to the maximum frame size: the record lacks its last bytes
     * @param renderer   renders this event's record as the kernel's text, with the context of the
     *                   capture it belongs to (a merged pcapng holds several)
     */
    record Event(String buffer, EventRecord record, long lostBefore, long frame, long timeNs, boolean truncated,
                 KernelTextRenderer renderer) {
    }

    /** The events: in time order across CPUs (trace.dat) or in file order (pcapng). Read once. */
    Iterator<Event> events();

    /**
     * Renders records as the kernel's {@code trace} text (a pcapng of several captures: that of its
     * first; prefer {@link Event#renderer()}).
     */
    KernelTextRenderer renderer();

    /** True when events come from more than one buffer (instance), so lines name theirs. */
    boolean severalBuffers();

    /** Lines for stderr after the events: lost events, skipped records. */
    List<String> summary();

    /**
     * Why reading stopped before the end of the file, once {@link #events()} is exhausted: a block
     * that is malformed or that the file ends inside (a capture killed while writing), with where
     * (file offset, block or CPU); null when the whole file was read. The events before that point
     * were returned.
     */
    default String failure() {
        return null;
    }

    /** The formats of the file's events. */
    FormatCatalog catalog();

    /** Task names by pid known from the file (trace.dat's saved cmdlines; a pcapng's PROCESS context). */
    SavedCmdlines cmdlines();

    /** Where the formats came from, for messages ("the file", "live tracefs", a snapshot path). */
    String formatsLabel();

    /**
     * True when record time stamps are ns since the Unix epoch (a pcapng's frames without the
     * raw-clock flag); false for the trace clock (a trace.dat, ns since boot for {@code local}).
     */
    boolean wallClock();

    @Override
    void close() throws IOException;

    /**
     * Opens a file by its content.
     *
     * @param file the file
     * @param live the live tracefs (for HZ, enum constants and symbols when the file was recorded
     *             here), or null to use what the file and the checked-in formats give
     * @return the open input
     * @throws IOException when it cannot be read, or a pcapng holds no frame whose formats are found
     * @throws IllegalArgumentException when the file is neither a trace.dat nor a pcapng
     */
    static RecordInput open(Path file, Tracefs live) throws IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(16);
        }
        if (TraceDatFile.hasMagic(head)) {
            return TraceDatInput.open(file, live);
        }
        if (PcapngInput.hasMagic(head)) {
            return PcapngInput.open(file);
        }
        throw new IllegalArgumentException(file + ": neither a trace.dat nor a pcapng file");
    }
}
