package org.tracewire.tracefs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class RingBufferStatsTest {
    /** The text of a 6.18 kernel's per_cpu/cpu0/stats. */
    static final String TEXT = """
            entries: 12
            overrun: 3400
            commit overrun: 2
            bytes: 816
            oldest event ts:  4981.180058
            now ts:  4990.000001
            dropped events: 5
            read events: 9000
            """;

    @Test
    void parsesEveryCounterAndIgnoresTheTimes() {
        RingBufferStats s = RingBufferStats.parse(TEXT);
        assertEquals(new RingBufferStats(12, 3400, 2, 816, 5, 9000), s);
        assertEquals(3407, s.lost());
        assertEquals(12 + 3400 + 9000, s.committed());
        assertEquals(12 + 3400 + 9000 + 2 + 5, s.attempted());
    }

    @Test
    void differences() {
        RingBufferStats a = RingBufferStats.parse(TEXT);
        RingBufferStats b = new RingBufferStats(0, 3500, 2, 0, 5, 9100);
        assertEquals(new RingBufferStats(-12, 100, 0, -816, 0, 100), b.minus(a));
    }

    @Test
    void aMissingCounterIsAnError() {
        assertThrows(IllegalArgumentException.class, () -> RingBufferStats.parse("entries: 1\n"));
    }
}
