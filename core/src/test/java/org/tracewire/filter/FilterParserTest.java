package org.tracewire.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link FilterParser}: trees for hand-written filters and positioned errors. */
class FilterParserTest {

    private static Comparison cmp(String f, Op op, long v) {
        return new Comparison(f, op, Value.of(v));
    }

    private static Comparison cmp(String f, Op op, String v) {
        return new Comparison(f, op, Value.of(v));
    }

    @Test
    void singleComparison() {
        assertEquals(cmp("prev_pid", Op.EQ, 1), Filter.parse("prev_pid == 1"));
        assertEquals(cmp("prev_pid", Op.GE, 1), Filter.parse("prev_pid>=1"));
        assertEquals(cmp("prev_comm", Op.GLOB, "kworker*"), Filter.parse("prev_comm ~ \"kworker*\""));
        assertEquals(cmp("prev_comm", Op.NE, "a\"b"), Filter.parse("prev_comm != 'a\"b'"));
        assertEquals(cmp("prev_comm", Op.EQ, "a\\b"), Filter.parse("prev_comm == \"a\\b\""));
        assertEquals(cmp("prev_comm", Op.EQ, ""), Filter.parse("prev_comm == \"\""));
        assertEquals(cmp("prev_state", Op.BAND, 3), Filter.parse("\t prev_state  &  3 \n"));
    }

    @Test
    void positionsAreRecorded() {
        Comparison c = (Comparison) Filter.parse("  prev_pid == 42");
        assertEquals(2, c.position());
        assertEquals(14, c.valuePosition());
    }

    @Test
    void numbersAsTheKernelReadsThem() {
        assertEquals(BigInteger.valueOf(16), num("0x10"));
        assertEquals(BigInteger.valueOf(16), num("0X10"));
        assertEquals(BigInteger.valueOf(8), num("010"));
        assertEquals(BigInteger.valueOf(0), num("0"));
        assertEquals(BigInteger.valueOf(-5), num("-5"));
        assertEquals(BigInteger.valueOf(-16), num("-0x10"));
        assertEquals(new BigInteger("18446744073709551615"), num("18446744073709551615"));
        assertEquals(new BigInteger("-9223372036854775808"), num("-9223372036854775808"));
    }

    private static BigInteger num(String text) {
        return ((Value.Num) ((Comparison) Filter.parse("x == " + text)).value()).value();
    }

    @Test
    void andBindsTighterThanOr() {
        Filter f = Filter.parse("a == 1 || b == 2 && c == 3");
        assertEquals(new Or(cmp("a", Op.EQ, 1), new And(cmp("b", Op.EQ, 2), cmp("c", Op.EQ, 3))), f);
        Filter g = Filter.parse("a == 1 && b == 2 || c == 3");
        assertEquals(new Or(new And(cmp("a", Op.EQ, 1), cmp("b", Op.EQ, 2)), cmp("c", Op.EQ, 3)), g);
    }

    @Test
    void operatorsGroupLeftAndParenthesesAreStructure() {
        assertEquals(new Or(new Or(cmp("a", Op.EQ, 1), cmp("b", Op.EQ, 2)), cmp("c", Op.EQ, 3)),
                Filter.parse("a == 1 || b == 2 || c == 3"));
        assertEquals(new Or(cmp("a", Op.EQ, 1), new Or(cmp("b", Op.EQ, 2), cmp("c", Op.EQ, 3))),
                Filter.parse("a == 1 || (b == 2 || c == 3)"));
        assertEquals(cmp("a", Op.EQ, 1), Filter.parse("((a == 1))"));
    }

    @Test
    void notAppliesToThePredicateOrGroupAfterIt() {
        assertEquals(new And(new Not(cmp("a", Op.EQ, 1)), cmp("b", Op.EQ, 2)), Filter.parse("!a == 1 && b == 2"));
        assertEquals(new Not(new And(cmp("a", Op.EQ, 1), cmp("b", Op.EQ, 2))), Filter.parse("!(a == 1 && b == 2)"));
        assertEquals(new Not(new Not(cmp("a", Op.EQ, 1))), Filter.parse("!!(a == 1)"));
    }

    @Test
    void leadingBangInAGlobIsNegationAsInTheKernel() {
        assertEquals(new Not(cmp("comm", Op.GLOB, "kworker*")), Filter.parse("comm ~ \"!kworker*\""));
        assertEquals(cmp("comm", Op.EQ, "!x"), Filter.parse("comm == \"!x\""));
    }

    static Stream<Arguments> errors() {
        return Stream.of(
                Arguments.of("", 0, "empty filter"),
                Arguments.of("   ", 3, "empty filter"),
                Arguments.of("prev_pid", 8, "expected an operator"),
                Arguments.of("prev_pid = 1", 9, "'=' is not an operator"),
                Arguments.of("prev_pid == ", 12, "expected a value"),
                Arguments.of("prev_comm == abc", 13, "string values need quotes"),
                Arguments.of("prev_comm == \"abc", 13, "missing matching quote"),
                Arguments.of("prev_pid == 1a", 12, "'1a' is not an integer"),
                Arguments.of("prev_pid == 08", 12, "'08' is not an integer"),
                Arguments.of("prev_pid == 99999999999999999999", 12, "out of the 64-bit range"),
                Arguments.of("prev_pid == -", 12, "'-' is not an integer"),
                Arguments.of("prev_pid == +5", 12, "expected a number or a quoted string"),
                Arguments.of("(prev_pid == 1", 0, "'(' without a matching ')'"),
                Arguments.of("prev_pid == 1)", 13, "')' without a matching '('"),
                Arguments.of("prev_pid == 1 &&", 16, "expected a predicate"),
                Arguments.of("prev_pid == 1 prev_pid == 2", 14, "expected && or ||"),
                Arguments.of("prev_pid == 1 & 2", 14, "expected && or ||"),
                Arguments.of("call_site.function == 1", 9, "field modifiers"),
                Arguments.of("() ", 1, "empty parentheses"),
                Arguments.of("== 1", 0, "expected a field name"),
                Arguments.of("a == 1 || || b == 2", 10, "expected a field name"));
    }

    @ParameterizedTest
    @MethodSource("errors")
    void errorsArePositioned(String text, int position, String message) {
        FilterSyntaxException e = assertThrows(FilterSyntaxException.class, () -> Filter.parse(text));
        assertEquals(position, e.position(), e.getMessage());
        assertTrue(e.detail().contains(message), e.getMessage());
    }

    @Test
    void caretPointsAtThePosition() {
        FilterSyntaxException e = assertThrows(FilterSyntaxException.class, () -> Filter.parse("prev_comm == abc"));
        assertEquals("prev_comm == abc\n             ^", e.pointer("prev_comm == abc"));
    }

    @Test
    void deepNestingIsAnErrorNotAStackOverflow() {
        String deep = "(".repeat(5000) + "a == 1" + ")".repeat(5000);
        FilterSyntaxException e = assertThrows(FilterSyntaxException.class, () -> Filter.parse(deep));
        assertTrue(e.detail().contains("nested too deeply"));
        String bangs = "!".repeat(5000) + "a == 1";
        assertThrows(FilterSyntaxException.class, () -> Filter.parse(bangs));
    }
}
