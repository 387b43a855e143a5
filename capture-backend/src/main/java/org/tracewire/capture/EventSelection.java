package org.tracewire.capture;

import java.util.Objects;
import org.tracewire.tracefs.EventSelector;

/**
 * One event to capture and its kernel filter, as given on the command line
 * ({@code -e SYSTEM:EVENT [-f FILTER]}).
 *
 * @param system the event's system, e.g. {@code sched}
 * @param event  the event name, e.g. {@code sched_switch}
 * @param filter kernel event-filter text, or null for none
 */
public record EventSelection(String system, String event, String filter) {
    public EventSelection {
        Objects.requireNonNull(system, "system");
        Objects.requireNonNull(event, "event");
    }

    /**
     * Parses {@code SYSTEM:EVENT} ({@link EventSelector#parseEvent}).
     *
     * @throws IllegalArgumentException when it is not one colon between two plain names
     */
    public static EventSelection parse(String spec, String filter) {
        EventSelector s = EventSelector.parseEvent(spec);
        return new EventSelection(s.system(), s.event(), filter);
    }

    /** {@code system:event}. */
    public String fullName() {
        return system + ":" + event;
    }
}
