package org.tracewire.app.timeline;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.EventRow;

/**
 * The timeline's state: the {@link TimelineModel} fed with the capture's rows, the visible range
 * (zoom, pan, fit; following the newest while not zoomed), the lanes (one per CPU, plus task lanes
 * added on demand), hover details, and the selected event, kept in step with the event table:
 * selecting here selects the row there and the other way round.
 */
public final class TimelineViewModel implements CaptureViewModel.RowSink {
    /** Events the timeline keeps (more than the table's window: the oldest half goes past it). */
    public static final int CAPACITY = 1_000_000;

    private final TimelineModel model = new TimelineModel(CAPACITY);
    private final LongProperty visibleStart = new SimpleLongProperty();
    private final LongProperty visibleEnd = new SimpleLongProperty();
    private final ObservableList<Integer> taskLanes = FXCollections.observableArrayList();
    private final StringProperty hover = new SimpleStringProperty("");
    private final ObjectProperty<Integer> selected = new SimpleObjectProperty<>();
    private final LongProperty version = new SimpleLongProperty();
    private boolean fitted = true;
    private Consumer<EventRow> selectInTable = r -> { };
    private java.util.function.Supplier<List<EventRow>> tableRows = List::of;

    /** An empty timeline. */
    public TimelineViewModel() {
    }

    /**
     * Keeps the timeline and the capture's table selection in step and feeds the timeline.
     *
     * @param capture the capture view model
     */
    public void connect(CaptureViewModel capture) {
        capture.addRowSink(this);
        selectInTable = r -> capture.table().selectedProperty().set(r);
        tableRows = () -> capture.getRows();
        capture.table().selectedProperty().addListener((o, a, r) -> {
            if (r != null) {
                selectRow(r);
            }
        });
    }

    @Override
    public void appended(List<EventRow> batch) {
        for (EventRow r : batch) {
            int next = -1;
            String nextComm = null;
            if (r.event().equals("sched:sched_switch")) {
                Object np = r.fields().get("next_pid");
                try {
                    next = np == null ? -1 : Integer.parseInt(np.toString().strip());
                } catch (NumberFormatException e) {
                    next = -1;
                }
                Object nc = r.fields().get("next_comm");
                nextComm = nc == null ? null : nc.toString();
            }
            model.add(r.ts(), r.cpu(), r.pid(), r.comm(), r.event(), next, nextComm);
        }
        if (fitted) {
            fit();
        }
        version.set(model.version());
    }

    @Override
    public void cleared() {
        model.clear();
        fitted = true;
        selected.set(null);
        fit();
        version.set(model.version());
    }

    /** The model (the view draws its frames). */
    public TimelineModel model() {
        return model;
    }

    /** The lanes in drawing order: CPUs, then tasks. */
    public List<TimelineModel.LaneKey> lanes() {
        List<TimelineModel.LaneKey> out = new ArrayList<>();
        for (int c = 0; c < model.cpuCount(); c++) {
            out.add(TimelineModel.LaneKey.cpu(c));
        }
        for (int p : taskLanes) {
            out.add(TimelineModel.LaneKey.task(p));
        }
        return out;
    }

    /** A lane's label. */
    public String label(TimelineModel.LaneKey k) {
        return k.task() ? model.comm(k.id()) + " (" + k.id() + ")" : "CPU " + k.id();
    }

    /** Shows everything held, and follows the newest. */
    public void fit() {
        fitted = true;
        long s = model.start();
        long e = Math.max(model.end(), s + 1);
        visibleStart.set(s);
        visibleEnd.set(e);
    }

    /**
     * Zooms by {@code factor} (&lt; 1 in, &gt; 1 out) around the point at {@code anchor} (0..1 of the width).
     */
    public void zoom(double factor, double anchor) {
        long s = visibleStart.get();
        long e = visibleEnd.get();
        double span = Math.max(10, (e - s) * factor);
        double at = s + (e - s) * anchor;
        long ns = (long) (at - span * anchor);
        set(ns, ns + (long) span);
    }

    /** Pans by a fraction of the visible width (negative: earlier). */
    public void pan(double fraction) {
        long s = visibleStart.get();
        long e = visibleEnd.get();
        long d = (long) ((e - s) * fraction);
        set(s + d, e + d);
    }

