package org.tracewire.capture;

import java.util.Objects;

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
     * Parses {@code SYSTEM:EVENT}.
     *
     * @throws IllegalArgumentException when there is no single colon or a part is empty
     */
    public static EventSelection parse(String spec, String filter) {
        int colon = spec.indexOf(':');
        if (colon <= 0 || colon == spec.length() - 1 || spec.indexOf(':', colon + 1) >= 0) {
            throw new IllegalArgumentException("expected SYSTEM:EVENT, got '" + spec + "'");
        }
        return new EventSelection(spec.substring(0, colon), spec.substring(colon + 1), filter);
    }

    /** {@code system:event}. */
    public String fullName() {
        return system + ":" + event;
    }
}
