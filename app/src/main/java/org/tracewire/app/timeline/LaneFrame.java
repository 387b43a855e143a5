package org.tracewire.app.timeline;

import java.util.Arrays;

/** What to draw in one lane. Slices as segments [x0, x1) of one task (or {@link TimelineModel#SEVERAL}); marks per column. */
public final class LaneFrame {
    /** Segment starts in pixels. */
    public int[] segX0 = new int[16];
    /** Segment ends (exclusive). */
    public int[] segX1 = new int[16];
    /** Segment tasks. */
    public int[] segPid = new int[16];
    /** Segments. */
    public int segments;
    /** Pixel columns holding marks. */
    public int[] markX = new int[16];
    /** Marks in each of those columns. */
    public int[] markCount = new int[16];
    /** Columns with marks. */
    public int markColumns;

    void seg(int x0, int x1, int p) {
        if (segments > 0 && segPid[segments - 1] == p && segX1[segments - 1] == x0) {
            segX1[segments - 1] = x1;
            return;
        }
        if (segments == segX0.length) {
            segX0 = Arrays.copyOf(segX0, segments * 2);
            segX1 = Arrays.copyOf(segX1, segments * 2);
            segPid = Arrays.copyOf(segPid, segments * 2);
        }
        segX0[segments] = x0;
        segX1[segments] = x1;
        segPid[segments] = p;
        segments++;
    }

    void mark(int x, int count) {
        if (markColumns == markX.length) {
            markX = Arrays.copyOf(markX, markColumns * 2);
            markCount = Arrays.copyOf(markCount, markColumns * 2);
        }
        markX[markColumns] = x;
        markCount[markColumns] = count;
        markColumns++;
    }

    /** Drawn items: segments plus mark columns (at most 2 per pixel column). */
    public int items() {
        return segments + markColumns;
    }
}
