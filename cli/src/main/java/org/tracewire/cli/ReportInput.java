package org.tracewire.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import org.tracewire.record.EventRecord;
import org.tracewire.tracedat.TraceDatFile;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelTextRenderer;

/**
 * A source of recorded events for {@code report} (and {@code import}): a file opened by its
 * first bytes. Today a trace-cmd {@code trace.dat} ({@link TraceDatInput}); a pcapng of tracewire
 * frames plugs in here as another implementation.
 */
interface ReportInput extends AutoCloseable {
    /** One event in time order. */
    record Event(String buffer, EventRecord record, long lostBefore) {
    }

    /** The events in time order across CPUs. */
    Iterator<Event> events();

    /** Renders records as the kernel's {@code trace} text. */
    KernelTextRenderer renderer();

    /** True when events come from more than one buffer (instance), so lines name theirs. */
    boolean severalBuffers();

    /** Lines for stderr after the events: lost events, skipped records. */
    List<String> summary();

    @Override
    void close() throws IOException;

    /**
     * Opens a file by its content.
     *
     * @param file the file
     * @param live the live tracefs (for HZ and enum constants when the file was recorded here), or null
     * @throws IOException when it cannot be read
     * @throws Main.UsageException when its format is not known
     */
    static ReportInput open(Path file, Tracefs live) throws IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(16);
        }
        if (TraceDatFile.hasMagic(head)) {
            return TraceDatInput.open(file, live);
        }
        throw new Main.UsageException(file + ": not a trace.dat file (the only input format read so far)");
    }
}
