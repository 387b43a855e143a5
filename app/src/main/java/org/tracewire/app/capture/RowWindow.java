package org.tracewire.app.capture;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.collections.ObservableListBase;

/**
 * The rows a table shows of a much longer list: rows {@code top} to {@code top + capacity} of the
 * source (fewer at its end). The table's {@code VirtualFlow} then lays out a page of rows whatever
 * the source's length (JavaFX 21's flow walks the rows from 0 to its position on every layout);
 * the window's owner scrolls by moving {@code top} ({@link StoreTableView}). Updates of source rows
 * in the window are reported as updates of their window rows; a move, a resize or a new source
 * as updates of every row (with rows added or removed at the end when the count changes). UI
 * thread.
 *
 * @param <T> the row type
 */
final class RowWindow<T> extends ObservableListBase<T> {
    private final T blank;
    private ObservableList<T> source = FXCollections.emptyObservableList();
    private int top;
    private int capacity;
    private int size;
    private final ListChangeListener<T> onSource = this::sourceChanged;

    /**
     * @param blank a row standing for rows no longer in the window (in the removed part of a change)
     */
    RowWindow(T blank) {
        this.blank = blank;
    }

    /** The source (the whole list). */
    ObservableList<T> source() {
        return source;
    }

    /** Shows another list, from the same {@code top}. */
    void setSource(ObservableList<T> list) {
        source.removeListener(onSource);
        source = list == null ? FXCollections.emptyObservableList() : list;
        source.addListener(onSource);
        changed();
    }

    /** The source row of window row 0. */
    int top() {
        return top;
    }

    /** Moves the window: source row {@code top} becomes window row 0. */
    void setTop(int top) {
        if (top != this.top) {
            this.top = Math.max(0, top);
            changed();
        }
    }

    /** Rows the window holds at most. */
    int capacity() {
        return capacity;
    }

    /** Sets how many rows the window holds at most. */
    void setCapacity(int capacity) {
        if (capacity != this.capacity) {
            this.capacity = Math.max(0, capacity);
            changed();
        }
    }

    private int wanted() {
        return Math.max(0, Math.min(capacity, source.size() - top));
    }

    /** Every row changed: updates, and rows added or removed at the end. */
    private void changed() {
        int before = size;
        size = wanted();
        beginChange();
        for (int i = 0; i < Math.min(before, size); i++) {
            nextUpdate(i);
        }
        if (size > before) {
            nextAdd(before, size);
        } else if (size < before) {
            nextRemove(size, new ArrayList<>(Collections.nCopies(before - size, blank)));
        }
        endChange();
    }

    private void sourceChanged(ListChangeListener.Change<? extends T> c) {
        boolean structural = false;
        List<int[]> updated = new ArrayList<>();
        while (c.next()) {
            if (c.wasUpdated()) {
                int from = Math.max(c.getFrom(), top) - top;
                int to = Math.min(c.getTo(), top + size) - top;
                if (from < to) {
                    updated.add(new int[] {from, to});
                }
            } else {
                structural = true;
            }
        }
        if (structural) {
            changed();
            return;
        }
        if (!updated.isEmpty()) {
            beginChange();
            for (int[] u : updated) {
                for (int i = u[0]; i < u[1]; i++) {
                    nextUpdate(i);
                }
            }
            endChange();
        }
    }

    @Override
    public T get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException(index);
        }
        return source.get(top + index);
    }

    @Override
    public int size() {
        return size;
    }
}
