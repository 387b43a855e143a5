package org.tracewire.app.capture;

import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.record.RecordEncoder;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.tracefs.Tracefs;

/**
 * The app's one bridge from rows to core's record-based analysis: a row decoded from frames or a
 * file carries its {@link EventRecord}; a row the backend sent as text and fields gets its field map
 * encoded as a record of the event's format ({@link RecordEncoder}). The filter evaluator
 * ({@code RecordFilter}), the latency tracker and the histogram aggregator take the records as they
 * are. Formats of encoded rows come from the tracefs the app browses (live as root, else the
 * snapshot). Thread-safe.
 */
public final class RowRecords {
    /** Little-endian, 64-bit: the layout used when no tracefs is loaded yet. */
    public static final KernelLayout DEFAULT_LAYOUT = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);

    private final Function<String, EventFormat> formats;
    private final Supplier<KernelLayout> layout;
    private final Map<String, EventFormat> cache = new ConcurrentHashMap<>();
    private volatile Map<String, EventFormat> fileFormats;
    private volatile KernelLayout fileLayout;

    /**
     * @param formats "system:event" → its format, or null when unknown (not cached, so a format that
     *                appears later, once tracefs is loaded, is found then)
     * @param layout  the traced kernel's layout, or null for {@link #DEFAULT_LAYOUT}
     */
    public RowRecords(Function<String, EventFormat> formats, Supplier<KernelLayout> layout) {
        this.formats = formats;
        this.layout = layout;
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

    /** No formats: every {@link #record} is null (a view model without a tracefs). */
    public static RowRecords none() {
        return new RowRecords(n -> null, () -> DEFAULT_LAYOUT);
    }

    /**
     * Rows from now on come from an opened file: its formats (by name) and layout take precedence
     * over the browsed tracefs, so a file recorded elsewhere is analysed with its own formats.
     *
     * @param catalog the file's formats, or null to go back to the browsed tracefs (live captures)
     * @param layout  the file's kernel layout, or null for the browsed one
     */
    public void useFile(FormatCatalog catalog, KernelLayout layout) {
        if (catalog == null) {
            fileFormats = null;
        } else {
            Map<String, EventFormat> m = new HashMap<>();
            for (EventFormat f : catalog.formats()) {
                m.put(f.fullName(), f);
            }
            fileFormats = m;
        }
        fileLayout = layout;
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

    /**
     * @return the row's own record when it has one (decoded from a file),
     *         else the row's fields as a record of its event's format, or null when the format is unknown
     */
    public EventRecord record(EventRow row) {
        if (row.record() != null) {
            return row.record();
        }
        EventFormat f = format(row.event());
        if (f == null) {
            return null;
        }
        KernelLayout l = fileLayout != null ? fileLayout : layout.get();
        return RecordEncoder.encode(f, l == null ? DEFAULT_LAYOUT : l, row.cpu(), row.ts(), row.pid(), row.fields());
    }
}
