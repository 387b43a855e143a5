package org.tracewire.tracefs;

import java.util.HashMap;
import java.util.Map;

/**
 * The counters of one CPU's ring buffer, as the kernel prints them in {@code per_cpu/cpuN/stats}
 * ({@code tracing_stats_read} in {@code kernel/trace/trace.c}; the values come from
 * {@code kernel/trace/ring_buffer.c}). All counts are events except {@code bytes}; all are
 * cumulative since the buffer was allocated or last reset, so a capture works with differences
 * ({@link #minus}).
 *
 * <p>The identity a reader can rely on (ring_buffer.c): the buffer's internal {@code entries}
 * counter is incremented once per committed event ({@code rb_commit}); the file's
 * {@code entries} is {@code rb_num_of_entries} = committed − {@code overrun} − {@code read}. So
 * <pre>
 *   committed = entries + overrun + readEvents
 * </pre>
 * {@code overrun} counts committed events overwritten before a reader took them (overwrite mode:
 * {@code rb_handle_head_page} adds the entries of the page it overwrites); the reader learns of
 * them as the {@code lost_events} of its next page ({@code rb_get_reader_page}: {@code overrun −
 * last_overrun}), stored in the page only when there is room after the data. {@code commitOverrun}
 * (the writer caught up with an uncommitted page, {@code rb_move_tail}) and {@code droppedEvents}
 * (the buffer was full in producer-consumer mode) count events that were never committed and are
 * reported on no page. Events the kernel tried to record = {@link #attempted()}; events no reader
 * will ever see = {@link #lost()}.
 *
 * @param entries        events in the buffer now, not read yet
 * @param overrun        events overwritten before they were read
 * @param commitOverrun  events dropped because the writer wrapped onto an uncommitted page
 * @param bytes          bytes of unread events
 * @param droppedEvents  events dropped because the buffer was full (no overwrite)
 * @param readEvents     events consumed by readers ({@code trace_pipe}, {@code trace_pipe_raw})
 */
public record RingBufferStats(long entries, long overrun, long commitOverrun, long bytes, long droppedEvents,
                              long readEvents) {
    /** Events lost to readers: overrun + commit overrun + dropped. */
    public long lost() {
        return overrun + commitOverrun + droppedEvents;
    }

    /** Events committed to the buffer: entries + overrun + read ({@code rb_num_of_entries} backwards). */
    public long committed() {
        return entries + overrun + readEvents;
    }

    /** Events the kernel tried to record: committed + commit overrun + dropped = entries + read + lost. */
    public long attempted() {
        return committed() + commitOverrun + droppedEvents;
    }

    /** The differences {@code this − earlier}, counter by counter ({@code entries} and {@code bytes} too). */
    public RingBufferStats minus(RingBufferStats earlier) {
        return new RingBufferStats(entries - earlier.entries, overrun - earlier.overrun,
                commitOverrun - earlier.commitOverrun, bytes - earlier.bytes, droppedEvents - earlier.droppedEvents,
                readEvents - earlier.readEvents);
    }

    /**
     * Parses the text of {@code per_cpu/cpuN/stats} ({@code "entries: 12\noverrun: 0\n..."});
     * the time-stamp lines are ignored.
     *
     * @throws IllegalArgumentException when a counter is missing
     */
    public static RingBufferStats parse(String text) {
        Map<String, Long> v = new HashMap<>();
        for (String line : text.split("\n")) {
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String value = line.substring(colon + 1).strip();
            try {
                v.put(line.substring(0, colon).strip(), Long.parseLong(value));
            } catch (NumberFormatException e) {
                // "oldest event ts:  4981.180058" and the like
            }
        }
        return new RingBufferStats(need(v, "entries"), need(v, "overrun"), need(v, "commit overrun"),
                need(v, "bytes"), v.getOrDefault("dropped events", 0L), v.getOrDefault("read events", 0L));
    }

    private static long need(Map<String, Long> v, String key) {
        Long x = v.get(key);
        if (x == null) {
            throw new IllegalArgumentException("per-CPU stats without '" + key + "'");
        }
        return x;
    }

    /**
     * Reads {@code per_cpu/cpuN/stats} of a tracefs (the top level or an instance).
     *
     * @throws TracefsException when it cannot be read
     */
    public static RingBufferStats read(Tracefs tracefs, int cpu) {
        return parse(tracefs.read("per_cpu/cpu" + cpu + "/stats"));
    }
}
