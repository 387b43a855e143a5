package org.tracewire.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Junction}: joining operands the way the parser nests them, and taking chains apart. */
class JunctionTest {
    private static final Comparison A = new Comparison("a", Op.EQ, Value.of(1));
    private static final Comparison B = new Comparison("b", Op.EQ, Value.of(2));
    private static final Comparison C = new Comparison("c", Op.EQ, Value.of(3));

    @Test
    void joinNestsToTheLeftAsTheParserDoes() {
        assertEquals(Filter.parse("a == 1 && b == 2 && c == 3"), Junction.AND.join(List.of(A, B, C)));
        assertEquals(Filter.parse("a == 1 || b == 2 || c == 3"), Junction.OR.join(List.of(A, B, C)));
        assertEquals(A, Junction.OR.join(List.of(A)));
        assertThrows(IllegalArgumentException.class, () -> Junction.AND.join(List.of()));
    }

    @Test
    void operandsFlattenTheLeftSpineOnly() {
        assertEquals(List.of(A, B, C), Junction.AND.operands(Filter.parse("a == 1 && b == 2 && c == 3")));
        Filter right = Filter.parse("a == 1 && (b == 2 && c == 3)");
        assertEquals(List.of(A, new And(B, C)), Junction.AND.operands(right));
        assertEquals(List.of(new And(A, B), C), Junction.OR.operands(Filter.parse("a == 1 && b == 2 || c == 3")));
        assertEquals(List.of(new Not(A)), Junction.AND.operands(new Not(A)));
        assertEquals(List.of(new Or(A, B)), Junction.AND.operands(new Or(A, B)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a == 1", "a == 1 && b == 2", "a == 1 && (b == 2 && c == 3)", "(a == 1 || b == 2) && c == 3",
            "!(a == 1 || b == 2) || c == 3 || a == 1 && b == 2"})
    void joinOfOperandsIsTheSameTree(String text) {
        Filter f = Filter.parse(text);
        for (Junction j : Junction.values()) {
            assertEquals(f, j.join(j.operands(f)), j + " " + text);
        }
    }

    @Test
    void ofNamesTheTopNode() {
        assertEquals(Junction.AND, Junction.of(new And(A, B)));
        assertEquals(Junction.OR, Junction.of(new Or(A, B)));
        assertNull(Junction.of(A));
        assertNull(Junction.of(new Not(new And(A, B))));
        assertEquals("&&", Junction.AND.symbol());
        assertEquals("||", Junction.OR.symbol());
    }
}
