package org.tracewire.app.gui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableView;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.StoreFixture;
import org.tracewire.app.histogram.FlameGraphCanvas;
import org.tracewire.app.latency.LatencyViewModel;
import org.tracewire.app.main.MainView;

/**
 * Headless: the real capture with stacks opened in the real window. Once its store is ready the
 * latency view shows every pair with p50/p90/p99/max and wakers by name, and selecting the worst
 * pair selects its frame in the event table; the histogram keyed by stack draws the flame graph of
 * the event's stacks, whose frames name their function and count when hovered. With
 * {@code -Dtracewire.screenshots=DIR} the three views are saved as PNG there.
 */
@ExtendWith(ApplicationExtension.class)
class StatsGuiTest {
    @TempDir
    static Path dir;

    @Start
    void start(Stage stage) {
        GuiTestSupport.show(stage, dir.resolve("config-" + System.nanoTime()));
    }

    @Test
    @SuppressWarnings("unchecked")
    void latencyAndFlameGraphOverTheStore(FxRobot robot) throws Exception {
        Path file = dir.resolve("stacks.pcapng");
        try (InputStream in = new GZIPInputStream(StatsGuiTest.class.getResourceAsStream(StoreFixture.RESOURCE))) {
            Files.copy(in, file);
        }
        GuiTestSupport.fx(() -> GuiTestSupport.vm.openFile(file));
        // the "opened" notice is a label in the main window's scene, not a popup window of its own;
        // shown for 6 s from the first rows, it may be gone once a child JVM has built the store
        GuiTestSupport.waitUntil(() -> robot.lookup("#notice").tryQuery().map(Node::isVisible).orElse(false));
        Label notice = robot.lookup("#notice").queryAs(Label.class);
        assertTrue(notice.getText().startsWith("opened stacks.pcapng"), notice.getText());
        assertSame(robot.lookup("#main-view").query().getScene(), notice.getScene());
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.capture().storeTableProperty().get() != null);
        GuiTestSupport.fx(() -> GuiTestSupport.view.show(MainView.Page.LATENCY));
        LatencyViewModel latency = GuiTestSupport.vm.latency();
        Label percentiles = robot.lookup("#latency-percentiles").queryAs(Label.class);
        Label status = robot.lookup("#latency-status").queryAs(Label.class);
        // the first screen's rows may answer first; the store's query replaces them ("… pairs in all")
        GuiTestSupport.waitUntil(() -> percentiles.getText().contains("p99") && !latency.getPairs().isEmpty()
                && !status.getText().startsWith("querying"));
        assertTrue(robot.lookup("#latency-status").queryAs(Label.class).getText().contains("pairs in all"),
                robot.lookup("#latency-status").queryAs(Label.class).getText());
        assertTrue(latency.getPairs().stream().anyMatch(r -> r.waker().matches(".*[a-z].* \\(\\d+\\)")), "wakers by name");
        TableView<LatencyViewModel.LatencyRow> pairs = robot.lookup("#latency-table").queryAs(TableView.class);
        GuiTestSupport.waitUntil(() -> robot.lookup("#latency-table .table-row-cell").queryAll().stream()
                .anyMatch(n -> ((javafx.scene.control.TableRow<?>) n).getItem() != null));
        save(robot.lookup("#main-view").query(), "latency");

        LatencyViewModel.LatencyRow worst = latency.getPairs().get(0);
        GuiTestSupport.fx(() -> pairs.getSelectionModel().clearAndSelect(0));
        TableView<EventRow> events = robot.lookup("#store-table").queryAs(TableView.class);
        GuiTestSupport.waitUntil(() -> events.isVisible() && events.getSelectionModel().getSelectedItem() != null
                && events.getSelectionModel().getSelectedItem().frame() == worst.frame());

        GuiTestSupport.fx(() -> {
            GuiTestSupport.view.show(MainView.Page.HISTOGRAM);
            GuiTestSupport.vm.histogram().eventProperty().set("sched:sched_wakeup");
        });
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.histogram().builder().getFields().contains("stacktrace"));
        GuiTestSupport.fx(() -> GuiTestSupport.vm.histogram().applyTriggerText("hist:keys=stacktrace:sort=hitcount.descending"));
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.histogram().flameProperty().get() != null
                && !GuiTestSupport.vm.histogram().getEntries().isEmpty());
        GuiTestSupport.waitUntil(() -> robot.lookup("#hist-table .table-row-cell").queryAll().stream()
                .anyMatch(n -> ((javafx.scene.control.TableRow<?>) n).getItem() != null));
        save(robot.lookup("#main-view").query(), "histogram");
        GuiTestSupport.fx(() -> robot.lookup("#hist-right").queryAs(TabPane.class).getSelectionModel().select(1));
        FlameGraphCanvas flame = robot.lookup("#flame-graph").queryAs(FlameGraphCanvas.class);
        GuiTestSupport.waitUntil(() -> flame.isVisible() && flame.getWidth() > 100);
        // hover the root's first callee, a row above the bottom
        javafx.geometry.Bounds b = flame.localToScreen(flame.getBoundsInLocal());
        robot.moveTo(new javafx.geometry.Point2D(b.getMinX() + 20, b.getMaxY() - 4 - 18 - 9));
        Label hover = robot.lookup("#flame-hover").queryAs(Label.class);
        GuiTestSupport.waitUntil(() -> hover.getText().contains(" events ("));
        long root = GuiTestSupport.vm.histogram().flameProperty().get().count();
        assertTrue(root > 100, "wakeup stacks: " + root);
        assertTrue(robot.lookup("#flame-status").queryAs(Label.class).getText().contains(String.format("%,d with a stack", root)));
        save(robot.lookup("#main-view").query(), "flame");
        assertEquals(MainView.Page.HISTOGRAM.ordinal(), ((TabPane) robot.lookup("#main-view > .tab-pane").query())
                .getSelectionModel().getSelectedIndex());
    }

    /** With -Dtracewire.screenshots=DIR: the node as DIR/app-stats-NAME.png. */
    private static void save(Node node, String name) throws Exception {
        String to = System.getProperty("tracewire.screenshots");
        if (to == null) {
            return;
        }
        WritableImage[] img = new WritableImage[1];
        GuiTestSupport.fx(() -> img[0] = node.snapshot(null, null));
        PixelReader px = img[0].getPixelReader();
        int w = (int) img[0].getWidth();
        int h = (int) img[0].getHeight();
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                out.setRGB(x, y, px.getArgb(x, y));
            }
        }
        javax.imageio.ImageIO.write(out, "png", Path.of(to, "app-stats-" + name + ".png").toFile());
    }
}
