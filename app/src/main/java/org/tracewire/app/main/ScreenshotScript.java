package org.tracewire.app.main;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import javafx.animation.PauseTransition;
import javafx.beans.InvalidationListener;
import javafx.beans.Observable;
import javafx.beans.value.ChangeListener;
import javafx.beans.value.ObservableValue;
import javafx.util.Duration;
import org.tracewire.app.filter.ConditionViewModel;
import org.tracewire.app.filter.GroupViewModel;
import org.tracewire.app.timeline.SliceTimeline;
import org.tracewire.filter.Junction;
import org.tracewire.filter.Op;
import org.tracewire.tracefs.EventSelection;

/**
 * The hidden {@code --screenshot-mode}: once tracefs is loaded, fills the views the way the
 * README's screenshots show them (a search, a selected event, an OR filter, two events in the
 * capture list); on the start page it saves them as a session, on the capture, timeline, latency
 * and histogram pages it starts a capture (unless a file was opened), on the Wireshark page it
 * generates the dissector. Only view-model calls.
 *
 * <p>Once the page shows what its shot should (the browser's fields indexed, a view's result over
 * every event of the store, a live capture running for {@value #LIVE_S} s and its view answered)
 * and no notification is on screen, it prints {@value #READY} on standard output:
 * {@code docs/screenshots/take.sh} takes the shot then.
 */
public final class ScreenshotScript {
    /** The line printed (standard output) when the page is ready for its shot; what follows says why. */
    public static final String READY = "screenshot: ready";
    /** Seconds a live capture runs before its page is shot. */
    static final int LIVE_S = 10;
    /** Seconds a notification stays on screen, with its fade (MainView shows one for 6 s). */
    private static final double NOTICE_S = 8;
    /** The live timeline's shot: the newest slices shown, and the slices among which its task lane's task is the most frequent. */
    static final int TIMELINE_SHOWN = 400;
    static final int TIMELINE_RECENT = 3000;

    private final MainViewModel vm;
    private long lastNotice = Long.MIN_VALUE;
    private boolean said;

    private ScreenshotScript(MainViewModel vm) {
        this.vm = vm;
        vm.noticeProperty().addListener((o, a, n) -> lastNotice = System.nanoTime());
    }

    /**
     * @param vm     the main view model
     * @param page   the page shown
     * @param opened true when a file was opened ({@code --open}): the timeline, latency and
     *               histogram pages then show its store, without a capture
     */
    public static void run(MainViewModel vm, MainView.Page page, boolean opened) {
        ScreenshotScript s = new ScreenshotScript(vm);
        if (page == MainView.Page.QUERY || page == MainView.Page.IOGRAPH) {
            s.storeExample(page);
            return;
        }
        if (opened && (page == MainView.Page.TIMELINE || page == MainView.Page.LATENCY
                || page == MainView.Page.HISTOGRAM)) {
            s.openedView(page);
            return;
        }
        ChangeListener<Number> loaded = new ChangeListener<>() {
            @Override
            public void changed(ObservableValue<? extends Number> o, Number a, Number b) {
                if (b.intValue() == 0) {
                    return;
                }
                vm.browser().totalCountProperty().removeListener(this);
                s.prepare(page);
            }
        };
        vm.browser().totalCountProperty().addListener(loaded);
    }

    /** The timeline, latency and histogram pages of an opened file: ready once the view answered over the whole store. */
    private void openedView(MainView.Page page) {
        var store = vm.capture().storeTableProperty();
        switch (page) {
            case TIMELINE -> when(() -> vm.timeline().slicesProperty().get() != null,
                    () -> ready("timeline: every slice of the store"), vm.timeline().slicesProperty());
            case LATENCY -> when(() -> store.get() != null && vm.latency().summaryProperty().get() != null
                            && !vm.latency().getPairs().isEmpty(),
                    () -> ready("latency: every pair of the store"), store, vm.latency().summaryProperty(), vm.latency().getPairs());
            default -> when(() -> store.get() != null && vm.histogram().overStoreProperty().get()
                            && vm.histogram().tableProperty().get() != null, () -> {
                        // who is switched out, but the workload that dominates a capture taken under stress-ng --switch
                        vm.histogram().eventProperty().set("sched:sched_switch");
                        var before = vm.histogram().tableProperty().get();
                        vm.histogram().applyTriggerText("hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending"
                                + ":size=2048 if prev_comm != \"stress-ng-switc\" && common_pid != 0");
                        when(() -> vm.histogram().tableProperty().get() != null && vm.histogram().tableProperty().get() != before,
                                () -> ready("histogram: every event of the store"), vm.histogram().tableProperty());
                    }, store, vm.histogram().overStoreProperty(), vm.histogram().tableProperty());
        }
    }

