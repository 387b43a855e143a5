package org.tracewire.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class DataLocTest {
    @Test
    void dataLocCountsFromPayloadStart() {
        int w = (6 << 16) | 48;
        assertEquals(6, DataLoc.length(w));
        assertEquals(48, DataLoc.offset(w, 32, false));
        assertEquals(w, DataLoc.word(48, 6, 32, false));
    }

    @Test
    void relLocCountsFromEndOfWord() {
        // a __rel_loc word at offset 40 whose data starts at 58: stored offset 58 - (40 + 4) = 14
        int w = DataLoc.word(58, 3, 40, true);
        assertEquals((3 << 16) | 14, w);
        assertEquals(58, DataLoc.offset(w, 40, true));
        assertEquals(3, DataLoc.length(w));
    }

    @Test
    void fullSixteenBitRangeAndNoSignExtension() {
        int w = DataLoc.word(0xffff, 0xffff, 0, false);
        assertEquals(0xffff, DataLoc.length(w));
        assertEquals(0xffff, DataLoc.offset(w, 0, false));
        assertThrows(IllegalArgumentException.class, () -> DataLoc.word(0x10000, 1, 0, false));
        assertThrows(IllegalArgumentException.class, () -> DataLoc.word(10, 0x10000, 0, false));
        assertThrows(IllegalArgumentException.class, () -> DataLoc.word(10, 1, 20, true));
    }
}
