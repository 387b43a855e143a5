package org.tracewire.app.timeline;

import java.util.List;
import javafx.animation.AnimationTimer;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.input.MouseButton;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Pane;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;

/**
 * The timeline: one lane per CPU (tasks as slices, other events as ticks) and task lanes on demand,
 * drawn on one {@link Canvas} from {@link TimelineModel#frame} (at most one item per lane and pixel
 * column). Wheel: zoom at the pointer; drag: zoom to the range; Shift+drag or the middle button: pan;
 * hover: details below; click: selects the event (and its row in the event table); double-click on
 * a slice: adds the task's lane. Redraws at most once per pulse, only when something changed.
 */
public final class TimelineView extends BorderPane {
    /** Width of the lane labels. */
    static final double LABEL_W = 130;
    /** Height of a lane. */
    static final double LANE_H = 26;
    private static final double AXIS_H = 22;

    private final TimelineViewModel vm;
    private final Canvas canvas = new Canvas();
    private final AnimationTimer pulse;
    private boolean dirty = true;
    private double dragFrom = Double.NaN;
    private double dragTo = Double.NaN;
    private double panFrom = Double.NaN;

    /** @param vm the view model */
    public TimelineView(TimelineViewModel vm) {
        this.vm = vm;
        setId("timeline-view");
        Pane holder = new Pane(canvas);
        holder.setMinSize(200, 100);
        canvas.widthProperty().bind(holder.widthProperty());
        canvas.heightProperty().bind(holder.heightProperty());
        canvas.widthProperty().addListener(o -> dirty = true);
        canvas.heightProperty().addListener(o -> dirty = true);
        vm.visibleStartProperty().addListener(o -> dirty = true);
        vm.visibleEndProperty().addListener(o -> dirty = true);
        vm.versionProperty().addListener(o -> dirty = true);
        vm.selectedProperty().addListener(o -> dirty = true);
        vm.getTaskLanes().addListener((javafx.collections.ListChangeListener<Integer>) c -> dirty = true);

        Button fit = new Button("Fit");
        fit.setId("timeline-fit");
        fit.setOnAction(e -> vm.fit());
        fit.setTooltip(new javafx.scene.control.Tooltip("Shows the whole capture"));
        Button in = new Button("+");
        in.setOnAction(e -> vm.zoom(0.5, 0.5));
        in.setTooltip(new javafx.scene.control.Tooltip("Zoom in (mouse wheel up)"));
        Button out = new Button("−");
        out.setOnAction(e -> vm.zoom(2, 0.5));
        out.setTooltip(new javafx.scene.control.Tooltip("Zoom out (mouse wheel down)"));
        Button left = new Button("◀");
        left.setOnAction(e -> vm.pan(-0.25));
        left.setTooltip(new javafx.scene.control.Tooltip("Pan to earlier events (Shift+drag)"));
        Button right = new Button("▶");
        right.setOnAction(e -> vm.pan(0.25));
        right.setTooltip(new javafx.scene.control.Tooltip("Pan to later events (Shift+drag)"));
        TextField task = new TextField();
        task.setId("timeline-task");
        task.setPromptText("pid");
        task.setPrefColumnCount(6);
        task.setTooltip(new javafx.scene.control.Tooltip("A pid: Add task lane shows when that task ran, on any CPU"));
        Button addTask = new Button("Add task lane");
        addTask.setOnAction(e -> {
            try {
                vm.addTaskLane(Integer.parseInt(task.getText().strip()));
            } catch (NumberFormatException ex) {
                vm.hoverProperty().set("a task lane needs a pid");
            }
        });
        Label help = new Label("wheel: zoom · drag: zoom to range · shift+drag: pan · click: select · double-click a slice: task lane");
        help.setStyle("-fx-text-fill: #555;");
        HBox bar = new HBox(6, fit, in, out, left, right, new Label("  Task:"), task, addTask, help);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setPadding(new Insets(4));
        Label hover = new Label();
        hover.setId("timeline-hover");
        hover.textProperty().bind(vm.hoverProperty());
        hover.setPadding(new Insets(3, 6, 3, 6));
        hover.setStyle("-fx-font-family: monospace;");
        setTop(bar);
        setCenter(holder);
        setBottom(hover);

        canvas.setOnScroll(e -> {
            if (e.getDeltaY() == 0) {
                return;
            }
            vm.zoom(e.getDeltaY() > 0 ? 0.8 : 1.25, frac(e.getX()));
        });
        canvas.setOnMousePressed(e -> {
            if (e.getX() < LABEL_W) {
                return;
            }
            if (e.isShiftDown() || e.getButton() == MouseButton.MIDDLE) {
                panFrom = e.getX();
            } else if (e.getButton() == MouseButton.PRIMARY) {
                dragFrom = e.getX();
                dragTo = e.getX();
            }
        });
        canvas.setOnMouseDragged(e -> {
            if (!Double.isNaN(panFrom)) {
                vm.pan((panFrom - e.getX()) / plotWidth());
                panFrom = e.getX();
            } else if (!Double.isNaN(dragFrom)) {
                dragTo = Math.max(LABEL_W, e.getX());
                dirty = true;
            }
        });
        canvas.setOnMouseReleased(e -> {
            if (!Double.isNaN(dragFrom) && Math.abs(dragTo - dragFrom) > 4) {
                vm.zoomTo(frac(dragFrom), frac(dragTo));
            } else if (!Double.isNaN(dragFrom)) {
                vm.click(laneAt(e.getY()), e.getX() - LABEL_W, (int) plotWidth());
            }
            dragFrom = Double.NaN;
            panFrom = Double.NaN;
            dirty = true;
        });
        canvas.setOnMouseClicked(e -> {
            if (e.getClickCount() == 2 && e.getX() > LABEL_W) {
                int lane = laneAt(e.getY());
                List<TimelineModel.LaneKey> lanes = vm.lanes();
                if (lane >= 0 && lane < lanes.size()) {
                    long t = vm.visibleStartProperty().get()
                            + (long) ((vm.visibleEndProperty().get() - vm.visibleStartProperty().get()) * frac(e.getX()));
                    long[] s = vm.model().sliceAt(lanes.get(lane), t);
                    if (s != null && s[2] > 0) {
                        vm.addTaskLane((int) s[2]);
                    }
                }
            }
        });
        canvas.setOnMouseMoved(e -> vm.hover(laneAt(e.getY()), e.getX() - LABEL_W, (int) plotWidth()));

        pulse = new AnimationTimer() {
            @Override
            public void handle(long now) {
                if (dirty) {
                    dirty = false;
                    draw();
                }
            }
        };
        pulse.start();
    }

