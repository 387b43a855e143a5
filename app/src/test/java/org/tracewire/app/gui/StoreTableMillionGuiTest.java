package org.tracewire.app.gui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import javafx.scene.Node;
import javafx.scene.control.ScrollBar;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.input.KeyCode;
import javafx.scene.input.ScrollEvent;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.WindowedTable;
import org.tracewire.input.PcapngInput;

/**
 * Headless, in the real window: a pcapng of over a million real records (the ring-buffer fixture,
 * repeated) opened over its store. Go to frame (Ctrl+G) of a frame three quarters in selects the
 * row of that frame and shows it; the keys move the selection across the edges of the rows shown;
 * dragging the table's scroll bar to its end shows the file's last frame; the wheel scrolls by
 * rows. Frame numbers come from one read of the file ({@link PcapngInput}).
 */
@ExtendWith(ApplicationExtension.class)
class StoreTableMillionGuiTest {
    @TempDir
    static Path dir;

    @Start
    void start(Stage stage) {
        GuiTestSupport.show(stage, dir.resolve("config-" + System.nanoTime()));
    }

    /** The rows the table shows on screen (their cells), as frames by row of the store table. */
    @SuppressWarnings("unchecked")
    private static boolean shows(FxRobot robot, WindowedTable rows, int row, long frame) {
        return robot.lookup("#store-table .table-row-cell").queryAll().stream()
                .map(n -> (TableRow<EventRow>) n)
                .anyMatch(r -> r.isVisible() && r.getIndex() >= 0 && rows.topRow() + r.getIndex() == row
                        && r.getItem() != null && r.getItem().frame() == frame);
    }

    @Test
    @SuppressWarnings("unchecked")
    void goesToAFrameOfAMillionEventsAndScrollsToTheEnd(FxRobot robot) throws Exception {
        Path file = dir.resolve("million.pcapng");
        long[] frames = GuiTestSupport.repeatedFixture(file, 1_000_000);
        assertTrue(frames.length >= 1_000_000, "events: " + frames.length);

        GuiTestSupport.openInWindow(file);
        TableView<EventRow> table = GuiTestSupport.view.storePane().table(); // in the window once the store is there
        WindowedTable rows = GuiTestSupport.view.storePane().rows();
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.capture().storeTableProperty().get() != null
                && table.isVisible() && rows.rowCount() == frames.length && shows(robot, rows, 0, frames[0]));
        assertTrue(rows.shownRows() > 5 && rows.shownRows() < 200, "the table holds a page of rows: " + rows.shownRows());

        // go to frame, as a user: Ctrl+G, the number, Enter
        int target = frames.length * 3 / 4 + 123;
        long frame = frames[target];
        GuiTestSupport.goToFrameByKeys(robot, table, frame);
        GuiTestSupport.waitUntil(() -> table.getSelectionModel().getSelectedItem() != null
                && table.getSelectionModel().getSelectedItem().frame() == frame);
        assertEquals(target, rows.selectedRow());
        assertTrue(rows.topRow() <= target && target < rows.topRow() + rows.shownRows(),
                "row " + target + " within the rows shown, " + rows.topRow() + " + " + rows.shownRows());
        GuiTestSupport.waitUntil(() -> shows(robot, rows, target, frame));
        ScrollBar bar = robot.lookup("#store-scroll").queryAs(ScrollBar.class);
        assertEquals(rows.topRow(), bar.getValue(), 0.5, "the bar is at the rows shown");

        // the keys: Down past the last row shown scrolls by one; Page Down by a page; Home to the first row
        int top = rows.topRow();
        int last = top + rows.shownRows() - 1;
        for (int i = target; i < last + 1; i++) {
            robot.push(KeyCode.DOWN);
        }
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(last + 1, rows.selectedRow());
        assertEquals(top + 1, rows.topRow(), "one row further");
        GuiTestSupport.waitUntil(() -> shows(robot, rows, last + 1, frames[last + 1])
                && table.getSelectionModel().getSelectedItem() != null
                && table.getSelectionModel().getSelectedItem().frame() == frames[last + 1]);
        robot.push(KeyCode.PAGE_DOWN);
        WaitForAsyncUtils.waitForFxEvents();
        int page = rows.shownRows() - 1;
        assertEquals(last + 1 + page, rows.selectedRow());
        assertEquals(top + 1 + page, rows.topRow());
        robot.push(KeyCode.HOME);
        GuiTestSupport.waitUntil(() -> rows.selectedRow() == 0 && rows.topRow() == 0 && shows(robot, rows, 0, frames[0])
                && table.getSelectionModel().getSelectedItem() != null
                && table.getSelectionModel().getSelectedItem().frame() == frames[0]);

        // the scroll bar dragged to its end: the last frame shown
        Node thumb = bar.lookup(".thumb");
        robot.drag(thumb).moveBy(0, bar.getHeight()).drop();
        GuiTestSupport.waitUntil(() -> rows.topRow() + rows.shownRows() == frames.length
                && shows(robot, rows, frames.length - 1, frames[frames.length - 1]));
        assertEquals(rows.topRow(), bar.getValue(), 0.5);
        assertEquals(0, rows.selectedRow(), "scrolling keeps the selection");
        assertEquals(-1, table.getSelectionModel().getSelectedIndex(), "the selected row is not shown");

        // the wheel over the rows (a wheel's event: 66 px up, three rows of 22 px)
        int end = rows.topRow();
        Node cell = robot.lookup("#store-table .table-row-cell").query();
        GuiTestSupport.fx(() -> javafx.event.Event.fireEvent(cell, new ScrollEvent(ScrollEvent.SCROLL, 5, 5, 5, 5,
                false, false, false, false, false, false, 0, 66, 0, 66, ScrollEvent.HorizontalTextScrollUnits.NONE, 0,
                ScrollEvent.VerticalTextScrollUnits.NONE, 0, 0, null)));
        assertEquals(end - 3, rows.topRow());
        assertEquals(end - 3, bar.getValue(), 0.5);
    }
}
