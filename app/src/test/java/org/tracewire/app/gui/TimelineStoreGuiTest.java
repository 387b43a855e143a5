package org.tracewire.app.gui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import javafx.geometry.Bounds;
import javafx.geometry.Point2D;
import javafx.scene.canvas.Canvas;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.timeline.SliceTimeline;
import org.tracewire.app.timeline.TimelineModel;
import org.tracewire.app.timeline.TimelineText;
import org.tracewire.app.timeline.TimelineView;
import org.tracewire.app.timeline.TimelineViewModel;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * Headless, the real window: an opened pcapng's timeline over its capture store. A click on a CPU
 * lane sets marker A and scrolls the store's event table to the frame of the slice under the
 * pointer (its {@code sched_switch}); Shift+click sets marker B, and the B key moves it to the
 * cursor; the delta shown is B − A; a capture without {@code sched_switch} shows its warning.
 */
@ExtendWith(ApplicationExtension.class)
class TimelineStoreGuiTest {
    private static final double LABEL_W = 130;
    private static final double AXIS_H = 22;

    @TempDir
    static Path dir;

    @Start
    void start(Stage stage) {
        GuiTestSupport.show(stage, dir.resolve("config-" + System.nanoTime()));
    }

    private static SliceTimeline open(Path file) throws Exception {
        GuiTestSupport.fx(() -> GuiTestSupport.vm.openFile(file));
        TimelineViewModel tl = GuiTestSupport.vm.timeline();
        try {
            GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.capture().storeTableProperty().get() != null);
            // the timeline loads a store's slices once it is shown
            GuiTestSupport.fx(() -> GuiTestSupport.view.show(org.tracewire.app.main.MainView.Page.TIMELINE));
            GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.capture().storeTableProperty().get() != null
                    && tl.slicesProperty().get() != null && !GuiTestSupport.vm.capture().busyProperty().get());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no slices: store " + GuiTestSupport.vm.capture().storeTableProperty().get() + ", "
                    + GuiTestSupport.vm.capture().storeStatusProperty().get() + "; timeline: " + tl.loadingProperty().get(), e);
        }
        return tl.slicesProperty().get();
    }

    @Test
    @SuppressWarnings("unchecked")
    void clickGoesToFrameAndMarkersShowDelta(FxRobot robot) throws Exception {
        List<EventRecord> recs = FixtureRecords.load();
        Path file = FixturePcapng.write(dir.resolve("store-timeline.pcapng"), recs);
        SliceTimeline slices = open(file);
        TimelineViewModel tl = GuiTestSupport.vm.timeline();
        assertTrue(slices.size() > 100, "slices: " + slices.size());
        assertEquals(0, tl.model().size(), "the rows' timeline is dropped once the slices are in");
        robot.clickOn("Timeline");
        robot.clickOn("#timeline-fit");
        Canvas canvas = robot.lookup("#timeline-canvas")
                .queryAs(Canvas.class);
        GuiTestSupport.waitUntil(() -> canvas.getWidth() > LABEL_W + 100);
        // the lanes use the window: together they fill the canvas below the axis (each within its bounds)
        TimelineView view = robot.lookup("#timeline-view").queryAs(TimelineView.class);
        int lanes = tl.lanes().size();
        double free = canvas.getHeight() - AXIS_H - 4;
        assertTrue(lanes > 0 && lanes * view.laneHeight() > free - lanes && lanes * view.laneHeight() <= free
                        || view.laneHeight() == 400, lanes + " lanes of " + view.laneHeight() + " px in " + free + " px");
        assertTrue(view.laneHeight() > 26 || lanes * 26 > free, "lanes grow past their smallest height when they fit");
        Bounds b = canvas.localToScreen(canvas.getBoundsInLocal());
        int width = (int) (canvas.getWidth() - LABEL_W);
        double y = b.getMinY() + AXIS_H + 10; // inside lane 0 (CPU 0) at any lane height

        // a pixel of CPU 0 under a slice that is no idle
        double px = -1;
        for (int x = width / 3; x < width - 5 && px < 0; x += 2) {
            SliceTimeline.Slice s = slices.sliceAt(TimelineModel.LaneKey.cpu(0), tl.timeAt(x, width));
            if (s != null && s.pid() != 0) {
                px = x;
            }
        }
        assertTrue(px >= 0, "CPU 0 ran a task");
        robot.clickOn(new Point2D(b.getMinX() + LABEL_W + px, y));
        WaitForAsyncUtils.waitForFxEvents();
        Long a = tl.markerAProperty().get();
        assertNotNull(a, "a click sets marker A");
        SliceTimeline.Slice hit = slices.sliceAt(TimelineModel.LaneKey.cpu(0), a);
        assertNotNull(hit);
        assertTrue(hit.start() <= a && a <= hit.end());

        TableView<EventRow> table = robot.lookup("#store-table").queryAs(TableView.class);
        GuiTestSupport.waitUntil(() -> table.getSelectionModel().getSelectedItem() != null
                && table.getSelectionModel().getSelectedItem().frame() == hit.frame());
        EventRow row = table.getSelectionModel().getSelectedItem();
        assertEquals("sched:sched_switch", row.event(), "the slice's frame is the switch that began it");
        assertEquals(0, row.cpu());
        assertTrue(row.text().contains("next_pid=" + hit.pid()), row.text());
        int index = table.getSelectionModel().getSelectedIndex();
        assertEquals(hit.frame(), table.getItems().get(index).frame());

        // Shift+click: marker B; the delta shown is B - A
        double pxB = px + width / 5.0;
        robot.press(KeyCode.SHIFT).clickOn(new Point2D(b.getMinX() + LABEL_W + pxB, y)).release(KeyCode.SHIFT);
        WaitForAsyncUtils.waitForFxEvents();
        Long bm = tl.markerBProperty().get();
        assertNotNull(bm, "shift+click sets marker B");
        long span = tl.visibleEndProperty().get() - tl.visibleStartProperty().get();
        double perPixel = span / (double) width;
        assertTrue(Math.abs((bm - a) - (pxB - px) * perPixel) <= 2 * perPixel,
                "B - A is the time between the two clicks: " + (bm - a) + " ns for " + (pxB - px) + " px of " + perPixel);
        Label markers = robot.lookup("#timeline-markers").queryAs(Label.class);
        String shown = markers.getText();
        assertTrue(shown.contains("A: " + TimelineText.traceTime(a) + " s"), shown);
        assertTrue(shown.contains("B: " + TimelineText.traceTime(bm) + " s"), shown);
        assertTrue(shown.endsWith("Δ(B−A): " + TimelineText.duration(bm - a)), shown);
        assertTrue(TimelineText.traceTime(a).matches("[0-9]+\\.[0-9]{6}"), "seconds.microseconds since boot");
        assertTrue(a < 1_000_000_000_000_000L, "the trace clock (since boot), not the wall clock: " + a);

        // the B key puts marker B at the cursor
        double pxC = px + width / 10.0;
        robot.moveTo(new Point2D(b.getMinX() + LABEL_W + pxC, y));
        WaitForAsyncUtils.waitForFxEvents();
        Long cursor = tl.cursorProperty().get();
        assertNotNull(cursor);
        assertTrue(canvas.isFocused(), "the canvas has the focus after a click: " + canvas.getScene().getFocusOwner());
        robot.push(KeyCode.B);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(cursor, tl.markerBProperty().get());
        assertTrue(markers.getText().endsWith("Δ(B−A): " + TimelineText.duration(cursor - a)), markers.getText());
        Label warning = robot.lookup("#timeline-warning").queryAs(Label.class);
        assertTrue(!warning.getText().contains("filtered"), warning.getText());
    }

    @Test
    void captureWithoutSwitchIsWarned(FxRobot robot) throws Exception {
        List<EventRecord> kept = FixtureRecords.load().stream().filter(r -> !r.format().name().equals("sched_switch")).toList();
        SliceTimeline slices = open(FixturePcapng.write(dir.resolve("noswitch.pcapng"), kept));
        assertEquals(0, slices.size());
        robot.clickOn("Timeline");
        Label warning = robot.lookup("#timeline-warning").queryAs(Label.class);
        GuiTestSupport.waitUntil(warning::isVisible);
        assertTrue(warning.getText().contains("no sched:sched_switch in this capture"), warning.getText());
    }
}
