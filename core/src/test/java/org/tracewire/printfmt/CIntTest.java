package org.tracewire.printfmt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * C's integer arithmetic as {@link CInt} defines it for the evaluator and the dissector generator.
 * Each expected value is what gcc 12 (x86-64, {@code -fwrapv}, as the kernel builds with
 * {@code -fno-strict-overflow}) printed for the same C expression.
 */
class CIntTest {
    private static final CInt INT_M1 = CInt.of(-1, 4, true);
    private static final CInt UINT_1 = CInt.of(1, 4, false);

    private static CInt i32(long v) {
        return CInt.of(v, 4, true);
    }

    private static CInt u32(long v) {
        return CInt.of(v, 4, false);
    }

    @Test
    void narrowTypesArePromotedToInt() {
        // unsigned char 200 + unsigned char 100 == 300 (an int), not 44
        assertEquals(new CInt(300, 4, true), CInt.binary("+", CInt.of(200, 1, false), CInt.of(100, 1, false)));
        // ~(unsigned char)0 == -1, an int
        assertEquals(new CInt(-1, 4, true), CInt.of(0, 1, false).unary("~"));
        // (short)-1 == (unsigned short)65535 is false: both become int, -1 and 65535
        assertEquals(CInt.bool(false), CInt.binary("==", CInt.of(-1, 2, true), CInt.of(65535, 2, false)));
        // (unsigned char)1 << 31 is an int shift: INT_MIN
        assertEquals(new CInt(Integer.MIN_VALUE, 4, true), CInt.binary("<<", CInt.of(1, 1, false), i32(31)));
    }

    @Test
    void theUsualConversionsDecideSignednessAndWidth() {
        assertEquals(CInt.bool(false), CInt.binary("<", INT_M1, UINT_1), "-1 < 1u: both unsigned int");
        assertEquals(CInt.bool(true), CInt.binary("<", CInt.of(-1, 8, true), UINT_1), "-1L < 1u: long wins");
        assertEquals(CInt.bool(true), CInt.binary("==", u32(-1), INT_M1), "(unsigned)-1 == -1");
        assertEquals(CInt.bool(true), CInt.binary(">", CInt.of(-1, 8, false), i32(0)), "(unsigned long)-1 > 0");
        CInt[] c = CInt.convert(CInt.of(-1, 2, true), CInt.of(5, 8, false));
        assertEquals(new CInt(-1, 8, false), c[0], "short -1 as unsigned long");
        assertEquals(new CInt(5, 8, false), c[1]);
    }

    @Test
    void resultsWrapToTheirWidth() {
        assertEquals(new CInt(4294967295L, 4, false), CInt.binary("-", u32(0), i32(1)), "0u - 1");
        assertEquals(new CInt(Integer.MIN_VALUE, 4, true), CInt.binary("+", i32(Integer.MAX_VALUE), i32(1)));
        assertEquals(new CInt(4294967295L, 4, false), UINT_1.unary("-"), "-(unsigned)1");
        assertEquals(CInt.of(1L << 63, 8, false), CInt.binary("<<", CInt.of(1, 8, false), i32(63)));
        assertEquals(0xffL, CInt.of(-1, 1, false).bits(), "of truncates and zero-extends");
        assertEquals(-1L, CInt.of(0xffff, 2, true).bits(), "of truncates and sign-extends");
    }

    @Test
    void divisionTruncatesAndByZeroThrows() {
        assertEquals(i32(-3), CInt.binary("/", i32(-7), i32(2)));
        assertEquals(i32(-1), CInt.binary("%", i32(-7), i32(2)));
        assertEquals(u32(2147483644L), CInt.binary("/", u32(-7), i32(2)), "(unsigned)-7 / 2");
        assertThrows(ArithmeticException.class, () -> CInt.binary("/", i32(1), i32(0)));
        assertThrows(ArithmeticException.class, () -> CInt.binary("%", u32(1), CInt.of(0, 1, false)));
    }

    @Test
    void shiftsFollowTheLeftTypeAndTakeTheCountModuloItsWidth() {
        assertEquals(i32(-4), CInt.binary(">>", i32(-16), i32(2)), "arithmetic on a signed type");
        assertEquals(u32(1), CInt.binary(">>", u32(0x80000000L), i32(31)), "logical on an unsigned type");
        assertEquals(i32(2), CInt.binary("<<", i32(1), i32(33)), "1 << 33 on x86: count 1");
        assertEquals(u32(0x80000000L), CInt.binary("<<", u32(1), CInt.of(31, 8, false)),
                "the count's type does not change the result's");
    }

    @Test
    void logicalOperatorsAndUnknownOperators() {
        assertEquals(CInt.bool(true), CInt.binary("&&", CInt.of(2, 8, false), i32(-1)));
        assertEquals(CInt.bool(false), CInt.binary("||", i32(0), CInt.of(0, 1, true)));
        assertEquals(CInt.bool(true), i32(0).unary("!"));
        assertEquals(i32(200), CInt.of(200, 1, false).unary("+"));
        assertThrows(IllegalArgumentException.class, () -> CInt.binary("**", i32(1), i32(1)));
        assertThrows(IllegalArgumentException.class, () -> i32(1).unary("&"));
    }
}
