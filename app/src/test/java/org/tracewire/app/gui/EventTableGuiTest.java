package org.tracewire.app.gui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.TableRow;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import javafx.scene.input.MouseButton;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import org.tracewire.app.capture.CaptureView;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.TestRows;
import org.tracewire.app.util.FxTaskExecutor;

/** The event table holds still: selection on its event under a flood, sort, find, filter, context menu. */
@ExtendWith(ApplicationExtension.class)
class EventTableGuiTest {
    private CaptureViewModel vm;
    private CaptureView view;

    @Start
    void start(Stage stage) {
        vm = new CaptureViewModel(new FxTaskExecutor(), () -> null);
        vm.table().setRecords(TestRows.records());
        view = new CaptureView(vm);
        stage.setScene(new Scene(view, 1200, 800));
        stage.show();
    }

    private static List<EventRow> batch(int from, int n) {
        List<EventRow> out = new ArrayList<>(n);
        for (int i = from; i < from + n; i++) {
            out.add(TestRows.sw(1_700_000_000_000_000_000L + i * 10_000L, i % 2, 1000 + i % 50, "stress-ng", 2000 + i % 7, "worker"));
        }
        return out;
    }

    private <T> T fx(java.util.concurrent.Callable<T> c) throws Exception {
        return WaitForAsyncUtils.asyncFx(c).get(10, TimeUnit.SECONDS);
    }

    private TableRow<?> visibleRow(FxRobot robot, int nth) {
        List<TableRow<?>> rows = new ArrayList<>();
        for (Node n : robot.lookup("#capture-table .table-row-cell").queryAll()) {
            TableRow<?> r = (TableRow<?>) n;
            if (r.getItem() != null && r.isVisible()) {
                rows.add(r);
            }
        }
        rows.sort((a, b) -> Double.compare(a.localToScene(0, 0).getY(), b.localToScene(0, 0).getY()));
        return rows.get(nth);
    }

    @Test
    void selectionStaysOnItsEventWhileManyEventsPerSecondArrive(FxRobot robot) throws Exception {
        vm.accept(batch(0, 20_000));
        Thread.sleep(600);
        WaitForAsyncUtils.waitForFxEvents();
        robot.clickOn(visibleRow(robot, 5));
        EventRow picked = fx(() -> view.table().getSelectionModel().getSelectedItem());
        assertTrue(picked != null);
        // 100,000 events/s for 2 s: the ring evicts 20,000 + 200,000 − 50,000 rows... so stop before the pick leaves
        int fed = 20_000;
        List<EventRow> more = batch(fed, 25_000); // made before the clock starts: only the feeding is timed
        long end = System.nanoTime() + 1_500_000_000L;
        int checks = 0;
        while (System.nanoTime() < end && fed < 20_000 + 25_000) {
            vm.accept(more.subList(fed - 20_000, fed - 20_000 + 1000));
            fed += 1000;
            Thread.sleep(10);
            if (fed % 5000 == 0) {
                EventRow now = fx(() -> view.table().getSelectionModel().getSelectedItem());
                assertSame(picked, now, "selection stays on its event after " + fed + " events");
                checks++;
            }
        }
        Thread.sleep(600);
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(checks >= 3, "checked " + checks);
        int index = fx(() -> view.table().getSelectionModel().getSelectedIndex());
        assertSame(picked, fx(() -> vm.table().getItems().get(index)));
        assertSame(picked, fx(() -> vm.selectedProperty().get()));
        assertEquals(1, (int) fx(() -> view.table().getSelectionModel().getSelectedIndices().size()));
    }

