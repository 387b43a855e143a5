package org.tracewire.app.main;

import javafx.beans.value.ChangeListener;
import org.tracewire.app.filter.ConditionViewModel;
import org.tracewire.app.filter.FilterNode;
import org.tracewire.app.filter.GroupViewModel;
import org.tracewire.app.filter.Operator;

/**
 * The hidden {@code --screenshot-mode}: once tracefs is loaded, fills the views the way the
 * README's screenshots show them (a search, a selected event, an OR filter, two events in the
 * capture list); on the capture page it starts a capture, on the Wireshark page it generates the
 * dissector. Only view-model calls.
 */
public final class ScreenshotScript {
    private ScreenshotScript() {
    }

    /**
     * @param vm   the main view model
     * @param page the page shown
     */
    public static void run(MainViewModel vm, MainView.Page page) {
        ChangeListener<Number> loaded = new ChangeListener<>() {
            @Override
            public void changed(javafx.beans.value.ObservableValue<? extends Number> o, Number a, Number b) {
                if (b.intValue() == 0) {
                    return;
                }
                vm.browser().totalCountProperty().removeListener(this);
                prepare(vm, page);
            }
        };
        vm.browser().totalCountProperty().addListener(loaded);
    }

    private static void prepare(MainViewModel vm, MainView.Page page) {
        vm.browser().filterTextProperty().set("sched_sw");
        vm.browser().selectedEventProperty().set("sched:sched_switch");
        vm.browser().detailsProperty().addListener((o, a, d) -> {
            if (d == null || vm.filter().rootProperty().get().getChildren().size() > 0) {
                return;
            }
            GroupViewModel or = vm.filter().rootProperty().get().addGroup(FilterNode.Combinator.OR);
            ConditionViewModel c1 = or.addCondition("prev_pid");
            c1.valueProperty().set("1");
            ConditionViewModel c2 = or.addCondition("next_comm");
            c2.operatorProperty().set(Operator.GLOB);
            c2.valueProperty().set("bash*");
            ConditionViewModel c3 = vm.filter().rootProperty().get().addCondition("prev_prio");
            c3.operatorProperty().set(Operator.LT);
            c3.valueProperty().set("140");
            vm.capture().addEvent("sched:sched_wakeup", "");
            vm.useFilterInCapture();
            vm.capture().pcapngProperty().set("/tmp/tracewire-screenshot.pcapng");
            if (page == MainView.Page.WIRESHARK) {
                vm.wireshark().generate();
            }
            if (page == MainView.Page.CAPTURE) {
                vm.capture().getEvents().setAll(new org.tracewire.app.capture.CaptureEventSpec("sched:sched_switch", ""),
                        new org.tracewire.app.capture.CaptureEventSpec("sched:sched_wakeup", ""));
                vm.capture().start();
            }
        });
    }
}
