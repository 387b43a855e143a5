package org.tracewire.app.timeline;

/**
 * Where the timeline's lanes go on its canvas (pixels): below the time axis, the lanes share the
 * height left, each between {@link #MIN} and {@link #MAX} high, so a few lanes fill the window and
 * many lanes keep a readable height and scroll ({@link #maxScroll()}: the lanes' height beyond
 * the canvas). A layout for one canvas height and lane count; the scroll offset is the view's.
 *
 * @param height the canvas's height
 * @param lanes  the lanes shown
 */
record LaneLayout(double height, int lanes) {
    /** The time axis's height, at the top. */
    static final double AXIS_H = 22;
    /** Smallest height of a lane: below it the lanes scroll. */
    static final double MIN = 26;
    /** Largest height of a lane (one or two lanes in a tall window). */
    static final double MAX = 400;
    /** Space left under the last lane. */
    static final double BOTTOM = 4;

    /** The height the lanes share (the canvas below the axis). */
    double available() {
        return Math.max(0, height - AXIS_H - BOTTOM);
    }

    /** Each lane's height: the available height shared, whole pixels, within [{@link #MIN}, {@link #MAX}]. */
    double laneHeight() {
        int n = Math.max(1, lanes);
        return Math.max(MIN, Math.min(MAX, Math.floor(available() / n)));
    }

    /** The height of every lane together. */
    double contentHeight() {
        return lanes * laneHeight();
    }

    /** How far the lanes scroll: their height beyond the available height (0 when they fit). */
    double maxScroll() {
        return Math.max(0, contentHeight() - available());
    }

    /** The top of a lane on the canvas with the lanes scrolled by {@code scroll} pixels. */
    double laneTop(int lane, double scroll) {
        return AXIS_H + lane * laneHeight() - clamp(scroll);
    }

    /** The lane at a canvas y with the lanes scrolled by {@code scroll}; -1 above, {@code lanes} or more below. */
    int laneAt(double y, double scroll) {
        if (y < AXIS_H) {
            return -1;
        }
        return (int) Math.floor((y - AXIS_H + clamp(scroll)) / laneHeight());
    }

    /** A scroll offset within [0, {@link #maxScroll()}]. */
    double clamp(double scroll) {
        return Math.max(0, Math.min(maxScroll(), scroll));
    }
}
