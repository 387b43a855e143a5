package org.tracewire.app.capture;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.record.EventRecord;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.tracefs.Tracefs;

/**
 * The app's one bridge from rows to core's record-based analysis: a row decoded from frames or a
 * file carries its {@link EventRecord}, which the filter evaluator ({@code RecordFilter}), the latency
 * tracker and the histogram aggregator take as it is; a row without one (the "not decoded"
 * placeholder of a frame that failed to decode) has none here either. Gives the formats by event
 * name: an opened file's own, else the browsed tracefs' (live as root, else the snapshot).
 * Thread-safe.
 */
public final class RowRecords {
    private final Function<String, EventFormat> formats;
    private final Map<String, EventFormat> cache = new ConcurrentHashMap<>();
    private volatile Map<String, EventFormat> fileFormats;

    /**
     * @param formats "system:event" → its format, or null when unknown (not cached, so a format that
     *                appears later, once tracefs is loaded, is found then)
     */
    public RowRecords(Function<String, EventFormat> formats) {
        this.formats = formats;
    }

    /**
     * Formats read one by one from a tracefs (never the whole catalog per lookup).
     *
     * @param tracefs the tree browsed, or null while it loads
     * @return "system:event" → its format, or null when unknown or unreadable
     */
    public static Function<String, EventFormat> formatsOf(Supplier<Tracefs> tracefs) {
        return name -> {
            Tracefs t = tracefs.get();
            if (t == null) {
                return null;
            }
            try {
                EventSelector sel = EventSelector.parseEvent(name);
                return t.format(sel.system(), sel.event());
            } catch (RuntimeException e) { // a malformed name, an unknown event or an unreadable format
                return null;
            }
        };
    }

    /** No formats: every {@link #format} is null (a view model without a tracefs). */
    public static RowRecords none() {
        return new RowRecords(n -> null);
    }

    /**
     * Rows from now on come from an opened file: its formats (by name) take precedence over the
     * browsed tracefs, so a file recorded elsewhere is analysed with its own formats.
     *
     * @param catalog the file's formats, or null to go back to the browsed tracefs
     */
    public void useFile(FormatCatalog catalog) {
        if (catalog == null) {
            fileFormats = null;
        } else {
            Map<String, EventFormat> m = new HashMap<>();
            for (EventFormat f : catalog.formats()) {
                m.put(f.fullName(), f);
            }
            fileFormats = m;
        }
        cache.clear();
    }

    /** @return the event's format, or null when unknown */
    public EventFormat format(String event) {
        Map<String, EventFormat> file = fileFormats;
        if (file != null) {
            return file.get(event);
        }
        EventFormat f = cache.get(event);
        if (f == null) {
            f = formats.apply(event);
            if (f != null) {
                cache.put(event, f);
            }
        }
        return f;
    }
}
