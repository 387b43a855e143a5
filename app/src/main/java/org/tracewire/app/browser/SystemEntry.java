package org.tracewire.app.browser;

import java.util.List;

/**
 * A system and those of its events that match the browser's filter.
 *
 * @param name   the system, e.g. "sched"
 * @param events event names, sorted
 */
public record SystemEntry(String name, List<String> events) {
}
