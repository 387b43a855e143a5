package org.tracewire.app.gui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextField;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.app.filter.FilterBuilderViewModelTest;
import org.tracewire.filter.Comparison;
import org.tracewire.filter.Filter;
import org.tracewire.filter.Junction;
import org.tracewire.filter.Op;
import org.tracewire.filter.Or;

/** Headless (Monocle) tests of the real views: browse, build a filter, save and reopen a session. */
@ExtendWith(ApplicationExtension.class)
class MainViewGuiTest {
    @TempDir
    static Path dir;

    @Start
    void start(Stage stage) {
        GuiTestSupport.show(stage, dir.resolve("config-" + System.nanoTime()));
    }

    private void selectTab(FxRobot robot, String title) {
        robot.clickOn(title);
    }

    @Test
    void searchTheSnapshotTreeAndSelectAnEvent(FxRobot robot) throws Exception {
        selectTab(robot, "Browser");
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.browser().totalCountProperty().get() > 2000);
        robot.clickOn("#browser-search").write("sched_sw");
        Label count = robot.lookup("#browser-count").queryAs(Label.class);
        GuiTestSupport.waitUntil(() -> count.getText().startsWith(GuiTestSupport.vm.browser().matchCountProperty().get() + " of"));
        @SuppressWarnings("unchecked")
        TreeView<String> tree = robot.lookup("#browser-tree").queryAs(TreeView.class);
        assertEquals(1, tree.getRoot().getChildren().size());
        TreeItem<String> sched = tree.getRoot().getChildren().get(0);
        assertEquals("sched", sched.getValue());
        assertTrue(sched.isExpanded());
        robot.clickOn("sched_switch");
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.browser().detailsProperty().get() != null);
        assertEquals("sched:sched_switch", robot.lookup("#details-name").queryAs(Label.class).getText());
        assertTrue(robot.lookup("#details-printfmt-pretty").queryTextInputControl().getText().contains(",\n"));
        assertEquals("snapshot of Linux 6.18, read only", robot.lookup("#browser-source").queryAs(Label.class).getText());
        robot.clickOn("#browser-add-to-capture");
        assertEquals(List.of(EventSelection.parse("sched:sched_switch", "")), GuiTestSupport.vm.capture().getEvents());
    }

    @Test
    void aGlobSearchAndAWholeSystemAddSeveralEvents(FxRobot robot) throws Exception {
        selectTab(robot, "Browser");
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.browser().fieldsIndexedProperty().get());
        robot.clickOn("#browser-search").write("irq_handler_*");
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.browser().matchCountProperty().get() == 2);
        robot.clickOn("irq  (2)");
        GuiTestSupport.waitUntil(() -> robot.lookup("#browser-add-to-capture").queryButton().getText().equals("Add 2 events to capture"));
        robot.clickOn("#browser-add-to-capture");
        assertEquals(List.of(EventSelection.parse("irq:irq_handler_entry", ""), EventSelection.parse("irq:irq_handler_exit", "")),
                GuiTestSupport.vm.capture().getEvents());
    }

    @Test
    @SuppressWarnings("unchecked")
    void buildAFilterWithTwoConditionsInAnOrGroup(FxRobot robot) throws Exception {
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.browser().totalCountProperty().get() > 2000);
        GuiTestSupport.fx(() -> GuiTestSupport.vm.browser().selectedEventProperty().set("sched:sched_switch"));
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.filter().eventProperty().get() != null);
        selectTab(robot, "Filter builder");
        robot.clickOn("#filter-group-0-add-group");
        robot.clickOn("#filter-group-1-add-condition");
        robot.clickOn("#filter-group-1-add-condition");
        GuiTestSupport.waitUntil(() -> robot.lookup("#filter-cond-3-value").tryQuery().isPresent());
        // Conditions are numbered after their group: 0 = root, 1 = OR group, 2 and 3 = its rows.
        GuiTestSupport.fx(() -> robot.lookup("#filter-cond-2-field").queryAs(ComboBox.class).setValue("prev_pid"));
        robot.clickOn("#filter-cond-2-value").write("1");
        GuiTestSupport.fx(() -> robot.lookup("#filter-cond-3-field").queryAs(ComboBox.class).setValue("next_comm"));
        GuiTestSupport.fx(() -> robot.lookup("#filter-cond-3-op").queryAs(ChoiceBox.class).setValue(Op.GLOB));
        robot.clickOn("#filter-cond-3-value").write("bash*");
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.filter().validProperty().get()
                && robot.lookup("#filter-kernel").queryAs(TextField.class).getText().contains("bash*"));
        assertEquals(Junction.OR, robot.lookup("#filter-group-1-kind").queryAs(ChoiceBox.class).getValue());
        Filter model = GuiTestSupport.vm.filter().toFilter();
        // the root AND group holds one row, the OR group: its tree is the OR of the two conditions
        Or or = (Or) model;
        assertEquals(Junction.OR, Junction.of(or));
        assertEquals(2, Junction.OR.operands(or).size());
        assertTrue(Junction.OR.operands(or).stream().allMatch(c -> c instanceof Comparison));
        assertEquals(FilterBuilderViewModelTest.KERNEL, robot.lookup("#filter-kernel").queryAs(TextField.class).getText());
        assertEquals(FilterBuilderViewModelTest.DISPLAY, robot.lookup("#filter-display").queryAs(TextField.class).getText());
        assertEquals(FilterBuilderViewModelTest.BPF, robot.lookup("#filter-bpf").queryAs(TextField.class).getText());
        assertTrue(robot.lookup("#filter-bpf-approximate").queryAs(Label.class).isVisible());
        robot.clickOn("#filter-use");
        assertEquals(List.of(EventSelection.parse("sched:sched_switch", FilterBuilderViewModelTest.KERNEL)),
                GuiTestSupport.vm.capture().getEvents());
        assertEquals(3, robot.lookup(".tab-pane").queryAs(TabPane.class).getSelectionModel().getSelectedIndex());
    }

    @Test
    @SuppressWarnings("unchecked")
    void loadAKernelFilterTextAndCopyNothingWhileAValueIsInvalid(FxRobot robot) throws Exception {
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.browser().totalCountProperty().get() > 2000);
        GuiTestSupport.fx(() -> GuiTestSupport.vm.browser().selectedEventProperty().set("sched:sched_switch"));
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.filter().eventProperty().get() != null);
        selectTab(robot, "Filter builder");
        robot.clickOn("#filter-text").write("prev_pid == 1 && prev_pidd == 2");
        robot.clickOn("#filter-load");
        Label error = robot.lookup("#filter-load-error").queryAs(Label.class);
        GuiTestSupport.waitUntil(() -> error.getText().startsWith("position 17: no field 'prev_pidd'"));
        assertTrue(error.getText().endsWith("\n" + " ".repeat(17) + "^"), error.getText());

        TextField text = robot.lookup("#filter-text").queryAs(TextField.class);
        GuiTestSupport.fx(() -> text.setText(FilterBuilderViewModelTest.KERNEL));
        robot.clickOn("#filter-load");
        TextField kernel = robot.lookup("#filter-kernel").queryAs(TextField.class);
        GuiTestSupport.waitUntil(() -> FilterBuilderViewModelTest.KERNEL.equals(kernel.getText()));
        assertEquals("", error.getText());
        assertEquals(FilterBuilderViewModelTest.DISPLAY, robot.lookup("#filter-display").queryAs(TextField.class).getText());
        // loaded as the root group (OR, 0) with its two rows (1 and 2)
        assertEquals(Junction.OR, robot.lookup("#filter-group-0-kind").queryAs(ChoiceBox.class).getValue());
        ChoiceBox<Op> op = robot.lookup("#filter-cond-2-op").queryAs(ChoiceBox.class);
        assertEquals(Op.GLOB, op.getValue());
        assertEquals("~", op.getConverter().toString(op.getValue()), "operators show as written in filter text");
        assertTrue(!robot.lookup("#filter-kernel-copy").queryAs(Button.class).isDisabled());

        robot.clickOn("#filter-cond-1-value").write("x");
        GuiTestSupport.waitUntil(() -> kernel.getText().isEmpty());
        assertTrue(robot.lookup("#filter-kernel-copy").queryAs(Button.class).isDisabled());
        assertTrue(robot.lookup("#filter-display-copy").queryAs(Button.class).isDisabled());
        assertTrue(robot.lookup("#filter-bpf-copy").queryAs(Button.class).isDisabled());
        assertTrue(robot.lookup("#filter-use").queryAs(Button.class).isDisabled());
    }

    @Test
    @SuppressWarnings("unchecked")
    void saveAndReopenASession(FxRobot robot) throws Exception {
        GuiTestSupport.fx(() -> {
            GuiTestSupport.vm.capture().addEvent("sched:sched_wakeup", "pid == 1");
            GuiTestSupport.vm.capture().ifaceProperty().set("twtest0");
        });
        selectTab(robot, "Start");
        Path file = dir.resolve("gui-session.json");
        TextField f = robot.lookup("#start-session-file").queryAs(TextField.class);
        GuiTestSupport.fx(() -> f.setText(file.toString()));
        robot.clickOn("#start-save");
        GuiTestSupport.waitUntil(() -> Files.isRegularFile(file));
        ListView<Path> recent = robot.lookup("#start-recent").queryAs(ListView.class);
        GuiTestSupport.waitUntil(() -> recent.getItems().contains(file.toAbsolutePath()));

        GuiTestSupport.fx(() -> {
            GuiTestSupport.vm.capture().getEvents().clear();
            GuiTestSupport.vm.capture().ifaceProperty().set("");
        });
        robot.clickOn("#start-open");
        GuiTestSupport.waitUntil(() -> !GuiTestSupport.vm.capture().getEvents().isEmpty());
        // the view is selected after the events are filled in: wait for it too (a CI run read it before)
        TabPane tabs = robot.lookup(".tab-pane").queryAs(TabPane.class);
        GuiTestSupport.waitUntil(() -> tabs.getSelectionModel().getSelectedIndex() == 3);
        assertEquals(List.of(EventSelection.parse("sched:sched_wakeup", "pid == 1")), GuiTestSupport.vm.capture().getEvents());
        assertEquals("twtest0", robot.lookup("#capture-iface").queryAs(TextField.class).getText());
        assertEquals(3, robot.lookup(".tab-pane").queryAs(TabPane.class).getSelectionModel().getSelectedIndex(),
                "opening a session shows the capture view");
        assertTrue(robot.lookup("#capture-start").queryAs(Button.class).isVisible());
    }

    @Test
    @SuppressWarnings("unchecked")
    void aCaptureEventsFilterReopensInTheBuilder(FxRobot robot) throws Exception {
        GuiTestSupport.waitUntil(() -> GuiTestSupport.vm.browser().totalCountProperty().get() > 2000);
        GuiTestSupport.fx(() -> GuiTestSupport.vm.capture().addEvent("sched:sched_switch", FilterBuilderViewModelTest.KERNEL));
        selectTab(robot, "Capture");
        ListView<EventSelection> events = robot.lookup("#capture-events").queryAs(ListView.class);
        GuiTestSupport.fx(() -> events.getSelectionModel().select(0));
        robot.clickOn("#capture-edit-filter");
        GuiTestSupport.waitUntil(() -> robot.lookup(".tab-pane").queryAs(TabPane.class).getSelectionModel().getSelectedIndex() == 2);
        assertEquals("sched:sched_switch", GuiTestSupport.vm.filter().eventProperty().get().fullName());
        assertEquals(FilterBuilderViewModelTest.KERNEL, robot.lookup("#filter-text").queryAs(TextField.class).getText());
        TextField kernel = robot.lookup("#filter-kernel").queryAs(TextField.class);
        GuiTestSupport.waitUntil(() -> FilterBuilderViewModelTest.KERNEL.equals(kernel.getText()));
        // the rows are the filter's: change one and use it, the capture's filter is replaced
        TextField pid = robot.lookup("#filter-cond-1-value").queryAs(TextField.class);
        assertEquals("1", pid.getText());
        robot.clickOn(pid).write("2");
        GuiTestSupport.waitUntil(() -> kernel.getText().startsWith("prev_pid == 12 "));
        robot.clickOn("#filter-use");
        assertEquals(List.of(EventSelection.parse("sched:sched_switch", "prev_pid == 12 || next_comm ~ \"bash*\"")),
                GuiTestSupport.vm.capture().getEvents());
    }
}
