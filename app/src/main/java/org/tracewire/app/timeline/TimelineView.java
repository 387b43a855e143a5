package org.tracewire.app.timeline;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import javafx.animation.AnimationTimer;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollBar;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.input.MouseButton;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Pane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;

/**
 * The timeline: one lane per CPU and task lanes on demand, drawn on one {@link Canvas}. Over an
 * opened file's store, every slice of the capture from {@link SliceTimeline#columns} (per pixel
 * column the task that ran most of it, grey for many tasks, hatched where who ran is unknown; task
 * names inside slices where they fit); otherwise the rows' {@link TimelineModel#frame} (slices and
 * event ticks). Lanes share the window's height ({@link LaneLayout}: a few lanes fill it, many scroll,
 * with the bar at the right or the wheel over the lane names). Wheel: zoom at the pointer; drag: zoom to the
 * range; Shift+drag or the middle button: pan; hover: the cursor and details below; click: marker A
 * and the slice's (or event's) row in the event table; Shift+click, or the B key: marker B (A key:
 * marker A at the cursor; Esc clears both); the delta B−A is shown above the lanes; double-click on
 * a slice: adds the task's lane. Redraws at most once per pulse, only when something changed.
 */
public final class TimelineView extends BorderPane {
    /** Width of the lane labels. */
    static final double LABEL_W = 130;
    private static final double AXIS_H = LaneLayout.AXIS_H;

    private final TimelineViewModel vm;
    private final Canvas canvas = new Canvas();
    /** Scrolls the lanes when they do not fit at their smallest height ({@link LaneLayout}). */
    private final ScrollBar laneBar = new ScrollBar();
    private final AnimationTimer pulse;
    private boolean dirty = true;
    private LongConsumer onDrawn = ns -> { };
    private double dragFrom = Double.NaN;
    private double dragTo = Double.NaN;
    private double panFrom = Double.NaN;
    private double pressX = Double.NaN;
    /** The columns of the last redraw, reused while only the cursor, markers or selection moved. */
    private final Map<TimelineModel.LaneKey, int[][]> columnCache = new HashMap<>();
    private Object columnKey;
    private final ColumnAccumulator acc = new ColumnAccumulator();

    /** @param vm the view model */
    public TimelineView(TimelineViewModel vm) {
        this.vm = vm;
        setId("timeline-view");
        canvas.setId("timeline-canvas");
        Pane holder = new Pane(canvas);
        holder.setMinSize(200, 100);
        canvas.widthProperty().bind(holder.widthProperty());
        canvas.heightProperty().bind(holder.heightProperty());
        redrawOnChange();
        keys();

        Label hover = top();
        HBox.setHgrow(holder, Priority.ALWAYS);
        laneBar.setMaxHeight(Double.MAX_VALUE);
        setCenter(new HBox(holder, laneBar));
        setBottom(hover);

        mouse();
        releaseAndClick();

        pulse = new AnimationTimer() {
            @Override
            public void handle(long now) {
                if (dirty) {
                    dirty = false;
                    long t = System.nanoTime();
                    draw();
                    onDrawn.accept(System.nanoTime() - t);
                }
            }
        };
        pulse.start();
    }

    /** The lane bar; any change of the view model, the canvas's size or the lane bar asks for a redraw. */
    private void redrawOnChange() {
        canvas.widthProperty().addListener(o -> dirty = true);
        canvas.heightProperty().addListener(o -> dirty = true);
        laneBar.setOrientation(Orientation.VERTICAL);
        laneBar.setId("timeline-lane-scroll");
        laneBar.setMin(0);
        laneBar.valueProperty().addListener(o -> dirty = true);
        laneBar.managedProperty().bind(laneBar.visibleProperty());
        laneBar.setVisible(false);
        vm.visibleStartProperty().addListener(o -> dirty = true);
        vm.visibleEndProperty().addListener(o -> dirty = true);
        vm.versionProperty().addListener(o -> dirty = true);
        vm.selectedProperty().addListener(o -> dirty = true);
        vm.getTaskLanes().addListener((ListChangeListener<Integer>) c -> dirty = true);
        vm.slicesProperty().addListener(o -> dirty = true);
        vm.cursorProperty().addListener(o -> dirty = true);
        vm.markerAProperty().addListener(o -> dirty = true);
        vm.markerBProperty().addListener(o -> dirty = true);
    }

    /** A and B set the markers at the cursor, Esc clears them. */
    private void keys() {
        canvas.setFocusTraversable(true);
        canvas.setOnKeyPressed(e -> {
            Long c = vm.cursorProperty().get();
            if (e.getCode() == KeyCode.A && c != null) {
                vm.markerAProperty().set(c);
            } else if (e.getCode() == KeyCode.B && c != null) {
                vm.markerBProperty().set(c);
            } else if (e.getCode() == KeyCode.ESCAPE) {
                vm.markerAProperty().set(null);
                vm.markerBProperty().set(null);
            } else {
                return;
            }
            e.consume();
        });
    }

