package org.tracewire.app.gui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import javafx.scene.chart.BarChart;
import javafx.scene.control.Label;
import javafx.scene.control.MenuBar;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.tracewire.app.capture.EventRow;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;

/** Headless: a pcapng of real records opened in the real window fills the table and the histogram; the title names the file. */
@ExtendWith(ApplicationExtension.class)
class OpenFileGuiTest {
    @TempDir
    static Path dir;
    private Stage stage;

    @Start
    void start(Stage stage) {
        this.stage = stage;
        GuiTestSupport.show(stage, dir.resolve("config-" + System.nanoTime()));
    }

    @Test
    @SuppressWarnings("unchecked")
    void openAFixturePcapng(FxRobot robot) throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 5000);
        Path file = FixturePcapng.write(dir.resolve("opened.pcapng"), recs);
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.browser().totalCountProperty().get() > 2000);
        MenuBar bar = robot.lookup("#menu-bar").queryAs(MenuBar.class);
        assertEquals(List.of("_File", "_Edit", "_View"), bar.getMenus().stream().map(m -> m.getText()).toList());
        // as TracewireApp does for --open FILE: the first page, then the file
        GuiTestSupport.fx(() -> {
            GuiTestSupport.view.show(org.tracewire.app.AppLauncher.firstPage(null, file));
            GuiTestSupport.vm.openFile(file);
        });
        TableView<EventRow> table = robot.lookup("#capture-table").queryAs(TableView.class);
        javafx.scene.control.TabPane tabs = robot.lookup(".tab-pane").queryAs(javafx.scene.control.TabPane.class);
        assertEquals("Capture", tabs.getSelectionModel().getSelectedItem().getText(), "--open lands on the events");
        // allow a loaded machine its time
        org.testfx.util.WaitForAsyncUtils.waitFor(60, java.util.concurrent.TimeUnit.SECONDS, () -> {
            org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
            return table.getItems().size() == recs.size() && !GuiTestSupport.vm.capture().busyProperty().get();
        });
        assertEquals("opened.pcapng — tracewire", stage.getTitle());
        // the status moves on from "opening…" once the file is read and its store is indexed
        GuiTestSupport.waitUntil(() -> robot.lookup("#capture-status").queryAs(Label.class).getText()
                .startsWith("opened opened.pcapng: 5,000 events"));
        assertEquals(3, table.getItems().get(0).frame(), "after the CAPTURE and FORMAT frames (wire format v2)");
        GuiTestSupport.waitUntil(() -> robot.lookup("#status-events").queryAs(Label.class).getText().equals("5,000 events"));
        assertTrue(robot.lookup("#capture-live-follow").queryAll().stream()
                        .noneMatch(n -> n.isVisible() && n.getParent().isVisible()), "nothing to follow in a file");
        javafx.scene.control.TableRow<?> top = robot.lookup("#capture-table .table-row-cell").queryAll().stream()
                .map(n -> (javafx.scene.control.TableRow<?>) n).filter(r -> r.getItem() != null)
                .min(java.util.Comparator.comparingInt(javafx.scene.control.IndexedCell::getIndex)).orElseThrow();
        assertEquals(0, top.getIndex(), "the table shows the file's first events");

        robot.clickOn("Histogram");
        GuiTestSupport.fx(() -> {
            GuiTestSupport.vm.histogram().eventProperty().set("sched:sched_switch");
            GuiTestSupport.vm.histogram().applyTriggerText("hist:keys=common_cpu");
        });
        long switches = recs.stream().filter(r -> r.format().fullName().equals("sched:sched_switch")).count();
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.histogram().tableProperty().get() != null
                && GuiTestSupport.vm.histogram().tableProperty().get().hits() == switches);
        BarChart<String, Number> chart = robot.lookup("#hist-chart").queryAs(BarChart.class);
        GuiTestSupport.waitUntil(() -> !chart.getData().get(0).getData().isEmpty());
        long plotted = chart.getData().get(0).getData().stream().mapToLong(d -> d.getYValue().longValue()).sum();
        assertEquals(switches, plotted, "the bars add up to the events counted");
        GuiTestSupport.waitUntil(() -> robot.lookup("#hist-support").queryAs(Label.class).getText().toLowerCase()
                .contains("aggregated by tracewire"));
    }
}
