package org.tracewire.app.capture;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.KernelLayout;
import org.tracewire.input.RecordInput;
import org.tracewire.record.EventRecord;
import org.tracewire.record.RecordValues;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.SavedCmdlines;

/**
 * A recorded file's events as {@link EventRow}s, the rows a live capture streams: core's
 * {@link RecordInput} opens a trace.dat or a pcapng of tracewire frames (formats by identity from
 * the live tracefs, else the checked-in snapshot; nothing is written, no backend needed), each
 * record becomes a row with the kernel's text ({@link KernelTextRenderer#body}) and its field values
 * ({@link RecordValues}). Task names: those the records themselves name (the {@code prev_comm} of a
 * {@code sched_switch}, the {@code comm} of a wakeup, …, learned as the file is read), else the
 * file's saved cmdlines, else {@code <...>}. Runs on a background thread; not thread-safe.
 */
public final class FileRows implements AutoCloseable {
    /** Rows per batch handed on. */
    public static final int BATCH = 2000;

    private final Path file;
    private final RecordInput input;
    private final SavedCmdlines cmdlines;
    private final Map<Integer, String> comms = new HashMap<>();
    private KernelLayout layout;
    private long rows;

    private FileRows(Path file, RecordInput input) {
        this.file = file;
        this.input = input;
        this.cmdlines = input.cmdlines();
    }

    /**
     * Opens a file by its content.
     *
     * @param file a trace.dat or a pcapng of tracewire frames
     * @return the open file, before its first event
     * @throws IOException when it cannot be read, or its frames' formats are not found
     * @throws IllegalArgumentException when it is neither a trace.dat nor a pcapng
     */
    public static FileRows open(Path file) throws IOException {
        // no live tracefs: the app renders with what the file and the formats give, and never makes
        // the kernel calibrate (that writes to tracefs, which only the backend does)
        return new FileRows(file, RecordInput.open(file, null));
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

    /** True for a pcapng (rows carry frame numbers). */
    public boolean pcapng() {
        return input instanceof org.tracewire.input.PcapngInput;
    }

    /** Rows read so far. */
    public long rows() {
        return rows;
    }

    /** Notes after reading: lost events, skipped packets or records. */
    public List<String> summary() {
        return input.summary();
    }

    /**
     * Reads every event, handing rows on in batches of {@value #BATCH} (the last may be shorter).
     *
     * @param sink      receives each batch (the list is not reused)
     * @param cancelled checked between batches; true stops reading
     * @return rows read
     * @throws java.io.UncheckedIOException when the file breaks off mid-way
     */
    public long readAll(Consumer<List<EventRow>> sink, BooleanSupplier cancelled) {
        KernelTextRenderer renderer = input.renderer();
        List<EventRow> batch = new ArrayList<>(BATCH);
        for (Iterator<RecordInput.Event> it = input.events(); it.hasNext(); ) {
            RecordInput.Event e = it.next();
            EventRecord r = e.record();
            if (layout == null) {
                layout = r.layout();
            }
            Map<String, Object> fields = RecordValues.strings(r);
            learn(r.format().fullName(), fields);
            String text;
            try {
                text = renderer.body(r);
            } catch (RuntimeException ex) {
                text = "<" + ex.getMessage() + ">";
            }
            batch.add(new EventRow(r.timestampNs(), r.cpu(), r.pid(), comm(r.pid()), r.format().fullName(), text, fields,
                    e.frame()));
            rows++;
            if (batch.size() == BATCH) {
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

    /** The pid → comm pairs a record names about tasks. */
    private void learn(String event, Map<String, Object> f) {
        switch (event) {
            case "sched:sched_switch" -> {
                put(f.get("prev_pid"), f.get("prev_comm"));
                put(f.get("next_pid"), f.get("next_comm"));
            }
            case "sched:sched_wakeup", "sched:sched_waking", "sched:sched_wakeup_new", "sched:sched_migrate_task",
                 "sched:sched_process_exit", "sched:sched_process_free", "sched:sched_stat_runtime",
                 "task:task_newtask" -> put(f.get("pid"), f.get("comm"));
            case "sched:sched_process_fork" -> {
                put(f.get("parent_pid"), f.get("parent_comm"));
                put(f.get("child_pid"), f.get("child_comm"));
            }
            case "task:task_rename" -> put(f.get("pid"), f.get("newcomm"));
            default -> { }
        }
    }

    private void put(Object pid, Object comm) {
        if (pid == null || comm == null || comm.toString().isEmpty()) {
            return;
        }
        try {
            comms.put(Integer.parseInt(pid.toString()), comm.toString());
        } catch (NumberFormatException ignored) {
            // not a pid
        }
    }

    private String comm(int pid) {
        if (pid == 0) {
            return "<idle>";
        }
        String c = comms.get(pid);
        return c != null ? c : cmdlines.comm(pid);
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
