package org.tracewire.app.timeline;

import static org.tracewire.app.timeline.TimelineText.duration;
import static org.tracewire.app.timeline.TimelineText.traceTime;

/** The timeline's line under the lanes: what is under the pointer, over the store's slices or the rows. */
final class HoverText {
    private HoverText() {
    }

    /**
     * Over the store's slices: the lane, the time, and the slice there (task, CPU, priority, run
     * time, end state, frame).
     *
     * @param label the lane's label
     * @param t     the pointer's time (ns, trace clock)
     * @param sl    the slice under it, or null
     */
    static String ofSlice(String label, long t, SliceTimeline.Slice sl) {
        StringBuilder b = new StringBuilder(label).append("  ").append(traceTime(t)).append(" s");
        if (sl != null) {
            b.append(sl.unchained() ? "   unknown after " : "   ")
                    .append(sl.pid() == 0 ? "idle" : sl.comm() + " (" + sl.pid() + ")")
                    .append(" on CPU ").append(sl.cpu()).append(" prio ").append(sl.prio())
                    .append(" for ").append(duration(sl.end() - sl.start()))
                    .append(sl.endState() == null ? "" : ", then " + sl.endState())
                    .append("   frame ").append(sl.frame());
        }
        return b.toString();
    }

    /**
     * Over the rows' model: the lane, the time, the task running then and the event within 3 px.
     *
     * @param m     the rows' model
     * @param k     the lane
     * @param label its label
     * @param s     the visible range's start (ns)
     * @param e     its end (ns)
     * @param width the plot's width (px)
     * @param x     the pointer's column (px)
     */
    static String ofRows(TimelineModel m, TimelineModel.LaneKey k, String label, long s, long e, int width, double x) {
        long t = s + (long) ((e - s) * (x / width));
        StringBuilder b = new StringBuilder(label).append("  t=").append(traceTime(t)).append(" s");
        long[] slice = m.sliceAt(k, t);
        if (slice != null && slice[2] != 0) {
            b.append(String.format("   running %s (%d) for %.3f ms", m.comm((int) slice[2]), slice[2], (slice[1] - slice[0]) / 1e6));
        }
        int i = m.hit(k, s, e, width, x, 3);
        if (i >= 0) {
            b.append("   ").append(m.event(i)).append(" by ").append(m.comm(m.pid(i))).append(" (").append(m.pid(i)).append(")");
            if (m.nextPid(i) >= 0) {
                b.append(" → ").append(m.comm(m.nextPid(i))).append(" (").append(m.nextPid(i)).append(")");
            }
        }
        return b.toString();
    }
}
