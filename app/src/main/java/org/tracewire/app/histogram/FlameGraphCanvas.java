package org.tracewire.app.histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.Pane;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.Text;
import javafx.scene.text.TextAlignment;
import javafx.util.Duration;

/**
 * A flame graph drawn on a canvas: the root at the bottom, each caller's callees stacked above it,
 * a frame's width its share of the events, the function's name where it fits. Hovering a frame
 * shows its function, count and share; clicking one zooms into it (the clicked frame spans the
 * width; clicking the root, or a frame below the zoomed one, zooms out to it).
 */
public final class FlameGraphCanvas extends Pane {
    /** Height of one frame, px. */
    static final double ROW = 18;
    private final Canvas canvas = new Canvas();
    private final Tooltip tip = new Tooltip();
    private final List<Box> boxes = new ArrayList<>();
    private final Text measure = new Text();
    private FlameGraph.Node root;
    private FlameGraph.Node zoom;
    private List<FlameGraph.Node> zoomPath = List.of();
    private Consumer<String> onHover = s -> { };

    /**
     * A drawn frame.
     *
     * @param node the frame
     * @param path the frames from the root to it
     * @param x    left, px
     * @param y    top, px
     * @param w    width, px
     */
    record Box(FlameGraph.Node node, List<FlameGraph.Node> path, double x, double y, double w) {
    }

    /** An empty graph; {@link #show} fills it. */
    public FlameGraphCanvas() {
        setId("flame-graph");
        getChildren().add(canvas);
        setMinSize(200, 120);
        measure.setFont(Font.font(11));
        Tooltip.install(canvas, tip);
        tip.setShowDelay(Duration.millis(100));
        canvas.setOnMouseMoved(e -> {
            Box b = at(e.getX(), e.getY());
            String text = b == null ? "" : describe(b.node());
            tip.setText(text);
            if (b == null) {
                tip.hide();
            }
            onHover.accept(text);
        });
        canvas.setOnMouseClicked(e -> {
            Box b = at(e.getX(), e.getY());
            if (b != null) {
                zoomTo(b.node(), b.path());
            }
        });
    }

    @Override
    protected void layoutChildren() {
        canvas.setWidth(getWidth());
        canvas.setHeight(getHeight());
        draw();
    }

    /**
     * Shows a graph (zoomed out).
     *
     * @param root the root, or null for none
     */
    public void show(FlameGraph.Node root) {
        this.root = root;
        this.zoom = root;
        this.zoomPath = root == null ? List.of() : List.of(root);
        draw();
    }

    /** Receives the hovered frame's description ({@link #describe}), empty off any frame. */
    public void setOnHover(Consumer<String> onHover) {
        this.onHover = onHover;
    }

    /** A frame as the hover shows it: function, events, share of the root. */
    public String describe(FlameGraph.Node n) {
        long all = root == null ? 0 : root.count();
        return String.format("%s — %,d events (%.1f%%)", n.name(), n.count(), all == 0 ? 0.0 : 100.0 * n.count() / all);
    }

    /** Zooms into a frame (its path from the root given): it spans the width. */
    void zoomTo(FlameGraph.Node n, List<FlameGraph.Node> path) {
        zoom = n;
        zoomPath = path;
        draw();
    }

    /** The frames drawn, for tests. */
    List<Box> boxes() {
        return boxes;
    }

    /** The frame under a point, or null. */
    Box at(double x, double y) {
        for (Box b : boxes) {
            if (x >= b.x() && x < b.x() + b.w() && y >= b.y() && y < b.y() + ROW) {
                return b;
            }
        }
        return null;
    }

    private void draw() {
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        GraphicsContext g = canvas.getGraphicsContext2D();
        g.setFill(Color.WHITE);
        g.fillRect(0, 0, w, h);
        boxes.clear();
        if (root == null || root.count() == 0 || w <= 0) {
            g.setFill(Color.GRAY);
            g.setTextAlign(TextAlignment.CENTER);
            g.fillText(root == null ? "no stacks" : "no events with a stack", w / 2, h / 2);
            return;
        }
        g.setFont(Font.font(11));
        g.setTextBaseline(VPos.CENTER);
        g.setTextAlign(TextAlignment.LEFT);
        double bottom = h - 4;
        // the frames from the root to the zoomed one, full width, then the zoomed frame's callees
        for (int i = 0; i < zoomPath.size() - 1; i++) {
            frame(g, zoomPath.get(i), zoomPath.subList(0, i + 1), 0, bottom - (i + 1) * ROW, w, true);
        }
        layout(g, zoom, zoomPath, 0, bottom - zoomPath.size() * ROW, w);
    }

    private void layout(GraphicsContext g, FlameGraph.Node n, List<FlameGraph.Node> path, double x, double y, double w) {
        if (w < 0.5 || y + ROW < 0) {
            return;
        }
        frame(g, n, path, x, y, w, false);
        double cx = x;
        for (FlameGraph.Node c : n.children()) {
            double cw = w * c.count() / n.count();
            List<FlameGraph.Node> p = new ArrayList<>(path);
            p.add(c);
            layout(g, c, p, cx, y - ROW, cw);
            cx += cw;
        }
    }

    private void frame(GraphicsContext g, FlameGraph.Node n, List<FlameGraph.Node> path, double x, double y, double w, boolean below) {
        boxes.add(new Box(n, List.copyOf(path), x, y, w));
        g.setFill(below ? Color.gray(0.85) : color(n.name()));
        g.fillRect(x, y, Math.max(0.5, w - 0.5), ROW - 1);
        if (w > 24) {
            String label = fit(n.name(), w - 6);
            if (!label.isEmpty()) {
                g.setFill(Color.BLACK);
                g.fillText(label, x + 3, y + ROW / 2);
            }
        }
    }

    /** The name cut to a width, with ".." when cut; empty when not even two letters fit. */
    private String fit(String name, double width) {
        measure.setText(name);
        if (measure.getLayoutBounds().getWidth() <= width) {
            return name;
        }
        int lo = 0;
        int hi = name.length();
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            measure.setText(name.substring(0, mid) + "..");
            if (measure.getLayoutBounds().getWidth() <= width) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo < 2 ? "" : name.substring(0, lo) + "..";
    }

    /** Warm colours keyed by the name, so a function keeps its colour (flamegraph.pl's "hot" palette). */
    private static Color color(String name) {
        int hsh = name.hashCode();
        double r = 205 + (hsh & 0x3f) % 50;
        double gr = 80 + ((hsh >> 8) & 0xff) % 150;
        double b = 40 + ((hsh >> 16) & 0x3f) % 40;
        return Color.rgb((int) r, (int) gr, (int) b);
    }
}
