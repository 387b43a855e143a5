package org.tracewire.app.capture;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.KernelLayout;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;

/**
 * A capture file's events as {@link EventRow}s, opened or read as a live capture writes it: core's
 * {@link RecordInput} opens a trace.dat or a pcapng of tracewire frames (wire format v2: the file
 * describes itself, so no tracefs is read; nothing is written, no backend needed), each event
 * becomes a row through {@link RecordRows} (the kernel's text, field values, the record, the task
 * name from the file's PROCESS context or saved cmdlines, else as the records name it). Runs on a
 * background thread; not thread-safe.
 */
public final class FileRows implements AutoCloseable {
    /** Rows per batch handed on. */
    public static final int BATCH = 2000;
    /**
     * Rows of the first batch: a screen's worth, so the table shows rows as soon as they are read
     * (the first 2,000, interpreted, took 0.25-0.7 s: BENCHMARKS.md, session 28).
     */
    static final int FIRST_BATCH = 100;

    private final Path file;
    private final RecordInput input;
    private final RecordRows convert = new RecordRows();
    private KernelLayout layout;
    private long rows;

    private FileRows(Path file, RecordInput input) {
        this.file = file;
        this.input = input;
    }

    /**
     * Opens a file by its content.
     *
     * @param file a trace.dat or a pcapng of tracewire frames
     * @return the open file, before its first event
     * @throws IOException when it cannot be read, or a pcapng holds no tracewire (v2) capture context
     * @throws IllegalArgumentException when it is neither a trace.dat nor a pcapng
     */
    public static FileRows open(Path file) throws IOException {
        // no live tracefs: the app renders with what the file and the formats give, and never makes
        // the kernel calibrate (that writes to tracefs, which only the backend does)
        return new FileRows(file, RecordInput.open(file, null));
    }

    /**
     * Opens a pcapng a live capture still writes, read in one pass as it grows
     * ({@link org.tracewire.input.PcapngInput#follow(Path, BooleanSupplier)}).
     *
     * @param file    the pcapng
     * @param writing true while the capture may still write it; reading ends after it says false
     * @return the open file, before its first event
     * @throws IOException when it cannot be opened
     */
    public static FileRows follow(Path file, BooleanSupplier writing) throws IOException {
        return new FileRows(file, PcapngInput.follow(file, writing));
    }

    /**
     * Opens a finished pcapng for its first screen of rows: one pass, the context learnt as it
     * comes (a capture sends each context message before the first event that needs it,
     * docs/wire-format.md §6), so the first rows come without {@link #open}'s pass over every
     * packet of the file for its context (seconds for millions of events; BENCHMARKS.md). Task
     * names are those given so far.
     *
     * @param file the pcapng
     * @return the open file, before its first event
     * @throws IOException when it cannot be opened
     */
    public static FileRows firstScreen(Path file) throws IOException {
        return follow(file, () -> false);
    }

    /** The formats of the file's events. */
    public FormatCatalog catalog() {
        return input.catalog();
    }

    /** Where the formats came from ("the file", "live tracefs", a snapshot path). */
    public String formatsLabel() {
        return input.formatsLabel();
    }

    /** The kernel layout of the records read so far (null before the first). */
    public KernelLayout layout() {
        return layout;
    }

    /** True when the rows' times are ns since the epoch, false for the trace clock ({@link RecordInput#wallClock()}). */
    public boolean wallClock() {
        return input.wallClock();
    }

    /** True for a pcapng (rows carry frame numbers). */
    public boolean pcapng() {
        return input instanceof PcapngInput;
    }

    /** Rows read so far. */
    public long rows() {
        return rows;
    }

    /**
     * Notes after reading: lost events, skipped packets or records, and last where the file is cut
     * short or malformed (its events before that point were read).
     */
    public List<String> summary() {
        List<String> notes = new ArrayList<>(input.summary());
        if (input.failure() != null) {
            notes.add(input.failure());
        }
        return notes;
    }

    /**
     * Reads every event, handing rows on in batches: the first of {@value #FIRST_BATCH} rows, the
     * second up to {@value #BATCH} rows read, then of {@value #BATCH} (the last may be shorter), so a
     * batch ends at every multiple of {@value #BATCH} rows (the first screen's 10,000 among them).
     *
     * @param sink      receives each batch (the list is not reused)
     * @param cancelled checked between batches; true stops reading
     * @return rows read
     * @throws java.io.UncheckedIOException when the file breaks off mid-way
     */
    public long readAll(Consumer<List<EventRow>> sink, BooleanSupplier cancelled) {
        List<EventRow> batch = new ArrayList<>(BATCH);
        for (Iterator<RecordInput.Event> it = input.events(); it.hasNext(); ) {
            RecordInput.Event e = it.next();
            if (layout == null) {
                layout = e.record().layout();
            }
            batch.add(convert.row(e));
            rows++;
            if (rows % BATCH == 0 || rows == FIRST_BATCH) { // batches end at multiples of BATCH
                sink.accept(batch);
                batch = new ArrayList<>(BATCH);
                if (cancelled.getAsBoolean()) {
                    return rows;
                }
            }
        }
        if (!batch.isEmpty()) {
            sink.accept(batch);
        }
        return rows;
    }

    /** The file read. */
    public Path file() {
        return file;
    }

    @Override
    public void close() throws IOException {
        input.close();
    }
}
