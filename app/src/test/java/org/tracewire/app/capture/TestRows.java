package org.tracewire.app.capture;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.record.EventRecord;
import org.tracewire.record.RecordEncoder;
import org.tracewire.record.RecordValues;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.tracefs.Tracefs;

/** Rows as the backend streams them, made from the checked-in fixture's real records. */
public final class TestRows {
    private static Tracefs snapshot;
    private static List<EventRow> fixture;
    private static final Map<String, EventFormat> FORMATS = new java.util.concurrent.ConcurrentHashMap<>();

    private TestRows() {
    }

    /** The snapshot tracefs (cached). */
    public static synchronized Tracefs snapshot() {
        if (snapshot == null) {
            snapshot = Tracefs.open(Prerequisites.snapshot());
        }
        return snapshot;
    }

    /** Row records on the snapshot's formats. */
    public static RowRecords records() {
        Tracefs t = snapshot();
        return new RowRecords(RowRecords.formatsOf(() -> t));
    }

    /** A record as a row. */
    public static EventRow row(EventRecord r) {
        return new EventRow(r.timestampNs(), r.cpu(), r.pid(), "task" + r.pid(), r.format().fullName(),
                r.format().name() + " row", RecordValues.strings(r), 0, r);
    }

    /** The fixture's records as rows, in time order (cached). */
    public static synchronized List<EventRow> fixture() {
        if (fixture == null) {
            List<EventRow> out = new ArrayList<>();
            for (EventRecord r : FixtureRecords.load()) {
                out.add(row(r));
            }
            fixture = List.copyOf(out);
        }
        return fixture;
    }

    /** A sched_switch row: prev → next on a CPU. */
    public static EventRow sw(long ts, int cpu, int prevPid, String prevComm, int nextPid, String nextComm) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("prev_comm", prevComm);
        f.put("prev_pid", Integer.toString(prevPid));
        f.put("prev_prio", "120");
        f.put("prev_state", "1");
        f.put("next_comm", nextComm);
        f.put("next_pid", Integer.toString(nextPid));
        f.put("next_prio", "120");
        return encoded(ts, cpu, prevPid, prevComm, "sched:sched_switch",
                "prev_comm=" + prevComm + " prev_pid=" + prevPid + " ==> next_comm=" + nextComm + " next_pid=" + nextPid, f);
    }

    /** A sched_wakeup row: waker wakes pid. */
    public static EventRow wakeup(long ts, int cpu, int waker, String wakerComm, int pid, String comm) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("comm", comm);
        f.put("pid", Integer.toString(pid));
        f.put("prio", "120");
        f.put("target_cpu", Integer.toString(cpu));
        return encoded(ts, cpu, waker, wakerComm, "sched:sched_wakeup", "comm=" + comm + " pid=" + pid, f);
    }

    /**
     * A row with its record: the fields encoded in the snapshot's format of {@code event} (as a row
     * decoded from a frame carries one; an app row never gets its record from its fields).
     */
    public static EventRow encoded(long ts, int cpu, int pid, String comm, String event, String text,
                                   Map<String, Object> fields) {
        Tracefs t = snapshot();
        EventFormat f = FORMATS.computeIfAbsent(event, e -> {
            EventSelector sel = EventSelector.parseEvent(e);
            return t.format(sel.system(), sel.event());
        });
        EventRecord r = RecordEncoder.encode(f, t.layout(), cpu, ts, pid, fields);
        return new EventRow(ts, cpu, pid, comm, event, text, fields, 0, r);
    }

    /** The checked-in trace.dat (trace-cmd, sched events of this machine's kernel) copied to {@code dir/sched.dat}. */
    public static java.nio.file.Path schedDat(java.nio.file.Path dir) throws java.io.IOException {
        java.nio.file.Path file = dir.resolve("sched.dat");
        try (java.io.InputStream in = TestRows.class.getResourceAsStream("/tracedat/sched-v7-zstd.dat")) {
            java.nio.file.Files.copy(in, file);
        }
        return file;
    }

    /** {@code trace-cmd report} of {@link #schedDat}: one line per event, in file order. */
    public static List<String> schedReport() throws java.io.IOException {
        try (java.io.InputStream in = TestRows.class.getResourceAsStream("/tracedat/sched-v7-zstd.report.txt")) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines().toList();
        }
    }
}
