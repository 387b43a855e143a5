package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableListBase;
import org.junit.jupiter.api.Test;

/**
 * The window of rows a table shows ({@link RowWindow}) over a list that reports updated rows and
 * grows at its end, as the store table's rows do: its rows are the source's from {@code top},
 * an update of a source row in the window reaches the window's row and one outside does not, and a
 * source grown at its end fills a window at the end without moving it.
 */
class RowWindowTest {
    /** A list of numbers that says when rows changed (pages arriving) and grows (a live capture). */
    private static final class Source extends ObservableListBase<Integer> {
        private final List<Integer> rows = new ArrayList<>();

        Source(int n) {
            for (int i = 0; i < n; i++) {
                rows.add(i);
            }
        }

        void change(int from, int to) {
            beginChange();
            for (int i = from; i < to; i++) {
                rows.set(i, rows.get(i) + 1000);
                nextUpdate(i);
            }
            endChange();
        }

        void grow(int n) {
            int from = rows.size();
            for (int i = 0; i < n; i++) {
                rows.add(from + i);
            }
            beginChange();
            nextAdd(from, from + n);
            endChange();
        }

        @Override
        public Integer get(int index) {
            return rows.get(index);
        }

        @Override
        public int size() {
            return rows.size();
        }
    }

    @Test
    void showsTheSourcesRowsFromTopAndFollowsTheirChanges() {
        Source source = new Source(100);
        RowWindow<Integer> window = new RowWindow<>(-1);
        window.setCapacity(10);
        window.setSource(source);
        window.setTop(40);
        assertEquals(List.of(40, 41, 42, 43, 44, 45, 46, 47, 48, 49), List.copyOf(window));

        List<Integer> updated = new ArrayList<>();
        window.addListener((ListChangeListener<Integer>) c -> {
            while (c.next()) {
                assertTrue(c.wasUpdated(), "only updates: " + c);
                for (int i = c.getFrom(); i < c.getTo(); i++) {
                    updated.add(i);
                }
            }
        });
        source.change(45, 60); // half in the window
        assertEquals(List.of(5, 6, 7, 8, 9), updated, "the window's rows of the source rows changed");
        assertEquals(1045, window.get(5));
        updated.clear();
        source.change(0, 30);
        assertEquals(List.of(), updated, "rows outside the window");
    }

    @Test
    void aWindowAtTheEndFillsAsTheSourceGrowsWithoutMoving() {
        Source source = new Source(25);
        RowWindow<Integer> window = new RowWindow<>(-1);
        window.setSource(source);
        window.setCapacity(10);
        window.setTop(20);
        assertEquals(List.of(20, 21, 22, 23, 24), List.copyOf(window), "the last rows: fewer than the capacity");
        int[] added = {0};
        window.addListener((ListChangeListener<Integer>) c -> {
            while (c.next()) {
                added[0] += c.getAddedSize();
            }
        });
        source.grow(30);
        assertEquals(20, window.top(), "the window stays where it was");
        assertEquals(List.of(20, 21, 22, 23, 24, 25, 26, 27, 28, 29), List.copyOf(window));
        assertEquals(5, added[0], "five rows added at the window's end");

        window.setCapacity(4);
        assertEquals(List.of(20, 21, 22, 23), List.copyOf(window));
        window.setSource(new Source(22));
        assertEquals(List.of(20, 21), List.copyOf(window), "a shorter list: the rows left from top");
    }
}
