package org.tracewire.capture;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatException;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsException;

/**
 * The formats a capture reads records with, by the kernel's event id: those of the selected events
 * and of the events read only to follow task names ({@link TaskNaming}). A live capture
 * ({@link Capture}) and a recovery of its spool ({@link Recovery}) take them alike.
 */
final class CaptureFormats {
    private CaptureFormats() {
    }

    /**
     * The formats of the selected events by id (only they are enabled in the instance).
     *
     * @throws FormatException  when an event's format file is malformed
     * @throws TracefsException when one cannot be read
     */
    static Map<Integer, EventFormat> of(Tracefs top, List<EventSelection> events) {
        Map<Integer, EventFormat> m = new HashMap<>();
        for (EventSelection e : events) {
            EventFormat f = top.format(e.system(), e.event());
            m.put(f.id(), f);
        }
        return m;
    }

    /** The ids, among {@code formats}, of the events read only to follow task names. */
    static List<Integer> namingIds(Map<Integer, EventFormat> formats, List<EventSelection> naming) {
        List<Integer> ids = new ArrayList<>();
        formats.forEach((id, f) -> {
            if (naming.stream().anyMatch(n -> n.fullName().equals(f.fullName()))) {
                ids.add(id);
            }
        });
        return ids;
    }
}