    /** Fit, zoom and pan buttons, the task lane box, the markers' delta and the loading text. */
    private HBox toolBar() {
        Button fit = new Button("Fit");
        fit.setId("timeline-fit");
        fit.setOnAction(e -> vm.fit());
        fit.setTooltip(new Tooltip("Shows the whole capture"));
        Button in = new Button("+");
        in.setOnAction(e -> vm.zoom(0.5, 0.5));
        in.setTooltip(new Tooltip("Zoom in (mouse wheel up)"));
        Button out = new Button("−");
        out.setOnAction(e -> vm.zoom(2, 0.5));
        out.setTooltip(new Tooltip("Zoom out (mouse wheel down)"));
        Button left = new Button("◀");
        left.setOnAction(e -> vm.pan(-0.25));
        left.setTooltip(new Tooltip("Pan to earlier events (Shift+drag)"));
        Button right = new Button("▶");
        right.setOnAction(e -> vm.pan(0.25));
        right.setTooltip(new Tooltip("Pan to later events (Shift+drag)"));
        TextField task = new TextField();
        task.setId("timeline-task");
        task.setPromptText("pid");
        task.setPrefColumnCount(6);
        task.setTooltip(new Tooltip("A pid: Add task lane shows when that task ran, on any CPU"));
        Button addTask = new Button("Add task lane");
        addTask.setOnAction(e -> {
            try {
                vm.addTaskLane(Integer.parseInt(task.getText().strip()));
            } catch (NumberFormatException ex) {
                vm.hoverProperty().set("a task lane needs a pid");
            }
        });
        Label markers = new Label();
        markers.setId("timeline-markers");
        markers.textProperty().bind(vm.markersText());
        markers.setStyle("-fx-font-family: monospace; -fx-font-weight: bold;");
        Label loading = new Label();
        loading.setId("timeline-loading");
        loading.textProperty().bind(vm.loadingProperty());
        loading.setStyle("-fx-text-fill: #555;");
        for (Button bt : new Button[] {fit, in, out, left, right, addTask}) {
            bt.setMinWidth(Region.USE_PREF_SIZE);
        }
        HBox bar = new HBox(6, fit, in, out, left, right, new Label("  Task:"), task, addTask, markers, loading);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setPadding(new Insets(4));
        return bar;
    }

    /** The top (tool bar, help, the sched_switch warning); returns the hover line for the bottom. */
    private Label top() {
        Label help = new Label("wheel: zoom · drag: zoom to range · shift+drag: pan · click: marker A + table row ·"
                + " shift+click or B: marker B · Esc: clear · double-click a slice: task lane");
        help.setStyle("-fx-text-fill: #555;");
        Label hover = new Label();
        hover.setId("timeline-hover");
        hover.textProperty().bind(vm.hoverProperty());
        hover.setPadding(new Insets(3, 6, 3, 6));
        hover.setStyle("-fx-font-family: monospace;");
        Label warning = new Label();
        warning.setId("timeline-warning");
        warning.setWrapText(true);
        warning.textProperty().bind(vm.warningProperty().map(w -> w.isEmpty() ? "" : "⚠ " + w));
        warning.visibleProperty().bind(vm.warningProperty().isNotEmpty());
        warning.managedProperty().bind(warning.visibleProperty());
        warning.setStyle("-fx-background-color: #fff3cd; -fx-text-fill: #6b4e00; -fx-padding: 3 6 3 6;");
        HBox info = new HBox(16, help);
        info.setAlignment(Pos.CENTER_LEFT);
        info.setPadding(new Insets(0, 6, 2, 6));
        setTop(new VBox(toolBar(), info, warning));
        return hover;
    }