    /** Zooms to the range between two points (0..1 of the width). */
    public void zoomTo(double from, double to) {
        long s = visibleStart.get();
        long e = visibleEnd.get();
        double a = Math.min(from, to);
        double b = Math.max(from, to);
        long ns = s + (long) ((e - s) * a);
        long ne = s + (long) ((e - s) * b);
        set(ns, Math.max(ns + 10, ne));
    }

    private void set(long s, long e) {
        fitted = false;
        visibleStart.set(s);
        visibleEnd.set(e);
    }

    /** Adds a lane for a task (no-op when it has one). */
    public void addTaskLane(int pid) {
        if (!taskLanes.contains(pid)) {
            taskLanes.add(pid);
        }
    }

    /**
     * Describes what is under the pointer.
     *
     * @param lane  lane index in {@link #lanes()}
     * @param x     pixel column
     * @param width pixels
     */
    public void hover(int lane, double x, int width) {
        List<TimelineModel.LaneKey> lanes = lanes();
        if (lane < 0 || lane >= lanes.size() || width <= 0) {
            hover.set("");
            return;
        }
        TimelineModel.LaneKey k = lanes.get(lane);
        long s = visibleStart.get();
        long e = visibleEnd.get();
        long t = s + (long) ((e - s) * (x / width));
        StringBuilder b = new StringBuilder(label(k)).append("  t=").append(String.format("%.6f s", (t - model.start()) / 1e9));
        long[] slice = model.sliceAt(k, t);
        if (slice != null && slice[2] != 0) {
            b.append(String.format("   running %s (%d) for %.3f ms", model.comm((int) slice[2]), slice[2], (slice[1] - slice[0]) / 1e6));
        }
        int i = model.hit(k, s, e, width, x, 3);
        if (i >= 0) {
            b.append("   ").append(model.event(i)).append(" by ").append(model.comm(model.pid(i))).append(" (")
                    .append(model.pid(i)).append(")");
            if (model.nextPid(i) >= 0) {
                b.append(" → ").append(model.comm(model.nextPid(i))).append(" (").append(model.nextPid(i)).append(")");
            }
        }
        hover.set(b.toString());
    }

    /**
     * Selects the event under the pointer, and its row in the event table.
     *
     * @return the event index, or -1 when nothing is near
     */
    public int click(int lane, double x, int width) {
        List<TimelineModel.LaneKey> lanes = lanes();
        if (lane < 0 || lane >= lanes.size()) {
            return -1;
        }
        int i = model.hit(lanes.get(lane), visibleStart.get(), visibleEnd.get(), width, x, 3);
        if (i < 0) {
            return -1;
        }
        selected.set(i);
        EventRow row = findRow(i);
        if (row != null) {
            selectInTable.accept(row);
        } else {
            hover.set("that event has left the table's window");
        }
        return i;
    }

    /** The table row of event i (same time, CPU and event), or null when it left the table. */
    EventRow findRow(int i) {
        long t = model.ts(i);
        int c = model.cpu(i);
        String ev = model.event(i);
        List<EventRow> rows = tableRows.get();
        for (int k = rows.size() - 1; k >= 0; k--) {
            EventRow r = rows.get(k);
            if (r.ts() == t && r.cpu() == c && r.event().equals(ev)) {
                return r;
            }
        }
        return null;
    }

    /** Selects a table row's event here, and brings it into view when it is outside. */
    public void selectRow(EventRow r) {
        int i = model.firstAtOrAfter(r.ts());
        for (; i < model.size() && model.ts(i) == r.ts(); i++) {
            if (model.cpu(i) == r.cpu() && model.event(i).equals(r.event())) {
                selected.set(i);
                long s = visibleStart.get();
                long e = visibleEnd.get();
                if (r.ts() < s || r.ts() > e) {
                    long half = (e - s) / 2;
                    set(r.ts() - half, r.ts() + half);
                }
                return;
            }
        }
    }

    /** Start of the visible range (ns). */
    public LongProperty visibleStartProperty() {
        return visibleStart;
    }

    /** End of the visible range (ns). */
    public LongProperty visibleEndProperty() {
        return visibleEnd;
    }

    /** Pids with a task lane. */
    public ObservableList<Integer> getTaskLanes() {
        return taskLanes;
    }

    /** What is under the pointer. */
    public StringProperty hoverProperty() {
        return hover;
    }

    /** The selected event's index in the model, or null. */
    public ObjectProperty<Integer> selectedProperty() {
        return selected;
    }

    /** Changes when events were added (redraw). */
    public LongProperty versionProperty() {
        return version;
    }
}