    private double plotWidth() {
        return Math.max(1, canvas.getWidth() - LABEL_W);
    }

    private double frac(double x) {
        return Math.max(0, Math.min(1, (x - LABEL_W) / plotWidth()));
    }

    private int laneAt(double y) {
        return (int) Math.floor((y - AXIS_H) / LANE_H);
    }

    /** A task's colour: a hue from its pid. */
    static Color color(int pid) {
        if (pid == TimelineModel.SEVERAL) {
            return Color.gray(0.45);
        }
        double hue = (pid * 137.508) % 360;
        return Color.hsb(hue, 0.55, 0.85);
    }

    private void draw() {
        GraphicsContext g = canvas.getGraphicsContext2D();
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        g.setFill(Color.WHITE);
        g.fillRect(0, 0, w, h);
        int width = (int) plotWidth();
        long s = vm.visibleStartProperty().get();
        long e = vm.visibleEndProperty().get();
        TimelineModel m = vm.model();
        List<TimelineModel.LaneKey> lanes = vm.lanes();
        g.setFont(Font.font(11));
        // axis
        g.setFill(Color.web("#f0f3f7"));
        g.fillRect(0, 0, w, AXIS_H);
        g.setFill(Color.BLACK);
        if (m.size() == 0) {
            g.fillText("No events yet: start a capture with sched:sched_switch (and others) on the Capture page", LABEL_W + 10, AXIS_H + 20);
            return;
        }
        // ticks at least 110 px apart, on 1/2/5 × 10^k ns, labelled from the first event (s)
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
        long base = m.start();
        double first = Math.ceil((s - base) / step) * step;
        for (double t = first; base + t <= e; t += step) {
            double x = LABEL_W + (base + t - s) / span * width;
            g.setStroke(Color.web("#c8d0da"));
            g.strokeLine(x, AXIS_H - 5, x, h);
            g.fillText(formatSeconds(t / 1e9, step / 1e9), x + 2, AXIS_H - 7);
        }
        List<TimelineModel.LaneFrame> frames = m.frame(s, e, width, lanes);
        for (int li = 0; li < lanes.size(); li++) {
            double y = AXIS_H + li * LANE_H;
            g.setFill(li % 2 == 0 ? Color.web("#fafbfc") : Color.WHITE);
            g.fillRect(LABEL_W, y, width, LANE_H);
            g.setFill(Color.BLACK);
            g.fillText(vm.label(lanes.get(li)), 6, y + LANE_H * 0.65);
            TimelineModel.LaneFrame f = frames.get(li);
            for (int k = 0; k < f.segments; k++) {
                g.setFill(color(f.segPid[k]));
                g.fillRect(LABEL_W + f.segX0[k], y + 3, f.segX1[k] - f.segX0[k], LANE_H - 12);
                if (f.segX1[k] - f.segX0[k] > 40 && f.segPid[k] > 0) {
                    g.setFill(Color.BLACK);
                    g.fillText(m.comm(f.segPid[k]), LABEL_W + f.segX0[k] + 2, y + 15, f.segX1[k] - f.segX0[k] - 4);
                }
            }
            g.setStroke(Color.web("#203040"));
            for (int k = 0; k < f.markColumns; k++) {
                double x = LABEL_W + f.markX[k] + 0.5;
                double len = Math.min(8, 3 + Math.log(f.markCount[k]) * 1.5);
                g.strokeLine(x, y + LANE_H - 1, x, y + LANE_H - 1 - len);
            }
        }
        Integer sel = vm.selectedProperty().get();
        if (sel != null && sel < m.size()) {
            double x = LABEL_W + (m.ts(sel) - s) / (double) (e - s) * width;
            if (x >= LABEL_W && x <= w) {
                g.setStroke(Color.RED);
                g.setLineWidth(1.5);
                g.strokeLine(x, AXIS_H, x, AXIS_H + lanes.size() * LANE_H);
                g.setLineWidth(1);
            }
        }
        if (!Double.isNaN(dragFrom) && Math.abs(dragTo - dragFrom) > 1) {
            g.setFill(Color.rgb(40, 110, 220, 0.2));
            g.fillRect(Math.min(dragFrom, dragTo), AXIS_H, Math.abs(dragTo - dragFrom), lanes.size() * LANE_H);
        }
        g.setFill(Color.gray(0.3));
        g.fillText(String.format("%,d events%s", m.size(), m.dropped() > 0 ? String.format(" (%,d older dropped)", m.dropped()) : ""),
                6, AXIS_H - 7);
    }

    private static String formatSeconds(double t, double step) {
        int decimals = (int) Math.max(0, Math.min(9, Math.ceil(-Math.log10(step) - 1e-9)));
        return String.format("%." + decimals + "f s", t);
    }

    /** Stops the redraw pulse. */
    public void dispose() {
        pulse.stop();
    }
}
