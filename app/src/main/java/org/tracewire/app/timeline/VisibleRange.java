package org.tracewire.app.timeline;

import javafx.beans.property.LongProperty;
import javafx.beans.property.SimpleLongProperty;

/**
 * The timeline's visible range [start, end) in ns (the lanes' clock), and whether it shows
 * everything (fitted: it then follows what the timeline holds). Zoom, pan and zoom-to-range leave
 * the fitted state. UI thread.
 */
final class VisibleRange {
    private final LongProperty start = new SimpleLongProperty();
    private final LongProperty end = new SimpleLongProperty();
    private boolean fitted = true;

    /** Start of the range (ns). */
    LongProperty start() {
        return start;
    }

    /** End of the range (ns). */
    LongProperty end() {
        return end;
    }

    /** True while the range shows everything held (fitted, not zoomed since). */
    boolean fitted() {
        return fitted;
    }

    /** Shows [s, e), everything held: the range follows it until zoomed or panned. */
    void fit(long s, long e) {
        fitted = true;
        start.set(s);
        end.set(Math.max(e, s + 1));
    }

    /** The time at pixel column {@code x} of {@code width} (clamped to the range; ns). */
    long timeAt(double x, int width) {
        long s = start.get();
        long e = end.get();
        return s + (long) ((e - s) * (Math.max(0, Math.min(width, x)) / Math.max(1, width)));
    }

    /** Zooms by {@code factor} (&lt; 1 in, &gt; 1 out) around the point at {@code anchor} (0..1 of the width). */
    void zoom(double factor, double anchor) {
        long s = start.get();
        long e = end.get();
        double span = Math.max(10, (e - s) * factor);
        double at = s + (e - s) * anchor;
        long ns = (long) (at - span * anchor);
        set(ns, ns + (long) span);
    }

    /** Pans by a fraction of the visible width (negative: earlier). */
    void pan(double fraction) {
        long s = start.get();
        long e = end.get();
        long d = (long) ((e - s) * fraction);
        set(s + d, e + d);
    }

    /** Zooms to the range between two points (0..1 of the width), at least 10 ns. */
    void zoomTo(double from, double to) {
        long s = start.get();
        long e = end.get();
        double a = Math.min(from, to);
        double b = Math.max(from, to);
        long ns = s + (long) ((e - s) * a);
        long ne = s + (long) ((e - s) * b);
        set(ns, Math.max(ns + 10, ne));
    }

    /** Shows [s, e) (no longer fitted). */
    void set(long s, long e) {
        fitted = false;
        start.set(s);
        end.set(e);
    }
}
