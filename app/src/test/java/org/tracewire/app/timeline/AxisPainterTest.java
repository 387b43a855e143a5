package org.tracewire.app.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link AxisPainter}'s tick labels stay inside the canvas. */
class AxisPainterTest {
    @Test
    void aLabelThatWouldRunPastTheRightEdgeIsDrawnLeftOfItsTick() {
        double right = 1000;
        assertEquals(502, AxisPainter.labelLeft(500, 60, right), "room on the right: after the tick");
        double left = AxisPainter.labelLeft(990, 60, right);
        assertEquals(928, left, "the last tick: before it");
        assertTrue(left + 60 <= right, "the label ends inside the canvas");
        assertEquals(940, AxisPainter.labelLeft(938, 60, right), "exactly fits: after the tick");
    }
}
