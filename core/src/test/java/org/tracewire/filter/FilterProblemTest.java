package org.tracewire.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The caret line under a filter, short and long. */
class FilterProblemTest {
    @Test
    void shortTextIsShownWholeWithTheCaretUnderThePosition() {
        assertEquals("a == 1\n     ^", FilterProblem.pointer("a == 1", 5));
        assertEquals("a\t== 1\n \t^", FilterProblem.pointer("a\t== 1", 2), "tabs kept so the caret lines up");
        assertEquals("a == 1\n    ^", FilterProblem.pointer("a ==\u001b1", 4),
                "control characters are not sent to the terminal");
        assertTrue(FilterProblem.pointer("a ==\u001b[2J 1", 0).indexOf('\u001b') < 0);
    }

    @Test
    void longTextIsCutToAWindowAroundThePosition() {
        String text = "x".repeat(50_000) + "FAULT" + "y".repeat(50_000);
        String[] lines = FilterProblem.pointer(text, 50_000).split("\n");
        assertTrue(lines[0].startsWith("...") && lines[0].endsWith("..."), lines[0]);
        assertTrue(lines[0].length() <= FilterProblem.POINTER_WIDTH + 6, lines[0].length() + " chars");
        assertEquals(lines[0].indexOf("FAULT"), lines[1].indexOf('^'));
        String end = FilterProblem.pointer(text, text.length()).split("\n")[0];
        assertTrue(end.startsWith("...") && end.endsWith("y"), "the end shown without a trailing cut: " + end);
    }
}
