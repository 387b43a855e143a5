package org.tracewire.printfmt;

import java.util.List;
import java.util.stream.IntStream;

/**
 * C's integer arithmetic rules as data, in one place: {@link CInt} applies them for the print fmt
 * {@link Evaluator} and the dissector generator's constant folding, and the dissector generator
 * emits them into the Lua runtime's parameters ({@code TW_PARAMS.c_arith}), whose {@code promote},
 * {@code convert}, shifts, division and comparisons read them. Follows C11 as gcc does on the
 * kernel's targets (x86-64, i386): integer promotion (6.3.1.1), the usual arithmetic conversions
 * (6.3.1.8), shift counts modulo the promoted width (x86's shift instructions; C leaves larger
 * counts undefined), truncating division (6.5.5), comparisons yielding an {@code int} (6.5.8).
 */
public final class CArith {

    /**
     * A C integer type.
     *
     * @param name   the C spelling
     * @param size   bytes
     * @param signed whether it is signed
     * @param rank   conversion rank (6.3.1.1): one per width, as on the kernel's targets, where
     *               {@code long} shares its width and conversions with {@code int} or {@code long long}
     */
    public record IntType(String name, int size, boolean signed, int rank) {
    }

    /** C's integer types by width and signedness, narrowest first. */
    public static final List<IntType> TYPES = List.of(
            new IntType("signed char", 1, true, 1), new IntType("unsigned char", 1, false, 1),
            new IntType("short", 2, true, 2), new IntType("unsigned short", 2, false, 2),
            new IntType("int", 4, true, 3), new IntType("unsigned int", 4, false, 3),
            new IntType("long long", 8, true, 4), new IntType("unsigned long long", 8, false, 4));

    /** Integer promotion's type: a type of lower rank becomes {@code int}. */
    public static final IntType PROMOTED = TYPES.get(4);

    /** The usual arithmetic conversions of two types of equal rank: unsigned when either is. */
    public static final boolean EQUAL_RANK_UNSIGNED = true;

    /**
     * A shift's result has the promoted left operand's type, and the count is taken modulo that
     * type's width in bits.
     */
    public static final boolean SHIFT_COUNT_MODULO_WIDTH = true;

    /** How {@code /} rounds: toward zero (a remainder has the dividend's sign). */
    public static final String DIVISION = "truncate";

    /** What comparisons, {@code !}, {@code &&} and {@code ||} yield: an {@code int} 1 or 0. */
    public static final IntType TRUTH = PROMOTED;

    /** What a cast to {@code bool}/{@code _Bool} yields: one unsigned byte, 1 or 0. */
    public static final IntType BOOL = new IntType("_Bool", 1, false, 0);

    private CArith() {
    }

    /**
     * The conversion rank of the integer type of {@code size} bytes: the table's; a size the table
     * lacks ranks between the widths around it (so it orders as its width does).
     */
    public static int rank(int size) {
        return size >= 0 && size < RANKS.length ? RANKS[size] : rankOf(size);
    }

    // every binary operator of every print fmt asks (twice): sizes 0..8 from a table, not the list's iterator
    private static final int[] RANKS = IntStream.rangeClosed(0, 8).map(CArith::rankOf).toArray();

    private static int rankOf(int size) {
        int below = 0;
        for (IntType t : TYPES) {
            if (t.size == size) {
                return 2 * t.rank;
            }
            if (t.size < size && t.signed) {
                below = t.rank;
            }
        }
        return 2 * below + 1;
    }

    /** Whether integer promotion widens a type of {@code size} bytes to {@link #PROMOTED}. */
    public static boolean promotes(int size) {
        return rank(size) < rank(PROMOTED.size);
    }

    /**
     * The common type of the usual arithmetic conversions for two promoted types.
     *
     * @return {size in bytes, 1 when signed else 0}
     */
    static int[] common(int sizeA, boolean signedA, int sizeB, boolean signedB) {
        int ra = rank(sizeA);
        int rb = rank(sizeB);
        if (ra == rb) {
            return new int[] {sizeA, (EQUAL_RANK_UNSIGNED ? signedA && signedB : signedA || signedB) ? 1 : 0};
        }
        return ra > rb ? new int[] {sizeA, signedA ? 1 : 0} : new int[] {sizeB, signedB ? 1 : 0};
    }

    /** The mask a shift count of a promoted type of {@code size} bytes is taken with (all bits when not masked). */
    static long shiftCountMask(int size) {
        return SHIFT_COUNT_MODULO_WIDTH ? size * 8L - 1 : -1L;
    }
}
