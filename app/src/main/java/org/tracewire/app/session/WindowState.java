package org.tracewire.app.session;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * The main window's size and position, restored at the next start.
 *
 * @param x         left edge
 * @param y         top edge
 * @param width     width
 * @param height    height
 * @param maximized maximized
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record WindowState(double x, double y, double width, double height, boolean maximized) {
    /** Used when nothing was saved. */
    public static final WindowState DEFAULT = new WindowState(Double.NaN, Double.NaN, 1200, 800, false);
}
