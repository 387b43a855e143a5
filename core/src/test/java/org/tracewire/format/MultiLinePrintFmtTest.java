package org.tracewire.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** Regressions found by {@code tracewire formats --check} on Linux 6.18. */
class MultiLinePrintFmtTest {

    @Test
    void printFmtWithRawNewlineParses() {
        EventFormat f = Tracefs.open(Prerequisites.snapshot()).format("ext4", "ext4_fc_stats");
        assertTrue(f.printFmt().startsWith("\"dev %d,%d fc ineligible reasons:\n%s:%u, "), f.printFmt());
        assertTrue(f.printFmt().endsWith("REC->fc_numblks"), f.printFmt());
    }

    @Test
    void trailingBlankLinesAreNotPartOfThePrintFmt() {
        String text = "name: x\nID: 1\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
                + "print fmt: \"a\"\n\n\n";
        assertEquals("\"a\"", FormatParser.parse("s", text, "test").printFmt());
    }

    @Test
    @Tag("live")
    void liveHeaderPageReadsWhole() {
        Tracefs live = Prerequisites.requireTracefs();
        assertEquals(live.read("events/header_page").length() > 100, true, live.read("events/header_page"));
        assertTrue(live.layout().longSize() == 8 || live.layout().longSize() == 4);
    }
}
