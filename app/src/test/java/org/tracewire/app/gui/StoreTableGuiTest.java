package org.tracewire.app.gui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.control.TreeView;
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
import org.tracewire.app.capture.WindowedTable;

/**
 * Headless: a pcapng of more events than the streamed table's window, opened in the real window:
 * once its store is ready the table holds every event from the first, and Ctrl+G to a frame near
 * the end selects that frame's row and shows its details.
 */
@ExtendWith(ApplicationExtension.class)
class StoreTableGuiTest {
    @TempDir
    static Path dir;

    @Start
    void start(Stage stage) {
        GuiTestSupport.show(stage, dir.resolve("config-" + System.nanoTime()));
    }

    @Test
    @SuppressWarnings("unchecked")
    void openedFileGoesToFrame(FxRobot robot) throws Exception {
        Path file = dir.resolve("many.pcapng");
        long[] frames = GuiTestSupport.repeatedFixture(file, 60_000);
        GuiTestSupport.openInWindow(file);
        TableView<EventRow> table = GuiTestSupport.view.storePane().table(); // in the window once the store is there
        WindowedTable rows = GuiTestSupport.view.storePane().rows();
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.capture().storeTableProperty().get() != null
                && table.isVisible() && rows.rowCount() == frames.length
                && table.getItems().get(0).frame() == frames[0]);
        assertTrue(frames.length > 50_000, "more events than the streamed window");
        GuiTestSupport.waitUntil(() -> robot.lookup("#status-events").queryAs(Label.class).getText()
                .equals(String.format("%,d events", frames.length)));
        GuiTestSupport.waitUntil(() -> robot.lookup("#store-table .table-row-cell").queryAll().stream()
                .map(n -> (javafx.scene.control.TableRow<EventRow>) n)
                .anyMatch(r -> r.getIndex() == 0 && r.getItem() != null && r.getItem().frame() == frames[0]));
        // the kernel's line is whole in its cell's tooltip, however wide the column
        GuiTestSupport.waitUntil(() -> robot.lookup("#store-table .table-cell").queryAll().stream()
                .map(n -> (javafx.scene.control.TableCell<EventRow, ?>) n)
                .anyMatch(c -> c.getTableColumn() != null && c.getTableColumn().getText().equals("Line")
                        && c.getTableRow() != null && c.getTableRow().getItem() != null
                        && c.getTableRow().getItem().frame() == frames[0] && c.getTooltip() != null
                        && c.getTooltip().getText().equals(c.getTableRow().getItem().text())
                        && !c.getTooltip().getText().isEmpty()));

        int target = frames.length - 5;
        long frame = frames[target];
        GuiTestSupport.goToFrameByKeys(robot, table, frame);
        GuiTestSupport.waitUntil(() -> table.getSelectionModel().getSelectedItem() != null
                && table.getSelectionModel().getSelectedItem().frame() == frame);
        assertEquals(target, rows.selectedRow());
        TreeView<String> details = robot.lookup("#capture-fields").queryAs(TreeView.class);
        String event = table.getSelectionModel().getSelectedItem().event();
        GuiTestSupport.waitUntil(() -> details.getRoot().getChildren().stream()
                .anyMatch(i -> i.getValue() != null && i.getValue().contains(event.substring(event.indexOf(':') + 1))));
        GuiTestSupport.waitUntil(() -> robot.lookup("#store-table .table-row-cell").queryAll().stream()
                .map(n -> (javafx.scene.control.TableRow<EventRow>) n)
                .anyMatch(r -> r.getIndex() == target - rows.topRow() && r.getItem() != null && r.getItem().frame() == frame));

        // Enter in the store table's filter box filters and starts no capture
        var capture = GuiTestSupport.vm.capture();
        String before = WaitForAsyncUtils.waitForAsyncFx(10_000, () -> capture.statusProperty().get());
        robot.clickOn("#store-filter").write("common_pid == 0").type(KeyCode.ENTER);
        GuiTestSupport.waitUntil(() -> rows.rowCount() > 0 && rows.rowCount() < frames.length);
        assertEquals(before, WaitForAsyncUtils.waitForAsyncFx(10_000, () -> capture.statusProperty().get()), "no start was asked for");
        assertEquals(false, WaitForAsyncUtils.waitForAsyncFx(10_000, () -> capture.busyProperty().get()
                || capture.runningProperty().get()));
    }
}