    /** The query and I/O graph pages (with {@code --open}): an example query, a filter line and a log axis. */
    private void storeExample(MainView.Page page) {
        if (page == MainView.Page.QUERY) {
            vm.query().availableProperty().addListener((o, a, ok) -> {
                if (ok) {
                    vm.query().sqlProperty().set("SELECT (ts - (SELECT min(ts) FROM events)) // 10000000 * 10 AS ms,\n"
                            + "       count(*) FILTER (WHERE event = 'sched:sched_switch') AS switches,\n"
                            + "       count(*) FILTER (WHERE event = 'sched:sched_wakeup') AS wakeups\n"
                            + "FROM events GROUP BY ms ORDER BY ms");
                    vm.query().run();
                    when(() -> vm.query().resultProperty().get() != null && vm.query().chartProperty().get() != null,
                            () -> ready("query: result and chart"), vm.query().resultProperty(), vm.query().chartProperty());
                }
            });
        } else {
            vm.capture().storeTableProperty().addListener((o, a, t) -> {
                if (t != null) {
                    vm.ioGraph().logScaleProperty().set(true);
                    vm.ioGraph().getFilters().add("common_pid != 0 && prev_state & 1");
                    when(() -> {
                        var g = vm.ioGraph().graphProperty().get();
                        return g != null && g.lines().stream().anyMatch(l -> l.filter() != null);
                    }, () -> ready("I/O graph: every event, with its filter line"), vm.ioGraph().graphProperty());
                }
            });
        }
    }

