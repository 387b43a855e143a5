package org.tracewire.app.timeline;

import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;

/** Paints one lane of the timeline's canvas: the store's pixel columns, or the rows' slices and event marks. */
final class LanePainter {
    private LanePainter() {
    }

    /** A task's colour: a hue from its pid. */
    static Color color(int pid) {
        if (pid == TimelineModel.SEVERAL) {
            return Color.gray(0.45);
        }
        double hue = (pid * 137.508) % 360;
        return Color.hsb(hue, 0.55, 0.85);
    }

    /**
     * One lane of the store's columns ({@link SliceTimeline#columns}): runs of one task merged,
     * task names where they fit, hatched where who ran is unknown.
     *
     * @param g       where to draw
     * @param st      the slices (their names)
     * @param colPid  per column its task
     * @param colComm per column its task's name id
     * @param left    the plot's left edge (px)
     * @param y       the lane's top (px)
     * @param laneH   the lane's height (px)
     * @param width   columns
     */
    static void columns(GraphicsContext g, SliceTimeline st, int[] colPid, int[] colComm, double left, double y, double laneH,
                        int width) {
        double top = y + 3;
        double bh = laneH - 8;
        int x = 0;
        while (x < width) {
            int p = colPid[x];
            int c = colComm[x];
            int x1 = x + 1;
            while (x1 < width && colPid[x1] == p && (p < 0 || colComm[x1] == c)) {
                x1++;
            }
            if (p != SliceTimeline.NONE) {
                double x0 = left + x;
                double wd = x1 - x;
                if (p == SliceTimeline.UNKNOWN) {
                    g.setFill(Color.gray(0.9));
                    g.fillRect(x0, top, wd, bh);
                    g.setStroke(Color.gray(0.55));
                    for (double hx = x0 - bh; hx < x0 + wd; hx += 6) {
                        double ax = Math.max(x0, hx);
                        double bx = Math.min(x0 + wd, hx + bh);
                        if (bx > ax) {
                            g.strokeLine(ax, top + bh - (ax - hx), bx, top + bh - (bx - hx));
                        }
                    }
                } else {
                    g.setFill(color(p == SliceTimeline.MANY ? TimelineModel.SEVERAL : p));
                    g.fillRect(x0, top, wd, bh);
                    if (p > 0 && wd > 24) {
                        String name = st.string(c);
                        String text = (name == null ? "pid " + p : name) + " " + p;
                        if (wd > text.length() * 6.5 + 4 || wd > 40) {
                            g.setFill(Color.BLACK);
                            g.fillText(wd > text.length() * 6.5 + 4 ? text : name == null ? "" + p : name, x0 + 2, top + bh / 2 + 4, wd - 4);
                        }
                    }
                }
            }
            x = x1;
        }
    }

    /**
     * One lane of the rows' model ({@link TimelineModel#frame}): its slices as segments with the
     * task's name where it fits, and a tick per column holding events (longer for more).
     *
     * @param g     where to draw
     * @param m     the model (task names)
     * @param f     the lane's frame
     * @param left  the plot's left edge (px)
     * @param y     the lane's top (px)
     * @param laneH the lane's height (px)
     */
    static void rows(GraphicsContext g, TimelineModel m, LaneFrame f, double left, double y, double laneH) {
        for (int k = 0; k < f.segments; k++) {
            g.setFill(color(f.segPid[k]));
            g.fillRect(left + f.segX0[k], y + 3, f.segX1[k] - f.segX0[k], laneH - 12);
            if (f.segX1[k] - f.segX0[k] > 40 && f.segPid[k] > 0) {
                g.setFill(Color.BLACK);
                g.fillText(m.comm(f.segPid[k]), left + f.segX0[k] + 2, y + (laneH - 12) / 2 + 7, f.segX1[k] - f.segX0[k] - 4);
            }
        }
        g.setStroke(Color.web("#203040"));
        for (int k = 0; k < f.markColumns; k++) {
            double x = left + f.markX[k] + 0.5;
            double len = Math.min(8, 3 + Math.log(f.markCount[k]) * 1.5);
            g.strokeLine(x, y + laneH - 1, x, y + laneH - 1 - len);
        }
    }
}
