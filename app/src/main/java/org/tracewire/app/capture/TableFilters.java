package org.tracewire.app.capture;

import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

/**
 * What an event table is filtered by, shared by the window of rows' table
 * ({@link EventTableViewModel}) and an opened file's table over its store ({@link StoreTable}):
 * the filter box in the kernel's filter syntax with its error, an event restriction and a thread,
 * and the context menu's "filter on" actions that add a condition to the box.
 */
public abstract class TableFilters {
    /** The filter box's text. */
    protected final StringProperty filterText = new SimpleStringProperty("");
    /** The filter's error, empty when valid. */
    protected final StringProperty filterError = new SimpleStringProperty("");
    /** Where the filter's error is, -1 when none. */
    protected final IntegerProperty filterErrorPosition = new SimpleIntegerProperty(-1);
    /** The event restriction ("system:event"), or null. */
    protected final StringProperty eventRestriction = new SimpleStringProperty(null);
    /** The thread restriction (a pid), or null. */
    protected final ObjectProperty<Integer> thread = new SimpleObjectProperty<>(null);

    /** The filter box's text (kernel filter syntax). */
    public StringProperty filterTextProperty() {
        return filterText;
    }

    /** The filter's error (a caret line, the detail, what the table shows meanwhile), empty when it is valid. */
    public StringProperty filterErrorProperty() {
        return filterError;
    }

    /** Position of the filter's error, -1 when none. */
    public IntegerProperty filterErrorPositionProperty() {
        return filterErrorPosition;
    }

    /** Only rows of this event ("system:event"), or null for all. */
    public StringProperty eventRestrictionProperty() {
        return eventRestriction;
    }

    /** Only rows of or naming this pid, or null for all. */
    public ObjectProperty<Integer> threadProperty() {
        return thread;
    }

    /** Adds {@code common_pid == PID} to the filter (AND). */
    public void filterOnPid(EventRow r) {
        and("common_pid == " + r.pid());
    }

    /** Adds {@code COMM == "comm"} to the filter (AND). */
    public void filterOnComm(EventRow r) {
        and("COMM == \"" + (r.comm() == null ? "" : r.comm()).replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
    }

    /** Adds {@code CPU == N} to the filter (AND). */
    public void filterOnCpu(EventRow r) {
        and("CPU == " + r.cpu());
    }

    /** Shows only the row's event. */
    public void filterOnEvent(EventRow r) {
        eventRestriction.set(r.event());
    }

    /** Shows only rows of the row's task or naming it. */
    public void followThread(EventRow r) {
        thread.set(r.pid());
    }

    /** Clears the filter, the event restriction and the thread. */
    public void clearFilters() {
        filterText.set("");
        eventRestriction.set(null);
        thread.set(null);
    }

    private void and(String cond) {
        String t = filterText.get() == null ? "" : filterText.get().strip();
        filterText.set(t.isEmpty() ? cond : "(" + t + ") && " + cond);
    }
}
