package org.tracewire.app.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

class PrintFmtPrettyTest {
    @Test
    void breaksAfterTopLevelCommas() {
        assertEquals("\"a=%d b=%s\",\nREC->a,\nREC->b", PrintFmtPretty.pretty("\"a=%d b=%s\", REC->a, REC->b"));
    }

    @Test
    void commasInsideStringsAndShortCallsStay() {
        assertEquals("\"x, y=%s\",\nfoo(REC->a, 1)", PrintFmtPretty.pretty("\"x, y=%s\", foo(REC->a, 1)"));
    }

    @Test
    void longNestedCallsAreIndentedByDepth() {
        String fmt = "\"flags=%s\", __print_flags(REC->flags, \"|\", { 0x01, \"FIRST_FLAG\" }, { 0x02, \"SECOND_FLAG\" }, "
                + "{ 0x04, \"THIRD_FLAG_WITH_A_LONG_NAME\" })";
        String expected = String.join("\n",
                "\"flags=%s\",",
                "__print_flags(",
                "    REC->flags,",
                "    \"|\",",
                "    { 0x01, \"FIRST_FLAG\" },",
                "    { 0x02, \"SECOND_FLAG\" },",
                "    { 0x04, \"THIRD_FLAG_WITH_A_LONG_NAME\" }",
                ")");
        assertEquals(expected, PrintFmtPretty.pretty(fmt));
    }

    @Test
    void escapedQuotesAndUnbalancedInputDoNotBreakIt() {
        assertEquals("\"say \\\"hi, there\\\"\",\nREC->x", PrintFmtPretty.pretty("\"say \\\"hi, there\\\"\", REC->x"));
        assertEquals("\"%d\",\nf(REC->a, b", PrintFmtPretty.pretty("\"%d\", f(REC->a, b"));
        assertEquals("", PrintFmtPretty.pretty("  "));
    }

    @Test
    void everySnapshotPrintFmtKeepsItsNonSpaceCharacters() {
        Tracefs t = Tracefs.open(Prerequisites.snapshot());
        int n = 0;
        for (String e : t.allEvents()) {
            String[] se = e.split(":", 2);
            EventFormat f;
            try {
                f = t.format(se[0], se[1]);
            } catch (RuntimeException ex) {
                continue;
            }
            String p = PrintFmtPretty.pretty(f.printFmt());
            assertEquals(f.printFmt().replaceAll("\\s", ""), p.replaceAll("\\s", ""), e);
            n++;
        }
        assertTrue(n > 2000, "parsed " + n);
        String sw = PrintFmtPretty.pretty(t.format("sched", "sched_switch").printFmt());
        assertTrue(sw.lines().count() > 5, sw);
        assertTrue(sw.lines().anyMatch(l -> l.startsWith("    ")), sw);
    }
}
