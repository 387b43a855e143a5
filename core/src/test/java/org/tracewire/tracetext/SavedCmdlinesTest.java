package org.tracewire.tracetext;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** {@link SavedCmdlines#parse}: "PID COMM" lines, the rest skipped; the last line for a pid wins. */
class SavedCmdlinesTest {
    @Test
    void linesAreParsedAndMalformedOnesSkipped() {
        SavedCmdlines c = SavedCmdlines.parse("\n12 bash\n 13 lead\n14\nx15 no\n16 two words\r\n+17 plus\n"
                + "99999999999 big\n18 old\n18 new\n-3 neg\n19 \n20 last");
        assertEquals("bash", c.comm(12));
        assertEquals("<...>", c.comm(13), "a line starting with a space");
        assertEquals("<...>", c.comm(14), "no comm");
        assertEquals("<...>", c.comm(15));
        assertEquals("two words\r", c.comm(16), "the rest of the line, as stored");
        assertEquals("plus", c.comm(17));
        assertEquals("new", c.comm(18));
        assertEquals("", c.comm(19));
        assertEquals("last", c.comm(20), "the last line without a newline");
        assertEquals("<idle>", c.comm(0));
        assertEquals("<XXX>", c.comm(-3));
        assertEquals("<...>", SavedCmdlines.parse("").comm(1));
    }
}
