package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The queue between a reader and the UI pulse: beyond its bound it keeps the newest. */
class RowQueueTest {
    private static List<String> texts(List<EventRow> rows) {
        return rows.stream().map(EventRow::text).toList();
    }

    @Test
    void acceptKeepsTheNewestAndCountsEveryRow() {
        RowQueue q = new RowQueue(5);
        q.accept(CaptureViewModelTest.batch(0, 3));
        q.accept(CaptureViewModelTest.batch(3, 4));
        RowQueue.Drained d = q.drain();
        assertEquals(List.of("row 2", "row 3", "row 4", "row 5", "row 6"), texts(d.rows()));
        assertEquals(7, d.received(), "every row counted, the dropped ones too");
        q.accept(CaptureViewModelTest.batch(10, 9));
        d = q.drain();
        assertEquals(List.of("row 14", "row 15", "row 16", "row 17", "row 18"), texts(d.rows()), "a batch beyond the bound");
        assertEquals(9, d.received());
        assertEquals(0, q.drain().received(), "drained");
    }
}
