package org.tracewire.app.gui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import javafx.geometry.Bounds;
import javafx.geometry.Point2D;
import javafx.geometry.VerticalDirection;
import javafx.scene.canvas.Canvas;
import javafx.scene.input.MouseButton;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.timeline.TimelineModel;
import org.tracewire.app.timeline.TimelineViewModel;

/**
 * Headless: the timeline of an opened capture fed by its rows (a trace.dat: no store) in the real window. The mouse wheel zooms around the
 * pointer, dragging zooms to the dragged range, a click on a lane selects the event under the
 * pointer in the event table, and a row selected in the table is marked in the timeline.
 */
@ExtendWith(ApplicationExtension.class)
class TimelineGuiTest {
    /** Pixels of the label column and the time axis (TimelineView's layout). */
    private static final double LABEL_W = 130;
    private static final double AXIS_H = 22;
    private static final double LANE_H = 26;

    @TempDir
    static Path dir;

    @Start
    void start(Stage stage) {
        GuiTestSupport.show(stage, dir.resolve("config-" + System.nanoTime()));
    }

    @Test
    void zoomAndClickThrough(FxRobot robot) throws Exception {
        // a trace.dat: no capture store, so the timeline is the rows' (the path of a live capture)
        Path file = org.tracewire.app.capture.TestRows.schedDat(dir);
        int events = org.tracewire.app.capture.TestRows.schedReport().size();
        GuiTestSupport.fx(() -> GuiTestSupport.vm.openFile(file));
        TimelineViewModel tl = GuiTestSupport.vm.timeline();
        WaitForAsyncUtils.waitFor(60, java.util.concurrent.TimeUnit.SECONDS, () -> {
            WaitForAsyncUtils.waitForFxEvents();
            return tl.model().size() == events && !GuiTestSupport.vm.capture().busyProperty().get();
        });
        assertEquals(null, tl.slicesProperty().get(), "no store for a trace.dat");
        robot.clickOn("Timeline");
        robot.clickOn("#timeline-fit");
        // the timeline's canvas (the latency chart and the flame graph draw on canvases too)
        Canvas canvas = robot.lookup("#timeline-canvas")
                .queryAs(Canvas.class);
        GuiTestSupport.waitUntil(() -> canvas.getWidth() > LABEL_W + 100);
        long s0 = tl.visibleStartProperty().get();
        long e0 = tl.visibleEndProperty().get();
        assertTrue(e0 > s0, "a visible range after Fit");

        // wheel: zooms in around the pointer
        Bounds b = canvas.localToScreen(canvas.getBoundsInLocal());
        double plotW = canvas.getWidth() - LABEL_W;
        Point2D mid = new Point2D(b.getMinX() + LABEL_W + plotW / 2, b.getMinY() + AXIS_H + LANE_H / 2);
        robot.moveTo(mid).scroll(3, VerticalDirection.UP);
        WaitForAsyncUtils.waitForFxEvents();
        long w1 = tl.visibleEndProperty().get() - tl.visibleStartProperty().get();
        assertNotEquals(e0 - s0, w1, "the wheel changed the visible range");
        if (w1 > e0 - s0) {
            // a platform whose wheel-up means "out": the other direction must then zoom in
            robot.scroll(6, VerticalDirection.DOWN);
            WaitForAsyncUtils.waitForFxEvents();
            w1 = tl.visibleEndProperty().get() - tl.visibleStartProperty().get();
        }
        assertTrue(w1 < e0 - s0, "zoomed in: " + w1 + " ns visible of " + (e0 - s0));

        // drag: zooms to the dragged range (a quarter of the plot); the plot's bounds read again,
        // as the window's layout may have grown the canvas since
        robot.clickOn("#timeline-fit");
        WaitForAsyncUtils.waitForFxEvents();
        long before = tl.visibleEndProperty().get() - tl.visibleStartProperty().get();
        Bounds bd = canvas.localToScreen(canvas.getBoundsInLocal());
        double plotWd = canvas.getWidth() - LABEL_W;
        double x0 = bd.getMinX() + LABEL_W + plotWd * 0.25;
        double x1 = bd.getMinX() + LABEL_W + plotWd * 0.50;
        robot.drag(new Point2D(x0, mid.getY()), MouseButton.PRIMARY).dropTo(new Point2D(x1, mid.getY()));
        WaitForAsyncUtils.waitForFxEvents();
        long after = tl.visibleEndProperty().get() - tl.visibleStartProperty().get();
        assertTrue(Math.abs(after - before / 4.0) < before * 0.02,
                "dragging a quarter of the plot shows a quarter of the time: " + after + " of " + before);

        // click-through: find a pixel of lane 0 with an event under it, click it, the table selects it
        robot.clickOn("#timeline-fit");
        List<TimelineModel.LaneKey> lanes = tl.lanes();
        long vs = tl.visibleStartProperty().get();
        long ve = tl.visibleEndProperty().get();
        int width = (int) plotW;
        int expected = -1;
        double px = -1;
        for (int x = 5; x < width - 5 && expected < 0; x += 3) {
            expected = tl.model().hit(lanes.get(0), vs, ve, width, x, 3);
            px = x;
        }
        assertTrue(expected >= 0, "lane 0 has events");
        robot.clickOn(new Point2D(b.getMinX() + LABEL_W + px, b.getMinY() + AXIS_H + LANE_H / 2));
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(expected, tl.selectedProperty().get(), "the event under the pointer is selected");
        EventRow row = GuiTestSupport.vm.capture().table().selectedProperty().get();
        assertNotNull(row, "the click selected a row of the event table");
        assertEquals(tl.model().ts(expected), row.ts());
        assertEquals(tl.model().cpu(expected), row.cpu());
        assertEquals(tl.model().event(expected), row.event());

        // and back: a row selected in the table is marked in the timeline
        List<EventRow> rows = GuiTestSupport.vm.capture().table().rows();
        EventRow other = rows.get(rows.size() / 2);
        GuiTestSupport.fx(() -> GuiTestSupport.vm.capture().table().selectedProperty().set(other));
        GuiTestSupport.waitUntil(() -> tl.selectedProperty().get() != null && tl.selectedProperty().get() >= 0
                && tl.model().ts(tl.selectedProperty().get()) == other.ts());
        int marked = tl.selectedProperty().get();
        assertEquals(other.cpu(), tl.model().cpu(marked));
        assertEquals(other.event(), tl.model().event(marked));
    }
}
