package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import javafx.collections.ListChangeListener;
import org.junit.jupiter.api.Test;

class RingObservableListTest {
    @Test
    void appendsDropTheOldestInOneChange() {
        RingObservableList<Integer> list = new RingObservableList<>(5);
        List<String> changes = new ArrayList<>();
        list.addListener((ListChangeListener<Integer>) c -> {
            StringBuilder b = new StringBuilder();
            while (c.next()) {
                if (c.wasRemoved()) {
                    b.append("-").append(c.getRemoved());
                }
                if (c.wasAdded()) {
                    b.append("+").append(c.getAddedSubList());
                }
            }
            changes.add(b.toString());
        });
        list.append(List.of(1, 2, 3));
        list.append(List.of(4, 5, 6, 7));
        assertEquals(List.of(3, 4, 5, 6, 7), list);
        list.append(List.of(8, 9, 10, 11, 12, 13));
        assertEquals(List.of(9, 10, 11, 12, 13), list);
        assertEquals(List.of("+[1, 2, 3]", "-[1, 2]+[4, 5, 6, 7]", "-[3, 4, 5, 6, 7]+[9, 10, 11, 12, 13]"), changes);
        list.clear();
        assertEquals(List.of(), list);
        list.append(List.of(1));
        assertEquals(List.of(1), list);
    }
}
