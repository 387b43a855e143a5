package org.tracewire.app.gui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javafx.scene.Node;
import javafx.scene.chart.LineChart;
import javafx.scene.control.Label;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.iograph.IoGraphViewModel;
import org.tracewire.app.query.CaptureOracle;
import org.tracewire.input.RecordInput;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * Headless, in the real window, over an opened pcapng of real records (the ring-buffer fixture of
 * this machine): a query typed in the Query view and run with Ctrl+Enter, its rows shown, and
 * "Show these events" switches to the event table showing exactly the result's frames (issue
 * #34's "a query's rows shown in the table"); a query DuckDB refuses shows DuckDB's message; a
 * click on the I/O graph moves the table to the first event at or after the clicked interval.
 */
@ExtendWith(ApplicationExtension.class)
class QueryGuiTest {
    @TempDir
    static Path dir;

    @Start
    void start(Stage stage) {
        GuiTestSupport.show(stage, dir.resolve("config-" + System.nanoTime()));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aQuerysRowsShownInTheTableAndTheIoGraphGoesToATime(FxRobot robot) throws Exception {
        Path file = FixturePcapng.write(dir.resolve("query.pcapng"), FixtureRecords.load());
        CaptureOracle oracle = new CaptureOracle(file);
        GuiTestSupport.fx(() -> GuiTestSupport.vm.openFile(file));
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.capture().storeTableProperty().get() != null);
        TabPane tabs = robot.lookup(".tab-pane").queryAs(TabPane.class);
        TableView<EventRow> events = robot.lookup("#store-table").queryAs(TableView.class);
        org.tracewire.app.capture.WindowedTable storeRows = GuiTestSupport.view.storePane().rows();
        GuiTestSupport.waitUntil(() -> events.isVisible() && storeRows.rowCount() == oracle.events.size());

        // the pid that switched out most often (not idle): its switches are the expected frames
        java.util.Map<Integer, Integer> outs = new java.util.HashMap<>();
        for (RecordInput.Event e : oracle.events) {
            if (e.record().format().name().equals("sched_switch") && e.record().pid() != 0) {
                outs.merge(e.record().pid(), 1, Integer::sum);
            }
        }
        int pid = outs.entrySet().stream().max(java.util.Map.Entry.comparingByValue()).orElseThrow().getKey();
        List<Long> expected = oracle.frames(oracle.filter("prev_pid == " + pid));
        assertTrue(expected.size() > 1 && expected.size() < oracle.events.size() / 10, expected.size() + " frames");

        robot.clickOn("Query");
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.query().availableProperty().get());
        robot.clickOn("#query-editor");
        robot.push(KeyCode.CONTROL, KeyCode.A);
        // the query put in whole (typed key by key it took ~8 s), its last character typed
        String sql = "SELECT frame, prev_comm, next_comm FROM sched_switch WHERE prev_pid = " + pid;
        TextArea editor = robot.lookup("#query-editor").queryAs(TextArea.class);
        GuiTestSupport.fx(() -> editor.replaceSelection(sql.substring(0, sql.length() - 1)));
        robot.write(sql.substring(sql.length() - 1));
        robot.push(KeyCode.CONTROL, KeyCode.ENTER);
        TableView<List<String>> rows = robot.lookup("#query-table").queryAs(TableView.class);
        GuiTestSupport.waitUntil(() -> rows.getItems().size() == expected.size() && !rows.getItems().get(0).isEmpty());
        assertEquals(List.of("frame", "prev_comm", "next_comm"), rows.getColumns().stream().map(c -> c.getText()).toList());
        GuiTestSupport.waitUntil(() -> robot.lookup("#query-status").queryAs(Label.class).getText()
                .contains(String.format("%,d rows", expected.size())));
        assertEquals("SELECT frame, prev_comm, next_comm FROM sched_switch WHERE prev_pid = " + pid,
                GuiTestSupport.vm.query().getHistory().get(0));

        robot.clickOn("#query-show-events");
        GuiTestSupport.waitUntil(() -> tabs.getSelectionModel().getSelectedItem().getText().equals("Capture"));
        GuiTestSupport.waitUntil(() -> storeRows.rowCount() == expected.size());
        List<Long> shown = new ArrayList<>();
        GuiTestSupport.waitUntil(() -> {
            GuiTestSupport.fx(() -> { // every row of the view, not only those on screen
                shown.clear();
                for (EventRow r : GuiTestSupport.vm.capture().storeTableProperty().get().rowsProperty().get()) {
                    shown.add(r.frame());
                }
            });
            return !shown.contains(0L);
        });
        assertEquals(expected, shown, "the table shows exactly the frames of the query");
        assertTrue(robot.lookup("#store-filter-frames").query().isVisible(), "the table says it is restricted");

        // lift it, then a query DuckDB refuses
        robot.clickOn("#store-filter-frames");
        GuiTestSupport.waitUntil(() -> storeRows.rowCount() == oracle.events.size());
        robot.clickOn("Query");
        GuiTestSupport.fx(() -> GuiTestSupport.vm.query().sqlProperty().set("SELECT nope FROM sched_switch"));
        robot.clickOn("#query-run");
        Label error = robot.lookup("#query-error").queryAs(Label.class);
        GuiTestSupport.waitUntil(() -> error.isVisible() && error.getText()
                .startsWith("Binder Error: Referenced column \"nope\" not found in FROM clause!"));
        assertFalse(error.getText().contains("Exception"), error.getText());

        // the I/O graph: a click in the middle of the plot
        robot.clickOn("I/O graph");
        IoGraphViewModel io = GuiTestSupport.vm.ioGraph();
        GuiTestSupport.waitUntil(() -> io.graphProperty().get() != null);
        LineChart<Number, Number> chart = robot.lookup("#iograph-chart").queryAs(LineChart.class);
        GuiTestSupport.waitUntil(() -> !chart.getData().isEmpty());
        Node plot = chart.lookup(".chart-plot-background");
        robot.clickOn(plot);
        GuiTestSupport.waitUntil(() -> io.jumpedToProperty().get() > 0);
        long frame = io.jumpedToProperty().get();
        long at = io.jumpTimeProperty().get();
        IoGraphViewModel.Graph g = io.graphProperty().get();
        assertEquals(0, (at - g.start()) % g.interval(), "an interval's start");
        assertTrue(at > g.start() && at < g.end(), "inside the capture: " + at);
        assertEquals(oracle.firstAtOrAfter(at), frame, "the first event at or after the clicked time");
        GuiTestSupport.waitUntil(() -> tabs.getSelectionModel().getSelectedItem().getText().equals("Capture"));
        GuiTestSupport.waitUntil(() -> events.getSelectionModel().getSelectedItem() != null
                && events.getSelectionModel().getSelectedItem().frame() == frame);
    }
}
