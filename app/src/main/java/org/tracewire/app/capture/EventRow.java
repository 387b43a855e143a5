package org.tracewire.app.capture;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.stream.Collectors;
import org.tracewire.record.EventRecord;

/**
 * One row of the event table (a capture file's event, opened or live).
 *
 * @param ts     nanoseconds since the epoch, or of the trace clock (since boot) for a file whose times
 *               are not wall clock (see {@link EventTableViewModel#wallClockProperty()})
 * @param cpu    CPU
 * @param pid    pid
 * @param comm   task name
 * @param event  "system:event"
 * @param text   the rendered line
 * @param fields field values
 * @param frame  the row's packet number in the pcapng it was opened from (1-based, Wireshark's
 *               {@code frame.number}), 0 when it was read from a trace.dat
 * @param record the decoded record (from the file), with the format it was recorded with; null
 *               for a row that has none (the "not decoded" placeholder): filters, the histogram and
 *               the latency view then pass it by
 */
public record EventRow(long ts, int cpu, int pid, String comm, String event, String text, Map<String, Object> fields,
                       long frame, EventRecord record) {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

    /** A row without a frame number (a trace.dat's) and without its record. */
    public EventRow(long ts, int cpu, int pid, String comm, String event, String text, Map<String, Object> fields) {
        this(ts, cpu, pid, comm, event, text, fields, 0, null);
    }

    /** A row without its record. */
    public EventRow(long ts, int cpu, int pid, String comm, String event, String text, Map<String, Object> fields,
                    long frame) {
        this(ts, cpu, pid, comm, event, text, fields, frame, null);
    }

    /** The time of day with nanoseconds, e.g. {@code 09:12:01.123456789}. */
    public String time() {
        long s = Math.floorDiv(ts, 1_000_000_000L);
        long ns = Math.floorMod(ts, 1_000_000_000L);
        return TIME.format(Instant.ofEpochSecond(s)) + String.format(".%09d", ns);
    }

    /** The time as seconds with nanoseconds, e.g. {@code 1234.000567890}: a trace-clock time since boot. */
    public String bootTime() {
        return String.format("%d.%09d", Math.floorDiv(ts, 1_000_000_000L), Math.floorMod(ts, 1_000_000_000L));
    }

    /** The fields, one {@code name = value} per line. */
    public String fieldsText() {
        return fields.entrySet().stream().map(e -> e.getKey() + " = " + e.getValue()).collect(Collectors.joining("\n"));
    }
}