    @Test
    void sortFindAndFilter(FxRobot robot) throws Exception {
        List<EventRow> rows = TestRows.fixture();
        vm.accept(rows);
        Thread.sleep(600);
        WaitForAsyncUtils.waitForFxEvents();
        // sort by PID (click the header)
        Node pidHeader = robot.lookup(".column-header").queryAll().stream().filter(n -> n.lookup(".label") != null
                && "PID".equals(((javafx.scene.control.Label) n.lookup(".label")).getText())).findFirst().orElseThrow();
        robot.clickOn(pidHeader);
        WaitForAsyncUtils.waitForFxEvents();
        List<Integer> pids = fx(() -> vm.table().getItems().stream().map(EventRow::pid).toList());
        List<Integer> expected = rows.stream().map(EventRow::pid).sorted().toList();
        assertEquals(expected, pids);

        // find: Ctrl+F, type, Enter → the first match after the selection
        robot.clickOn(visibleRow(robot, 0));
        robot.press(KeyCode.CONTROL).type(KeyCode.F).release(KeyCode.CONTROL);
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(robot.lookup("#capture-find").query().isVisible());
        robot.write("sched_wakeup_new").type(KeyCode.ENTER);
        WaitForAsyncUtils.waitForFxEvents();
        EventRow found = fx(() -> view.table().getSelectionModel().getSelectedItem());
        assertEquals("sched:sched_wakeup_new", found.event());
        robot.type(KeyCode.ENTER);
        WaitForAsyncUtils.waitForFxEvents();
        EventRow found2 = fx(() -> view.table().getSelectionModel().getSelectedItem());
        assertEquals("sched:sched_wakeup_new", found2.event());
        assertTrue(found2 != found);

        // filter: kernel syntax over the rows' fields
        robot.clickOn("#capture-filter").write("bytes_alloc >= 4096");
        WaitForAsyncUtils.waitForFxEvents();
        long expectedRows = rows.stream().filter(r -> r.fields().containsKey("bytes_alloc")
                && Long.parseLong(r.fields().get("bytes_alloc").toString()) >= 4096).count();
        assertTrue(expectedRows > 0);
        assertEquals(expectedRows, (long) fx(() -> vm.table().getItems().size()));
        robot.write(" &&");
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(robot.lookup("#capture-filter-error").query().isVisible(), "a syntax error is shown");
    }

    /**
     * A right click; Monocle's headless robot does not turn it into the platform's context-menu
     * request, so the table's menu is then shown at the row as the platform's request would show it.
     */
    private void contextMenu(FxRobot robot, TableRow<?> row) {
        robot.clickOn(row, MouseButton.SECONDARY);
        if (!view.table().getContextMenu().isShowing()) {
            robot.interact(() -> view.table().getContextMenu().show(row, javafx.geometry.Side.BOTTOM, 20, -10));
        }
        assertTrue(view.table().getContextMenu().isShowing(), "context menu shown");
    }

    @Test
    void contextMenuFiltersOnPid(FxRobot robot) throws Exception {
        vm.accept(TestRows.fixture());
        Thread.sleep(600);
        WaitForAsyncUtils.waitForFxEvents();
        TableRow<?> row = visibleRow(robot, 3);
        robot.clickOn(row);
        EventRow r = (EventRow) row.getItem();
        contextMenu(robot, row);
        robot.clickOn("Filter on pid " + r.pid());
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals("common_pid == " + r.pid(), robot.lookup("#capture-filter").queryAs(TextField.class).getText());
        long expected = TestRows.fixture().stream().filter(x -> x.pid() == r.pid()).count();
        assertEquals(expected, (long) fx(() -> vm.table().getItems().size()));
        assertSame(r, fx(() -> view.table().getSelectionModel().getSelectedItem()), "the selection stays on its event");
        contextMenu(robot, visibleRow(robot, 0));
        robot.clickOn((javafx.scene.control.Labeled l) -> l.getText() != null && l.getText().startsWith("Filter on event "));
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(robot.lookup("#capture-filter-event").query().isVisible());
        assertTrue(fx(() -> vm.table().getItems().stream().allMatch(x -> x.pid() == r.pid()
                && x.event().equals(vm.table().eventRestrictionProperty().get()))));
    }

    @Test
    void enterInTheFilterBoxDoesNotStartACapture(FxRobot robot) throws Exception {
        robot.interact(() -> vm.addEvent("sched:sched_switch", ""));
        vm.accept(TestRows.fixture());
        Thread.sleep(600);
        WaitForAsyncUtils.waitForFxEvents();
        String before = fx(() -> vm.statusProperty().get());
        robot.clickOn("#capture-filter").write("common_pid == 1").type(KeyCode.ENTER);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals("common_pid == 1", fx(() -> vm.table().filterTextProperty().get()));
        assertEquals(before, fx(() -> vm.statusProperty().get()), "no start was asked for");
        assertEquals(false, fx(() -> vm.busyProperty().get() || vm.runningProperty().get()));
        // nor from another text box of the view
        robot.clickOn("#capture-pcapng").write("/tmp/x.pcapng").type(KeyCode.ENTER);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(before, fx(() -> vm.statusProperty().get()), "no start was asked for");
    }

