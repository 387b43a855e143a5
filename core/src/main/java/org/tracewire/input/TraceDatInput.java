package org.tracewire.input;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.tracewire.format.FormatCatalog;
import org.tracewire.tracedat.TraceDatContext;
import org.tracewire.tracedat.TraceDatEvent;
import org.tracewire.tracedat.TraceDatFile;
import org.tracewire.tracedat.TraceDatRecords;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.SavedCmdlines;

/** {@link RecordInput} of a trace-cmd {@code trace.dat} (versions 6 and 7). */
public final class TraceDatInput implements RecordInput {
    private final TraceDatFile file;
    private final TraceDatRecords records;
    private final KernelTextRenderer renderer;
    private final long date;

    private TraceDatInput(TraceDatFile file, Tracefs live) {
        this.file = file;
        this.records = file.records();
        this.renderer = TraceDatContext.renderer(file, TraceDatContext.printContext(file, live));
        Long d = file.options().date();
        this.date = d == null ? 0 : d;
    }

    /**
     * @param path the trace.dat
     * @param live the live tracefs to borrow HZ, enums and kernel variables from when the file was
     *             recorded here ({@link TraceDatContext#printContext}), or null for the file alone
     * @return the open input
     * @throws IOException when it cannot be read
     */
    public static TraceDatInput open(Path path, Tracefs live) throws IOException {
        TraceDatFile f = TraceDatFile.open(path);
        try {
            return new TraceDatInput(f, live);
        } catch (RuntimeException e) {
            f.close();
            throw e;
        }
    }

    /** The open file. */
    public TraceDatFile file() {
        return file;
    }

    /** The record stream (its lost-event counts grow while iterating). */
    public TraceDatRecords records() {
        return records;
    }

    @Override
    public Iterator<Event> events() {
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return records.hasNext();
            }

            @Override
            public Event next() {
                TraceDatEvent e = records.next();
                return new Event(e.buffer(), e.record(), e.lostBefore(), 0, e.record().timestampNs() + date, false,
                        renderer);
            }
        };
    }

    @Override
    public KernelTextRenderer renderer() {
        return renderer;
    }

    @Override
    public boolean severalBuffers() {
        return file.buffersWithData().size() > 1;
    }

    @Override
    public List<String> summary() {
        List<String> lines = new ArrayList<>();
        for (Map.Entry<Integer, Long> e : records.lostEvents().entrySet()) {
            long uncounted = records.pagesLostUncounted().getOrDefault(e.getKey(), 0L);
            if (e.getValue() > 0 || uncounted > 0) {
                lines.add("cpu " + e.getKey() + ": " + e.getValue() + " events lost"
                        + (uncounted > 0 ? " (and an unknown number before " + uncounted + " pages)" : ""));
            }
        }
        if (records.unknownRecords() > 0) {
            lines.add(records.unknownRecords() + " records of event ids without a format skipped");
        }
        if (records.shortRecords() > 0) {
            lines.add(records.shortRecords() + " records shorter than their event's common fields skipped");
        }
        return lines;
    }

    @Override
    public String failure() {
        return file.truncation();
    }

    @Override
    public FormatCatalog catalog() {
        return file.catalog();
    }

    @Override
    public SavedCmdlines cmdlines() {
        return file.cmdlines();
    }

    @Override
    public String formatsLabel() {
        return "the file";
    }

    @Override
    public boolean wallClock() {
        return false;
    }

    @Override
    public void close() throws IOException {
        records.close();
        file.close();
    }
}
