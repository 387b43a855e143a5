package org.tracewire.app.timeline;

import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.Text;

/**
 * Paints what crosses the timeline's lanes at a time: the time axis with its ticks and labels, and
 * the vertical lines of the selected row, the cursor and markers A and B. Times are ns on the trace
 * clock; {@code [s, e)} is the visible span over {@code width} pixel columns right of the lane labels.
 */
final class AxisPainter {
    private static final double LABEL_W = TimelineView.LABEL_W;
    private static final double AXIS_H = LaneLayout.AXIS_H;

    private AxisPainter() {
    }

    /** Ticks at least 110 px apart on 1/2/5 × 10^k ns, labelled with the trace clock (s since boot). */
    static void axis(GraphicsContext g, long s, long e, int width, double h) {
        double span = Math.max(1, e - s);
        double step = Math.pow(10, Math.floor(Math.log10(span / 10)));
        for (double mul : new double[] {2, 2.5, 2}) {
            if (step / span * width >= 110) {
                break;
            }
            step *= mul;
        }
        while (step / span * width < 110) {
            step *= 10;
        }
        long lstep = Math.max(1, (long) step);
        long first = Math.floorDiv(s, lstep) * lstep + (Math.floorMod(s, lstep) == 0 ? 0 : lstep);
        g.setFill(Color.BLACK);
        for (long t = first; t <= e; t += lstep) {
            double x = LABEL_W + (t - s) / span * width;
            g.setStroke(Color.web("#c8d0da"));
            g.strokeLine(x, AXIS_H - 5, x, h);
            String label = formatSeconds(t, lstep);
            g.fillText(label, labelLeft(x, textWidth(g.getFont(), label), LABEL_W + width), AXIS_H - 7);
        }
    }

    /**
     * Where a tick's label starts: right of its tick, or left of it when it would run past
     * {@code right} (the canvas's last column), so the last label is not cut.
     *
     * @param x     the tick's column, px
     * @param textW the label's width, px
     * @param right the rightmost column a label may reach, px
     */
    static double labelLeft(double x, double textW, double right) {
        return x + 2 + textW <= right ? x + 2 : x - 2 - textW;
    }

    /** Measures the labels: one node for every redraw (the JavaFX thread's), not one per label. */
    private static final Text MEASURE = new Text();

    /** Width of {@code text} in {@code font}, px. */
    private static double textWidth(Font font, String text) {
        MEASURE.setFont(font);
        MEASURE.setText(text);
        return MEASURE.getLayoutBounds().getWidth();
    }

    /** A vertical line at time {@code t} (colour {@code c}, {@code lw} px wide) from the axis down to {@code bottom}, when in view. */
    static void vline(GraphicsContext g, long t, long s, long e, int width, Color c, double lw, double bottom) {
        double x = LABEL_W + (t - s) / (double) Math.max(1, e - s) * width;
        if (x >= LABEL_W && x <= LABEL_W + width) {
            g.setStroke(c);
            g.setLineWidth(lw);
            g.strokeLine(x, AXIS_H, x, bottom);
            g.setLineWidth(1);
        }
    }

    /** Marker {@code name} at time {@code t} (none when null): its line and a labelled flag under the axis. */
    static void marker(GraphicsContext g, Long t, String name, Color c, long s, long e, int width, double bottom) {
        if (t == null) {
            return;
        }
        vline(g, t, s, e, width, c, 2, bottom);
        double x = LABEL_W + (t - s) / (double) Math.max(1, e - s) * width;
        if (x >= LABEL_W && x <= LABEL_W + width) {
            g.setFill(c);
            g.fillRect(x - 7, AXIS_H, 14, 14);
            g.setFill(Color.WHITE);
            g.fillText(name, x - 4, AXIS_H + 11);
        }
    }

    /** A tick's label: seconds since boot with as many decimals as the step needs. */
    private static String formatSeconds(long t, long step) {
        int decimals = (int) Math.max(0, Math.min(9, Math.ceil(-Math.log10(step / 1e9) - 1e-9)));
        long sec = Math.floorDiv(t, 1_000_000_000L);
        long frac = Math.floorMod(t, 1_000_000_000L);
        if (decimals == 0) {
            return sec + " s";
        }
        String f = String.format("%09d", frac).substring(0, decimals);
        return sec + "." + f + " s";
    }
}