    /** Wheel (zoom, or scroll the lanes over their labels), press, drag and hover. */
    private void mouse() {
        canvas.setOnScroll(e -> {
            if (e.getDeltaY() == 0) {
                return;
            }
            if (e.getX() < LABEL_W && laneBar.isVisible()) { // over the lane labels: scroll the lanes
                laneBar.setValue(laneLayout().clamp(laneBar.getValue() - e.getDeltaY()));
                return;
            }
            vm.zoom(e.getDeltaY() > 0 ? 0.8 : 1.25, frac(e.getX()));
        });
        canvas.setOnMousePressed(e -> {
            if (e.getX() < LABEL_W) {
                return;
            }
            canvas.requestFocus();
            e.consume(); // else the tab pane takes the focus back (its behaviour focuses it on a press)
            pressX = e.getX();
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
    }

    /** Release (zoom to the dragged range, or marker A / B and the table row) and double-click (a task lane). */
    private void releaseAndClick() {
        canvas.setOnMouseReleased(e -> {
            if (!Double.isNaN(dragFrom) && Math.abs(e.getX() - dragFrom) > 4) {
                dragTo = Math.max(LABEL_W, e.getX()); // where the button came up, not the last drag event
            }
            if (!Double.isNaN(dragFrom) && Math.abs(dragTo - dragFrom) > 4) {
                vm.zoomTo(frac(dragFrom), frac(dragTo));
            } else if (!Double.isNaN(dragFrom)) {
                vm.setMarkerA(e.getX() - LABEL_W, (int) plotWidth());
                vm.click(laneAt(e.getY()), e.getX() - LABEL_W, (int) plotWidth());
            } else if (!Double.isNaN(panFrom) && e.isShiftDown() && e.getButton() == MouseButton.PRIMARY
                    && Math.abs(e.getX() - pressX) <= 4 && e.getX() >= LABEL_W) {
                vm.setMarkerB(e.getX() - LABEL_W, (int) plotWidth());
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
                    SliceTimeline st = vm.slicesProperty().get();
                    if (st != null) {
                        SliceTimeline.Slice sl = st.sliceAt(lanes.get(lane), t);
                        if (sl != null && sl.pid() > 0) {
                            vm.addTaskLane(sl.pid());
                        }
                        return;
                    }
                    long[] s = vm.model().sliceAt(lanes.get(lane), t);
                    if (s != null && s[2] > 0) {
                        vm.addTaskLane((int) s[2]);
                    }
                }
            }
        });
        canvas.setOnMouseMoved(e -> vm.hover(laneAt(e.getY()), e.getX() - LABEL_W, (int) plotWidth()));
    }

    /**
     * Receives the time of each redraw of the canvas, in ns, on the UI thread (the app's
     * {@code TRACEWIRE_TIMING=tour}).
     *
     * @param ns the receiver
     */
    public void setOnDrawn(LongConsumer ns) {
        onDrawn = ns;
    }

    private double plotWidth() {
        return Math.max(1, canvas.getWidth() - LABEL_W);
    }

    private double frac(double x) {
        return Math.max(0, Math.min(1, (x - LABEL_W) / plotWidth()));
    }

    private int laneAt(double y) {
        return laneLayout().laneAt(y, laneBar.getValue());
    }

    /** The lanes' layout on the canvas now: they share its height ({@link LaneLayout}). */
    LaneLayout laneLayout() {
        return new LaneLayout(canvas.getHeight(), vm.lanes().size());
    }

    /** Each lane's height now (pixels): the canvas's height shared, within {@link LaneLayout}'s bounds. */
    public double laneHeight() {
        return laneLayout().laneHeight();
    }

    /** The scroll bar of the lanes (shown when they do not fit at their smallest height). */
    public ScrollBar laneScrollBar() {
        return laneBar;
    }

    /** The scroll bar follows the layout: shown when the lanes do not fit, its range their excess height. */
    private void syncLaneBar(LaneLayout l) {
        double max = l.maxScroll();
        laneBar.setVisible(max > 0);
        laneBar.setMax(max);
        laneBar.setVisibleAmount(max <= 0 ? 0 : max * l.available() / l.contentHeight());
        laneBar.setUnitIncrement(l.laneHeight());
        laneBar.setBlockIncrement(Math.max(l.laneHeight(), l.available() - l.laneHeight()));
        if (laneBar.getValue() > max) {
            laneBar.setValue(max);
        }
    }

    /** What one redraw shows: the span {@code [s, e)} (ns, trace clock) over {@code width} columns, its lanes and their source. */
    private record Scene(long s, long e, int width, List<TimelineModel.LaneKey> lanes, TimelineModel m, SliceTimeline st) {
    }

    /** The whole canvas: background, axis, the lanes in sight, then cursor, markers, drag range and the count. */
    private void draw() {
        GraphicsContext g = canvas.getGraphicsContext2D();
        double h = canvas.getHeight();
        Scene sc = new Scene(vm.visibleStartProperty().get(), vm.visibleEndProperty().get(), (int) plotWidth(),
                vm.lanes(), vm.model(), vm.slicesProperty().get());
        LaneLayout layout = new LaneLayout(h, sc.lanes().size());
        syncLaneBar(layout);
        double scroll = layout.clamp(laneBar.getValue());
        drawBackground(g);
        if (sc.st() == null && sc.m().size() == 0) {
            g.fillText("No events yet: start a capture with sched:sched_switch (and others) on the Capture page", LABEL_W + 10, AXIS_H + 20);
            return;
        }
        AxisPainter.axis(g, sc.s(), sc.e(), sc.width(), h);
        double lanesBottom = Math.min(h, layout.laneTop(sc.lanes().size(), scroll));
        drawLanes(g, sc, layout, scroll);
        drawOverlays(g, sc, lanesBottom);
        drawCount(g, sc);
    }

    /** White canvas, the axis band, the font and a black fill for the text that follows. */
    private void drawBackground(GraphicsContext g) {
        double w = canvas.getWidth();
        g.setFill(Color.WHITE);
        g.fillRect(0, 0, w, canvas.getHeight());
        g.setFont(Font.font(11));
        g.setFill(Color.web("#f0f3f7"));
        g.fillRect(0, 0, w, AXIS_H);
        g.setFill(Color.BLACK);
    }

    /** The lanes in sight (label, stripe, content), clipped below the axis: lanes scrolled up pass under it. */
    private void drawLanes(GraphicsContext g, Scene sc, LaneLayout layout, double scroll) {
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        double laneH = layout.laneHeight();
        List<LaneFrame> frames = sc.st() == null ? sc.m().frame(sc.s(), sc.e(), sc.width(), sc.lanes()) : null;
        List<Object> key = List.of(sc.st() == null ? "" : sc.st(), sc.s(), sc.e(), sc.width());
        if (!key.equals(columnKey)) {
            columnCache.clear();
            columnKey = key;
        }
        g.save();
        g.beginPath();
        g.rect(0, AXIS_H, w, Math.max(0, h - AXIS_H));
        g.clip();
        for (int li = 0; li < sc.lanes().size(); li++) {
            double y = layout.laneTop(li, scroll);
            if (y + laneH <= AXIS_H || y >= h) {
                continue; // scrolled out of sight
            }
            g.setFill(li % 2 == 0 ? Color.web("#fafbfc") : Color.WHITE);
            g.fillRect(LABEL_W, y, sc.width(), laneH);
            g.setFill(Color.BLACK);
            g.fillText(vm.label(sc.lanes().get(li)), 6, y + laneH / 2 + 4, LABEL_W - 10);
            if (sc.st() != null) {
                int[][] cols = columns(sc, sc.lanes().get(li));
                LanePainter.columns(g, sc.st(), cols[0], cols[1], LABEL_W, y, laneH, sc.width());
            } else {
                LanePainter.rows(g, sc.m(), frames.get(li), LABEL_W, y, laneH);
            }
        }
        g.restore();
    }

    /** A lane's columns over the scene's span ({@link SliceTimeline#columns}: task and name ids), cached per redraw key. */
    private int[][] columns(Scene sc, TimelineModel.LaneKey lane) {
        return columnCache.computeIfAbsent(lane, k -> {
            int[][] c = {new int[sc.width()], new int[sc.width()]};
            sc.st().columns(k, sc.s(), sc.e(), sc.width(), c[0], c[1], acc);
            return c;
        });
    }

    /** Over the lanes: the selected row's time, the cursor, markers A and B, and the range being dragged. */
    private void drawOverlays(GraphicsContext g, Scene sc, double lanesBottom) {
        long s = sc.s();
        long e = sc.e();
        int width = sc.width();
        Integer sel = vm.selectedProperty().get();
        if (sc.st() == null && sel != null && sel < sc.m().size()) {
            AxisPainter.vline(g, sc.m().ts(sel), s, e, width, Color.RED, 1.5, lanesBottom);
        }
        Long cur = vm.cursorProperty().get();
        if (cur != null) {
            AxisPainter.vline(g, cur, s, e, width, Color.gray(0.35, 0.7), 1, lanesBottom);
        }
        AxisPainter.marker(g, vm.markerAProperty().get(), "A", Color.web("#1a8f3a"), s, e, width, lanesBottom);
        AxisPainter.marker(g, vm.markerBProperty().get(), "B", Color.web("#1f5fd6"), s, e, width, lanesBottom);
        if (!Double.isNaN(dragFrom) && Math.abs(dragTo - dragFrom) > 1) {
            g.setFill(Color.rgb(40, 110, 220, 0.2));
            g.fillRect(Math.min(dragFrom, dragTo), AXIS_H, Math.abs(dragTo - dragFrom), Math.max(0, lanesBottom - AXIS_H));
        }
    }

    /** Above the lane labels: how many slices (all of the capture) or events (and older ones dropped) there are. */
    private void drawCount(GraphicsContext g, Scene sc) {
        TimelineModel m = sc.m();
        g.setFill(Color.gray(0.3));
        g.fillText(sc.st() != null ? String.format("%,d slices (all)", sc.st().size())
                        : String.format("%,d events%s", m.size(), m.dropped() > 0 ? String.format(" (%,d older dropped)", m.dropped()) : ""),
                6, AXIS_H - 7, LABEL_W - 8);
    }

    /** Stops the redraw pulse. */
    public void dispose() {
        pulse.stop();
    }
}
