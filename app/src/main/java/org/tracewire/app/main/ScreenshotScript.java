package org.tracewire.app.main;

import java.util.HashMap;
import java.util.Map;
import javafx.animation.PauseTransition;
import javafx.beans.value.ChangeListener;
import javafx.beans.value.ObservableValue;
import javafx.util.Duration;
import org.tracewire.app.filter.ConditionViewModel;
import org.tracewire.app.filter.GroupViewModel;
import org.tracewire.filter.Junction;
import org.tracewire.filter.Op;
import org.tracewire.tracefs.EventSelection;

/**
 * The hidden {@code --screenshot-mode}: once tracefs is loaded, fills the views the way the
 * README's screenshots show them (a search, a selected event, an OR filter, two events in the
 * capture list); on the capture, timeline and latency pages it starts a capture (unless a file was
 * opened), on the Wireshark page it generates the dissector. Only view-model calls.
 */
public final class ScreenshotScript {
    private ScreenshotScript() {
    }

    /**
     * @param vm     the main view model
     * @param page   the page shown
     * @param opened true when a file was opened ({@code --open}): the timeline, latency and
     *               histogram pages then show its store as it is, without a capture
     */
    public static void run(MainViewModel vm, MainView.Page page, boolean opened) {
        if (page == MainView.Page.QUERY || page == MainView.Page.IOGRAPH) {
            storeExample(vm, page);
            return;
        }
        if (opened && (page == MainView.Page.TIMELINE || page == MainView.Page.LATENCY
                || page == MainView.Page.HISTOGRAM)) {
            return;
        }
        ChangeListener<Number> loaded = new ChangeListener<>() {
            @Override
            public void changed(ObservableValue<? extends Number> o, Number a, Number b) {
                if (b.intValue() == 0) {
                    return;
                }
                vm.browser().totalCountProperty().removeListener(this);
                prepare(vm, page);
            }
        };
        vm.browser().totalCountProperty().addListener(loaded);
    }

    /** The query and I/O graph pages (with {@code --open}): an example query, a filter line and a log axis. */
    private static void storeExample(MainViewModel vm, MainView.Page page) {
        if (page == MainView.Page.QUERY) {
            vm.query().availableProperty().addListener((o, a, ok) -> {
                if (ok) {
                    vm.query().sqlProperty().set("SELECT (ts - (SELECT min(ts) FROM events)) // 10000000 * 10 AS ms,\n"
                            + "       count(*) FILTER (WHERE event = 'sched:sched_switch') AS switches,\n"
                            + "       count(*) FILTER (WHERE event = 'sched:sched_wakeup') AS wakeups\n"
                            + "FROM events GROUP BY ms ORDER BY ms");
                    vm.query().run();
                }
            });
        } else {
            vm.capture().storeTableProperty().addListener((o, a, t) -> {
                if (t != null) {
                    vm.ioGraph().logScaleProperty().set(true);
                    vm.ioGraph().getFilters().add("common_pid != 0 && prev_state & 1");
                }
            });
        }
    }

    private static void prepare(MainViewModel vm, MainView.Page page) {
        // the browser's shot shows a search by field name (the tree names the matching field)
        vm.browser().filterTextProperty().set(page == MainView.Page.BROWSER ? "prev_pid" : "sched_sw");
        vm.browser().selectedEventProperty().set("sched:sched_switch");
        vm.browser().detailsProperty().addListener((o, a, d) -> {
            if (d == null || vm.filter().rootProperty().get().getChildren().size() > 0) {
                return;
            }
            buildExampleFilter(vm);
            vm.capture().addEvent("sched:sched_wakeup", "");
            vm.useFilterInCapture();
            vm.capture().pcapngProperty().set("/tmp/tracewire-screenshot.pcapng");
            if (page == MainView.Page.WIRESHARK) {
                vm.wireshark().generate();
            }
            if (page == MainView.Page.TIMELINE || page == MainView.Page.LATENCY) {
                vm.capture().getEvents().setAll(EventSelection.parse("sched:sched_switch", ""),
                        EventSelection.parse("sched:sched_wakeup", ""),
                        EventSelection.parse("irq:softirq_entry", ""),
                        EventSelection.parse("irq:softirq_exit", ""));
                vm.capture().start();
                if (page == MainView.Page.TIMELINE) {
                    zoomTimelineLater(vm);
                }
            }
            if (page == MainView.Page.HISTOGRAM) {
                vm.capture().getEvents().setAll(EventSelection.parse("sched:sched_switch", ""),
                        EventSelection.parse("sched:sched_wakeup", ""));
                vm.capture().start();
                PauseTransition later = new PauseTransition(Duration.seconds(6));
                later.setOnFinished(e -> {
                    vm.histogram().eventProperty().set("sched:sched_switch");
                    vm.histogram().applyTriggerText("hist:keys=prev_comm:vals=hitcount,prev_prio:sort=hitcount.descending:size=2048");
                });
                later.play();
            }
            if (page == MainView.Page.CAPTURE) {
                vm.capture().getEvents().setAll(EventSelection.parse("sched:sched_switch", ""),
                        EventSelection.parse("sched:sched_wakeup", ""));
                vm.capture().start();
            }
        });
    }

    /** The filter builder's example: (prev_pid == 1 || next_comm ~ "bash*") && prev_prio < 140. */
    private static void buildExampleFilter(MainViewModel vm) {
        GroupViewModel or = vm.filter().rootProperty().get().addGroup(Junction.OR);
        ConditionViewModel c1 = or.addCondition("prev_pid");
        c1.valueProperty().set("1");
        ConditionViewModel c2 = or.addCondition("next_comm");
        c2.operatorProperty().set(Op.GLOB);
        c2.valueProperty().set("bash*");
        ConditionViewModel c3 = vm.filter().rootProperty().get().addCondition("prev_prio");
        c3.operatorProperty().set(Op.LT);
        c3.valueProperty().set("140");
    }

    /** After 15 s: the time of the last 400 events, with a lane for the task switched in most often lately. */
    private static void zoomTimelineLater(MainViewModel vm) {
        PauseTransition later = new PauseTransition(Duration.seconds(15));
        later.setOnFinished(e -> {
            var m = vm.timeline().model();
            Map<Integer, Integer> seen = new HashMap<>();
            for (int i = Math.max(0, m.size() - 3000); i < m.size(); i++) {
                if (m.nextPid(i) > 0) {
                    seen.merge(m.nextPid(i), 1, Integer::sum);
                }
            }
            seen.entrySet().stream().max(Map.Entry.comparingByValue())
                    .ifPresent(e2 -> vm.timeline().addTaskLane(e2.getKey()));
            long span = m.end() - m.start();
            if (span > 0 && m.size() > 400) {
                vm.timeline().zoomTo((double) (m.ts(m.size() - 400) - m.start()) / span, 1);
            }
        });
        later.play();
    }
}
