package org.tracewire.app.histogram;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.scene.control.ComboBox;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import org.tracewire.app.capture.RowRecords;
import org.tracewire.app.capture.TestRows;
import org.tracewire.app.util.FxTaskExecutor;

/**
 * Headless, the real histogram view: the event's fields offered again (a live capture's store
 * read again as it grows, with the same events) keep the keys the user chose. The Key box lists
 * the fields: replacing its list let go of its value, which the builder then took for "no key"
 * and reset to {@code common_pid.execname}.
 */
@ExtendWith(ApplicationExtension.class)
class HistKeysGuiTest {
    private static final String SWITCH = "sched:sched_switch";
    private final RowRecords records = TestRows.records();
    private HistogramViewModel vm;

    @Start
    void start(Stage stage) {
        vm = new HistogramViewModel(new FxTaskExecutor(), records);
        vm.appended(TestRows.fixture());
        stage.setScene(new Scene(new HistogramView(vm), 1200, 800));
        stage.show();
    }

    @Test
    void theSameFieldsOfferedAgainKeepTheChosenKeys(FxRobot robot) throws Exception {
        WaitForAsyncUtils.asyncFx(() -> {
            vm.eventProperty().set(SWITCH);
            assertTrue(vm.applyTriggerText("hist:keys=prev_comm,next_pid.hex:vals=hitcount,prev_prio"), vm.errorProperty().get());
        }).get(30, TimeUnit.SECONDS);
        WaitForAsyncUtils.waitForFxEvents();
        @SuppressWarnings("unchecked")
        ComboBox<String> key1 = robot.lookup("#hist-key1").queryAs(ComboBox.class);
        assertEquals("prev_comm", key1.getValue(), "the Key box shows the trigger's key");
        WaitForAsyncUtils.asyncFx(() -> vm.builder().offer(records.format(SWITCH), false)).get(30, TimeUnit.SECONDS);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals("prev_comm", vm.builder().key1Property().get());
        assertEquals("next_pid", vm.builder().key2Property().get());
        assertEquals("prev_comm", key1.getValue());
        assertTrue(vm.triggerTextProperty().get().startsWith("hist:keys=prev_comm,next_pid.hex:vals=hitcount,prev_prio"),
                vm.triggerTextProperty().get());
    }
}
