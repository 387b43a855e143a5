package org.tracewire.app.query;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.tracewire.filter.Filter;
import org.tracewire.filter.FilterSyntaxException;
import org.tracewire.filter.RecordFilter;
import org.tracewire.format.EventFormat;
import org.tracewire.input.RecordInput;

/**
 * The independent side of the query and I/O graph tests: every event of a capture file as core's
 * {@link RecordInput} reads it (no store, no SQL), with counts per interval and the frames a
 * filter selects by the event table's rule ({@link RecordFilter}: an event that does not take the
 * filter passes nothing).
 */
public final class CaptureOracle {
    /** Every event of the file, in file order. */
    public final List<RecordInput.Event> events = new ArrayList<>();

    /**
     * @param file a pcapng of tracewire frames
     * @throws IOException when it cannot be read
     */
    public CaptureOracle(Path file) throws IOException {
        try (RecordInput in = RecordInput.open(file, null)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                events.add(it.next());
            }
        }
    }

    /** The first event's time, ns. */
    public long start() {
        return events.stream().mapToLong(RecordInput.Event::timeNs).min().orElseThrow();
    }

    /** The last event's time, ns. */
    public long end() {
        return events.stream().mapToLong(RecordInput.Event::timeNs).max().orElseThrow();
    }

    /**
     * Where an I/O graph's interval 0 starts: the multiple of the interval at or before the first event.
     *
     * @param interval ns
     * @return ns
     */
    public long start(long interval) {
        return start() - Math.floorMod(start(), interval);
    }

    /**
     * Events per interval from {@link #start(long)}, per event type ({@code system:event}).
     *
     * @param interval ns
     * @return counts per event type
     */
    public Map<String, long[]> perEvent(long interval) {
        long start = start(interval);
        int n = (int) ((end() - start) / interval + 1);
        Map<String, long[]> out = new LinkedHashMap<>();
        for (RecordInput.Event e : events) {
            out.computeIfAbsent(e.record().format().fullName(), k -> new long[n])[(int) ((e.timeNs() - start) / interval)]++;
        }
        return out;
    }

    /**
     * Events per interval from {@link #start(long)} of those an expression selects.
     *
     * @param interval ns
     * @param which    the events counted
     * @return the counts
     */
    public long[] counts(long interval, Predicate<RecordInput.Event> which) {
        long start = start(interval);
        long[] c = new long[(int) ((end() - start) / interval + 1)];
        for (RecordInput.Event e : events) {
            if (which.test(e)) {
                c[(int) ((e.timeNs() - start) / interval)]++;
            }
        }
        return c;
    }

    /**
     * What a filter in the kernel's syntax selects by the event table's rule.
     *
     * @param text the filter
     * @return a test of an event
     * @throws FilterSyntaxException when it does not parse
     */
    public Predicate<RecordInput.Event> filter(String text) throws FilterSyntaxException {
        Filter f = Filter.parse(text);
        Map<EventFormat, RecordFilter> byFormat = new HashMap<>();
        Map<Integer, String> comm = new HashMap<>();
        return e -> {
            EventFormat fmt = e.record().format();
            RecordFilter rf = byFormat.computeIfAbsent(fmt, k -> {
                try {
                    return RecordFilter.compile(f, k, pid -> comm.getOrDefault(pid, ""));
                } catch (FilterSyntaxException x) {
                    return null;
                }
            });
            return rf != null && rf.test(e.record());
        };
    }

    /**
     * The frames an expression selects, in file order.
     *
     * @param which the events
     * @return their frame numbers
     */
    public List<Long> frames(Predicate<RecordInput.Event> which) {
        List<Long> out = new ArrayList<>();
        for (RecordInput.Event e : events) {
            if (which.test(e)) {
                out.add(e.frame());
            }
        }
        return out;
    }

    /**
     * The first event at or after a time (by time, then frame).
     *
     * @param ts ns
     * @return its frame, -1 when none
     */
    public long firstAtOrAfter(long ts) {
        RecordInput.Event best = null;
        for (RecordInput.Event e : events) {
            if (e.timeNs() >= ts && (best == null || e.timeNs() < best.timeNs()
                    || (e.timeNs() == best.timeNs() && e.frame() < best.frame()))) {
                best = e;
            }
        }
        return best == null ? -1 : best.frame();
    }
}
