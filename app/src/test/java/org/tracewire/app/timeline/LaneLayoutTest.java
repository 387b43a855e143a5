package org.tracewire.app.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The timeline's lanes use the canvas's height: a few fill it, many keep a readable height and scroll. */
class LaneLayoutTest {
    @Test
    void twoLanesFillTheHeightBelowTheAxis() {
        LaneLayout l = new LaneLayout(600, 2);
        double avail = 600 - LaneLayout.AXIS_H - LaneLayout.BOTTOM;
        assertEquals(avail, l.available());
        assertTrue(l.contentHeight() <= avail && l.contentHeight() > avail - 2, "2 lanes fill the height: " + l.contentHeight());
        assertEquals(0, l.maxScroll(), "nothing to scroll");
        assertEquals(0, l.laneAt(LaneLayout.AXIS_H + 1, 0));
        assertEquals(1, l.laneAt(600 - LaneLayout.BOTTOM - 1, 0), "the bottom of the canvas is the last lane");
        assertEquals(-1, l.laneAt(LaneLayout.AXIS_H - 1, 0), "the axis is no lane");
    }

    @Test
    void oneLaneInATallWindowStopsAtTheMaximum() {
        LaneLayout l = new LaneLayout(2000, 1);
        assertEquals(LaneLayout.MAX, l.laneHeight());
        assertEquals(0, l.maxScroll());
    }

    @Test
    void manyLanesKeepTheirSmallestHeightAndScroll() {
        LaneLayout l = new LaneLayout(400, 40);
        assertEquals(LaneLayout.MIN, l.laneHeight());
        assertEquals(40 * LaneLayout.MIN - l.available(), l.maxScroll());
        double bottom = 400 - LaneLayout.BOTTOM - 1;
        assertTrue(l.laneAt(bottom, 0) < 39, "unscrolled, the last lane is below the canvas");
        assertEquals(39, l.laneAt(bottom, l.maxScroll()), "scrolled to the end, the last lane is at the bottom");
        assertEquals(l.maxScroll(), l.clamp(1e9), "a scroll past the end stops at it");
        assertEquals(LaneLayout.AXIS_H - l.maxScroll() + 39 * LaneLayout.MIN, l.laneTop(39, 1e9));
    }

    @Test
    void theLaneHeightFollowsTheCanvasAndTheLanes() {
        for (int n = 1; n <= 12; n++) {
            for (double h = 200; h <= 1400; h += 37) {
                LaneLayout l = new LaneLayout(h, n);
                double hgt = l.laneHeight();
                assertTrue(hgt >= LaneLayout.MIN && hgt <= LaneLayout.MAX, n + " lanes, height " + h);
                boolean fills = l.contentHeight() > l.available() - n;
                assertTrue(fills || hgt == LaneLayout.MAX, n + " lanes in " + h + " px use the height: " + l.contentHeight());
                assertEquals(Math.max(0, l.contentHeight() - l.available()), l.maxScroll());
            }
        }
    }
}