    private void prepare(MainView.Page page) {
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
            switch (page) {
                case BROWSER -> when(() -> vm.browser().fieldsIndexedProperty().get() && vm.browser().matchCountProperty().get() > 0
                                && vm.browser().detailsProperty().get() != null,
                        () -> ready("browser: fields indexed"), vm.browser().fieldsIndexedProperty(),
                        vm.browser().matchCountProperty(), vm.browser().detailsProperty());
                case WIRESHARK -> {
                    vm.wireshark().generate();
                    when(() -> vm.wireshark().generatedProperty().get() != null, () -> ready("wireshark: dissector generated"),
                            vm.wireshark().generatedProperty());
                }
                case TIMELINE -> {
                    capture("sched:sched_switch", "sched:sched_wakeup", "irq:softirq_entry", "irq:softirq_exit");
                    afterLive(() -> when(() -> {
                        SliceTimeline s = vm.timeline().slicesProperty().get();
                        return s != null && s.size() > 0;
                    }, this::zoomTimeline, vm.timeline().slicesProperty()));
                }
                case LATENCY -> {
                    capture("sched:sched_switch", "sched:sched_wakeup", "irq:softirq_entry", "irq:softirq_exit");
                    afterLive(() -> when(() -> vm.latency().summaryProperty().get() != null && !vm.latency().getPairs().isEmpty(),
                            () -> ready("latency: the live store's pairs"), vm.latency().summaryProperty(), vm.latency().getPairs()));
                }
                case HISTOGRAM -> {
                    capture("sched:sched_switch", "sched:sched_wakeup");
                    afterLive(() -> {
                        vm.histogram().eventProperty().set("sched:sched_switch");
                        vm.histogram().applyTriggerText(
                                "hist:keys=prev_comm:vals=hitcount,prev_prio:sort=hitcount.descending:size=2048");
                        // the table of the trigger applied: the next one that arrives
                        var before = vm.histogram().tableProperty().get();
                        when(() -> vm.histogram().tableProperty().get() != null && vm.histogram().tableProperty().get() != before,
                                () -> ready("histogram: the live store's table"), vm.histogram().tableProperty());
                    });
                }
                case CAPTURE -> {
                    capture("sched:sched_switch", "sched:sched_wakeup");
                    afterLive(() -> when(() -> vm.capture().storeTableProperty().get() != null,
                            () -> ready("capture: the live store's table"), vm.capture().storeTableProperty()));
                }
                case START -> {
                    // the example saved as a session beside the default one: the recent list shows it
                    Path dir = vm.store().configDir().resolve("sessions");
                    vm.saveSession(dir.resolve("sched-switch-bash.json"), () -> ready("start: the example saved as a session"));
                }
                default -> ready(page.name().toLowerCase() + ": the example filled in");
            }
        });
    }

    /** Starts a live capture of these events (no filters). */
    private void capture(String... events) {
        List<EventSelection> list = new ArrayList<>();
        for (String e : events) {
            list.add(EventSelection.parse(e, ""));
        }
        vm.capture().getEvents().setAll(list);
        vm.capture().start();
    }

    /** Runs {@code then} {@value #LIVE_S} s after the capture started running. */
    private void afterLive(Runnable then) {
        when(() -> vm.capture().runningProperty().get(), () -> {
            PauseTransition later = new PauseTransition(Duration.seconds(LIVE_S));
            later.setOnFinished(e -> then.run());
            later.play();
        }, vm.capture().runningProperty());
    }

    /** The live timeline: the newest slices, with a lane for the task switched in most often lately; then ready. */
    private void zoomTimeline() {
        SliceTimeline st = vm.timeline().slicesProperty().get();
        Zoom z = newest(st, TIMELINE_SHOWN, TIMELINE_RECENT);
        if (z.pid() > 0) {
            vm.timeline().addTaskLane(z.pid());
        }
        double span = Math.max(1, st.end() - st.start());
        vm.timeline().fit();
        vm.timeline().zoomTo((z.from() - st.start()) / span, (z.to() - st.start()) / span);
        ready(String.format("timeline: the newest %d slices of %,d, a lane for pid %d", TIMELINE_SHOWN, st.size(), z.pid()));
    }

    /**
     * Where a timeline's shot zooms: from the start of the {@code shown}-th newest slice (of all
     * CPUs, by start) to the timeline's end, and the task (pid &gt; 0) that began most of the
     * {@code recent} newest slices (ties: the smaller pid), or −1 when only idle ran.
     *
     * @param st     the slices (at least one)
     * @param shown  slices to show
     * @param recent slices in which to count the tasks
     * @return the range (ns, trace clock) and the task
     */
    static Zoom newest(SliceTimeline st, int shown, int recent) {
        int n = Math.max(shown, recent);
        List<long[]> last = new ArrayList<>(); // {start, pid}
        for (int c = 0; c < st.cpuCount(); c++) {
            for (int i = Math.max(0, st.size(c) - n); i < st.size(c); i++) {
                long[] s = st.slice(c, i);
                last.add(new long[] {s[0], s[2]});
            }
        }
        last.sort(Comparator.comparingLong((long[] s) -> s[0]).reversed());
        long from = last.isEmpty() ? st.start() : last.get(Math.min(shown, last.size()) - 1)[0];
        Map<Integer, Integer> seen = new HashMap<>();
        for (int i = 0; i < Math.min(recent, last.size()); i++) {
            if (last.get(i)[1] > 0) {
                seen.merge((int) last.get(i)[1], 1, Integer::sum);
            }
        }
        int pid = seen.entrySet().stream()
                .max(Map.Entry.<Integer, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder())))
                .map(Map.Entry::getKey).orElse(-1);
        return new Zoom(from, st.end(), pid);
    }

    /**
     * A timeline shot's range and task lane.
     *
     * @param from start, ns (trace clock)
     * @param to   end, ns
     * @param pid  the task lane's task, −1 for none
     */
    record Zoom(long from, long to, int pid) {
    }

    /** Runs {@code then} once {@code ok} holds (now, or when one of {@code deps} changes). UI thread. */
    private static void when(BooleanSupplier ok, Runnable then, Observable... deps) {
        boolean[] done = {false};
        InvalidationListener[] l = new InvalidationListener[1];
        l[0] = o -> {
            if (done[0]) {
                return;
            }
            if (ok.getAsBoolean()) {
                done[0] = true;
                for (Observable d : deps) {
                    d.removeListener(l[0]);
                }
                then.run();
                return;
            }
            for (Observable d : deps) { // an invalidation listener hears again only after a read
                if (d instanceof ObservableValue<?> v) {
                    v.getValue();
                }
            }
        };
        for (Observable d : deps) {
            d.addListener(l[0]);
        }
        l[0].invalidated(null);
    }

    /** Prints {@value #READY} once no notification is on screen, a second after the page got ready (for its redraw). */
    private void ready(String what) {
        PauseTransition later = new PauseTransition(Duration.seconds(Math.max(1, NOTICE_S - sinceNotice())));
        later.setOnFinished(e -> {
            if (sinceNotice() < NOTICE_S) {
                ready(what); // a notification came meanwhile
            } else if (!said) {
                said = true;
                System.out.println(READY + ": " + what);
                System.out.flush();
            }
        });
        later.play();
    }

    /** Seconds since the last notification was shown (infinite before the first). */
    private double sinceNotice() {
        return lastNotice == Long.MIN_VALUE ? Double.POSITIVE_INFINITY : (System.nanoTime() - lastNotice) / 1e9;
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
}
