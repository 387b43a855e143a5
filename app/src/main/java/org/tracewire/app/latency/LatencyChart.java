package org.tracewire.app.latency;

import java.util.List;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.layout.Pane;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * The latency histogram drawn on a canvas with both axes logarithmic: latency in log2 buckets
 * (1 ns … seconds) across, pairs per bucket on a log10 scale up, so a bucket of one pair in the
 * tail stays visible beside one of millions; the percentiles p50/p90/p99 and the max are marked
 * as vertical lines at their latency.
 */
public final class LatencyChart extends Pane {
    private static final double LEFT = 58;
    private static final double BOTTOM = 42;
    private static final double TOP = 26;
    private static final double RIGHT = 12;
    private final Canvas canvas = new Canvas();
    private List<LatencyViewModel.Bucket> buckets = List.of();
    private StoreLatency.Summary summary;

    /** An empty chart; {@link #show} fills it. */
    public LatencyChart() {
        setId("latency-chart");
        getChildren().add(canvas);
        setMinSize(200, 150);
        widthProperty().addListener(o -> draw());
        heightProperty().addListener(o -> draw());
    }

    @Override
    protected void layoutChildren() {
        canvas.setWidth(getWidth());
        canvas.setHeight(getHeight());
        draw();
    }

    /**
     * Shows buckets and, when known, the percentile markers.
     *
     * @param buckets the log2 buckets, smallest first (contiguous)
     * @param summary percentiles and max, or null
     */
    public void show(List<LatencyViewModel.Bucket> buckets, StoreLatency.Summary summary) {
        this.buckets = List.copyOf(buckets);
        this.summary = summary;
        draw();
    }

    private void draw() {
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        GraphicsContext g = canvas.getGraphicsContext2D();
        g.setFill(Color.WHITE);
        g.fillRect(0, 0, w, h);
        g.setFont(Font.font(11));
        g.setFill(Color.BLACK);
        g.setTextAlign(TextAlignment.CENTER);
        g.setTextBaseline(VPos.TOP);
        g.fillText("pairs per latency bucket (both axes log scale)", w / 2, 6);
        if (buckets.isEmpty() || w < LEFT + RIGHT + 20 || h < TOP + BOTTOM + 20) {
            g.setFill(Color.GRAY);
            g.fillText("no pairs", w / 2, h / 2);
            return;
        }
        int lo = buckets.get(0).log2();
        int hi = buckets.get(buckets.size() - 1).log2();
        if (summary != null && summary.count() > 0) {
            hi = Math.max(hi, LatencyViewModel.bucket(summary.max()));
        }
        int n = hi - lo + 1;
        long maxCount = 1;
        for (LatencyViewModel.Bucket b : buckets) {
            maxCount = Math.max(maxCount, b.count());
        }
        double decades = Math.max(1, Math.ceil(Math.log10(maxCount + 1)));
        double pw = w - LEFT - RIGHT;
        double ph = h - TOP - BOTTOM;
        double bw = pw / n;
        yGrid(g, decades, pw, ph);
        for (LatencyViewModel.Bucket b : buckets) {
            if (b.count() == 0) {
                continue;
            }
            double x = LEFT + (b.log2() - lo) * bw;
            // count 1 gets a sliver above the axis, so a single pair still shows
            double bh = Math.max(2, ph * Math.log10(b.count() + 1) / decades);
            g.setFill(Color.web("#4a78b5"));
            g.fillRect(x + 1, TOP + ph - bh, Math.max(1, bw - 2), bh);
        }
        xLabels(g, lo, hi, bw, pw, ph);
        g.setStroke(Color.BLACK);
        g.strokeLine(LEFT, TOP + ph, LEFT + pw, TOP + ph);
        g.strokeLine(LEFT, TOP, LEFT, TOP + ph);
        if (summary != null && summary.count() > 0) {
            marker(g, "p50", summary.p50(), lo, bw, ph, Color.web("#2e7d32"), 0);
            marker(g, "p90", summary.p90(), lo, bw, ph, Color.web("#ef6c00"), 1);
            marker(g, "p99", summary.p99(), lo, bw, ph, Color.web("#c62828"), 2);
            marker(g, "max", summary.max(), lo, bw, ph, Color.web("#6a1b9a"), 3);
        }
    }

    /** The y grid and its labels, a line per decade of pairs: 1, 10, 100, … */
    private static void yGrid(GraphicsContext g, double decades, double pw, double ph) {
        g.setStroke(Color.gray(0.88));
        g.setTextAlign(TextAlignment.RIGHT);
        g.setTextBaseline(VPos.CENTER);
        for (int d = 0; d <= decades; d++) {
            double y = TOP + ph - ph * d / decades;
            g.strokeLine(LEFT, y, LEFT + pw, y);
            g.setFill(Color.gray(0.3));
            g.fillText(d == 0 ? "1" : d < 4 ? String.valueOf((long) Math.pow(10, d)) : "1e" + d, LEFT - 4, y);
        }
    }

    /** The x labels, every bucket's lower bound where there is room, and the axis title. */
    private static void xLabels(GraphicsContext g, int lo, int hi, double bw, double pw, double ph) {
        g.setFill(Color.gray(0.2));
        g.setTextAlign(TextAlignment.CENTER);
        g.setTextBaseline(VPos.TOP);
        int every = Math.max(1, (int) Math.ceil(52 / bw));
        for (int k = lo; k <= hi; k++) {
            if ((k - lo) % every == 0) {
                g.fillText(LatencyViewModel.label(1L << k), LEFT + (k - lo) * bw + bw / 2, TOP + ph + 4);
            }
        }
        g.fillText("latency (log2 buckets, lower bound)", LEFT + pw / 2, TOP + ph + 22);
    }

    /** A vertical line at a latency: its place inside its log2 bucket is log-linear. */
    private void marker(GraphicsContext g, String name, double ns, int lo, double bw, double ph, Color c, int row) {
        double v = Math.max(1, ns);
        double x = LEFT + (Math.log(v) / Math.log(2) - lo) * bw;
        g.setStroke(c);
        g.setLineDashes(4, 3);
        g.strokeLine(x, TOP, x, TOP + ph);
        g.setLineDashes();
        g.setFill(c);
        // the label right of the line, or left of it near the right edge
        boolean left = x > canvas.getWidth() - RIGHT - 80;
        g.setTextAlign(left ? TextAlignment.RIGHT : TextAlignment.LEFT);
        g.setTextBaseline(VPos.TOP);
        g.fillText(name + " " + LatencyViewModel.label((long) ns), left ? x - 3 : x + 3, TOP + 2 + row * 13);
    }
}
