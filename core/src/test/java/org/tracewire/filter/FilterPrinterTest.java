package org.tracewire.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Canonical printing: expected text, and re-parsing gives the same tree. */
class FilterPrinterTest {

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", value = {
            "prev_pid==1 => prev_pid == 1",
            "prev_pid == 010 => prev_pid == 8",
            "prev_state & 255 => prev_state & 0xff",
            "prev_state & -2 => prev_state & -2",
            "prev_pid == 0x10 => prev_pid == 16",
            "a==1||b==2&&c==3 => a == 1 || b == 2 && c == 3",
            "(a==1||b==2)&&c==3 => (a == 1 || b == 2) && c == 3",
            "a==1||(b==2||c==3) => a == 1 || (b == 2 || c == 3)",
            "a==1&&(b==2&&c==3) => a == 1 && (b == 2 && c == 3)",
            "((a==1)&&b==2)&&c==3 => a == 1 && b == 2 && c == 3",
            "!a==1 => !(a == 1)",
            "!!a==1 => !!(a == 1)",
            "!(a==1||b==2) => !(a == 1 || b == 2)",
            "c ~ '!x*' => !(c ~ \"x*\")",
            "c == 'say \"hi\"' => c == 'say \"hi\"'",
            "c == \"it's\" => c == \"it's\"",
            "c ~ \"a\\*b\" => c ~ \"a\\*b\"",
    })
    void canonicalText(String in, String expected) {
        Filter f = Filter.parse(in);
        assertEquals(expected, f.toText());
        assertEquals(f, Filter.parse(f.toText()));
    }

    @Test
    void aGlobStartingWithBangIsEscaped() {
        Filter f = new Comparison("c", Op.GLOB, Value.of("!x"));
        assertEquals("c ~ \"\\!x\"", f.toText());
    }

    @Test
    void unwritableStringsAreRefused() {
        Filter f = new Comparison("c", Op.EQ, Value.of("'\""));
        assertThrows(IllegalArgumentException.class, f::toText);
    }
}
