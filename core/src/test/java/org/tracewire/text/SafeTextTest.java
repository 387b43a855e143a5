package org.tracewire.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** {@link SafeText}: controls and invisible layout characters escaped, everything else kept as the kernel prints it. */
class SafeTextTest {
    @Test
    void controlsBecomeHexEscapes() {
        assertEquals("\\x1b]0;PWN\\x07\\x1b[2J", SafeText.escape("\u001b]0;PWN\u0007\u001b[2J"));
        assertEquals("a\\x0ab\\x09c\\x0d\\x00\\x7f", SafeText.escape("a\nb\tc\r\u0000\u007f"));
        assertEquals("csi \\x9b and nel \\x85", SafeText.escape("csi \u009b and nel \u0085"), "C1 controls");
        assertEquals("\\u202egnp.exe \\u2066x\\u2069 \\u2028", SafeText.escape("\u202egnp.exe \u2066x\u2069 \u2028"));
        assertEquals("null", SafeText.escape(null));
    }

    @Test
    void printableTextIsKeptAsIs() {
        String s = "kworker/1:2-events sched_switch: prev_comm=bash ==> next_comm=\u00e9t\u00e9 \u4e2d\u6587 \\x1b";
        assertSame(s, SafeText.escape(s), "nothing to escape: the same string");
        for (char c = 0x20; c < 0x7f; c++) {
            assertEquals(String.valueOf(c), SafeText.escape(String.valueOf(c)));
        }
        assertEquals("\u00a0\u00ff\u0100", SafeText.escape("\u00a0\u00ff\u0100"));
    }

    @Test
    void linesAndTabsCanBeKept() {
        assertEquals("<stack trace>\n\t=> f\\x1b[2J", SafeText.escapeKeepingLines("<stack trace>\n\t=> f\u001b[2J"));
        assertEquals("\\x0d\\x0b\\x0c", SafeText.escapeKeepingLines("\r\u000b\u000c"));
    }
}