    /** The text a labelled control shows (its skin's Text node), which mnemonic parsing would strip of an underscore. */
    private static List<String> shownTexts(FxRobot robot) {
        List<String> out = new ArrayList<>();
        for (javafx.stage.Window w : javafx.stage.Window.getWindows()) {
            if (w.getScene() != null) {
                for (Node n : robot.from(w.getScene().getRoot()).lookup((Node x) -> x instanceof javafx.scene.text.Text).queryAll()) {
                    out.add(((javafx.scene.text.Text) n).getText());
                }
            }
        }
        return out;
    }

    @Test
    void contextMenuLabelsKeepTheUnderscoresOfEventAndTaskNames(FxRobot robot) throws Exception {
        vm.accept(batch(0, 100)); // sched:sched_switch rows of task "stress-ng"
        vm.accept(List.of(TestRows.sw(1_700_000_000_000_100_000L, 0, 77, "kworker_u8", 78, "x")));
        Thread.sleep(600);
        WaitForAsyncUtils.waitForFxEvents();
        robot.interact(() -> {
            vm.table().followProperty().set(true);
            view.table().scrollTo(view.table().getItems().size() - 1);
        });
        WaitForAsyncUtils.waitForFxEvents();
        TableRow<?> row = robot.lookup("#capture-table .table-row-cell").queryAll().stream().map(n -> (TableRow<?>) n)
                .filter(r -> r.getItem() != null && ((EventRow) r.getItem()).pid() == 77).findFirst().orElseThrow();
        robot.clickOn(row);
        contextMenu(robot, row);
        WaitForAsyncUtils.waitForFxEvents();
        List<String> shown = fx(() -> shownTexts(robot)).stream().filter(t -> t.startsWith("Filter on") || t.startsWith("Follow"))
                .toList();
        assertTrue(shown.contains("Filter on event sched:sched_switch"), "shown: " + shown);
        assertTrue(shown.contains("Filter on comm \"kworker_u8\""), "shown: " + shown);
        assertTrue(shown.contains("Follow this thread (kworker_u8/77)"), "shown: " + shown);
        robot.clickOn((javafx.scene.control.Labeled l) -> l.getText() != null && l.getText().startsWith("Filter on event "));
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(fx(() -> shownTexts(robot)).contains("event: sched:sched_switch  ✕"), "the restriction's button");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theDetailsPaneIsATreeOfTheSelectedEvent(FxRobot robot) throws Exception {
        vm.accept(List.of(TestRows.sw(1_700_000_000_000_100_000L, 0, 77, "kworker_u8", 78, "x")));
        Thread.sleep(600);
        WaitForAsyncUtils.waitForFxEvents();
        robot.clickOn(visibleRow(robot, 0));
        WaitForAsyncUtils.waitForFxEvents();
        javafx.scene.control.TreeView<String> tree = robot.lookup("#capture-fields").queryAs(javafx.scene.control.TreeView.class);
        List<String> top = fx(() -> tree.getRoot().getChildren().stream().map(javafx.scene.control.TreeItem::getValue).toList());
        assertEquals(List.of("Event: sched:sched_switch", "Common fields", "sched_switch fields",
                "Kernel text: prev_comm=kworker_u8 prev_pid=77 ==> next_comm=x next_pid=78"), top);
        List<String> common = fx(() -> tree.getRoot().getChildren().get(1).getChildren().stream()
                .map(javafx.scene.control.TreeItem::getValue).toList());
        assertEquals(List.of("cpu: 0", "pid: 77", "comm: kworker_u8"), common.subList(1, 4));
        assertTrue(fx(() -> tree.getRoot().getChildren().get(2).isExpanded()), "the fields are shown");
        fx(() -> { // the pane may be too short for every line: scrolled to the field, as a user would
            tree.scrollTo(tree.getRow(tree.getRoot().getChildren().get(2).getChildren().get(0)));
            return null;
        });
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(robot.lookup((javafx.scene.control.TreeCell<String> c) -> "prev_comm: kworker_u8".equals(c.getText()))
                .tryQuery().isPresent(), () -> "the field's line is drawn: " + robot.lookup(".tree-cell").queryAll().stream()
                .map(n -> ((javafx.scene.control.TreeCell<?>) n).getText()).toList());
    }
}
