package org.tracewire.printfmt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.tracewire.format.CTypes;

/** The rule table {@link CArith}: consistent with itself and with the C type names of {@link CTypes}. */
class CArithTest {

    @Test
    void eachTypeHasTheSizeAndSignednessTheFormatsGiveItsName() {
        for (CArith.IntType t : CArith.TYPES) {
            assertEquals(t.size(), CTypes.sizeOf(t.name(), 8), t.name());
            assertEquals(t.signed(), CTypes.isSigned(t.name()), t.name());
        }
        assertEquals(CArith.BOOL.size(), CTypes.sizeOf(CArith.BOOL.name(), 8));
        assertFalse(CTypes.isSigned(CArith.BOOL.name()));
    }

    @Test
    void ranksGrowWithWidthAndBothSignednessesOfAWidthShareOne() {
        CArith.IntType prev = null;
        for (CArith.IntType t : CArith.TYPES) {
            if (prev != null) {
                assertTrue(t.size() == prev.size() ? t.rank() == prev.rank() && prev.signed() && !t.signed()
                        : t.size() > prev.size() && t.rank() > prev.rank(), prev + " then " + t);
            }
            prev = t;
        }
        assertTrue(CArith.TYPES.contains(CArith.PROMOTED));
        assertTrue(CArith.BOOL.rank() < CArith.TYPES.get(0).rank(), "_Bool ranks lowest (6.3.1.1)");
    }

    @Test
    void promotionAndTheUsualConversions() {
        assertTrue(CArith.promotes(1));
        assertTrue(CArith.promotes(2));
        assertFalse(CArith.promotes(4));
        assertFalse(CArith.promotes(8));
        assertTrue(CArith.promotes(3), "an unlisted width ranks by its width");
        assertFalse(CArith.promotes(16));
        assertArrayEquals(new int[] {4, 0}, CArith.common(4, true, 4, false), "int and unsigned int: unsigned int");
        assertArrayEquals(new int[] {8, 1}, CArith.common(4, false, 8, true), "unsigned int and long long: long long");
        assertArrayEquals(new int[] {8, 0}, CArith.common(8, false, 4, true));
        assertEquals(31, CArith.shiftCountMask(4));
        assertEquals(63, CArith.shiftCountMask(8));
    }
}
