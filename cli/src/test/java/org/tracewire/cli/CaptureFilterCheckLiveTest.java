package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.Prerequisites;

/**
 * {@code capture -f} runs the {@code filter} command's checker before the kernel sees the filter
 * (issue 36): a misspelled field, a string longer than its char array and a 100 KB filter each
 * get the checker's message and a caret under the right character, in a few lines.
 */
@Tag("live")
class CaptureFilterCheckLiveTest {
    private record Run(int rc, String err) {
    }

    private static Run capture(Path dir, String filter) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Main.run(new String[] {"capture", "-e", "sched:sched_switch", "-f", filter, "--duration", "1",
            "-w", dir.resolve("x.pcapng").toString()}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err));
        return new Run(rc, err.toString(StandardCharsets.UTF_8));
    }

    /** The column of the caret in the line after the one that shows the filter. */
    private static int caretUnder(String err, String shownStart) {
        List<String> lines = err.lines().toList();
        for (int i = 0; i + 1 < lines.size(); i++) {
            if (lines.get(i).strip().startsWith(shownStart)) {
                return lines.get(i + 1).indexOf('^') - lines.get(i).indexOf(shownStart);
            }
        }
        return -1;
    }

    @Test
    void misspelledFieldAndOverlongComm(@TempDir Path dir) {
        Prerequisites.requireTracefs();
        Run field = capture(dir, "prev_pidd == 1");
        assertEquals(Main.EXIT_FAILURE, field.rc(), field.err());
        assertTrue(field.err().contains("no field 'prev_pidd' in sched:sched_switch (did you mean 'prev_pid'?)"),
                field.err());
        assertEquals(0, caretUnder(field.err(), "prev_pidd"), field.err());

        String comm = "prev_comm == \"abcdefghijklmnopqrstuvwxyz\"";
        Run longComm = capture(dir, comm);
        assertEquals(Main.EXIT_FAILURE, longComm.rc(), longComm.err());
        assertTrue(longComm.err().contains("longer than prev_comm (char[16]) can hold"), longComm.err());
        assertEquals(comm.indexOf('"'), caretUnder(longComm.err(), "prev_comm"), longComm.err());
        assertTrue(Files.notExists(dir.resolve("x.pcapng")), "nothing captured");
    }

    @Test
    void aHundredKilobyteFilterIsShownAroundTheFault(@TempDir Path dir) {
        Prerequisites.requireTracefs();
        // 100 KB of blanks between two predicates: the fault is at the end, far from the start
        StringBuilder f = new StringBuilder("prev_pid == 1").append(" ".repeat(100_000)).append("&& prev_pidd == 1");
        Run run = capture(dir, f.toString());
        assertEquals(Main.EXIT_FAILURE, run.rc(), run.err().substring(0, Math.min(2000, run.err().length())));
        assertTrue(run.err().length() < 1000, "the message is cut: " + run.err().length() + " chars");
        assertTrue(run.err().contains("position " + f.indexOf("prev_pidd") + ": no field 'prev_pidd'"), run.err());
        assertEquals(run.err().lines().filter(l -> l.contains("prev_pidd ==")).findFirst().orElseThrow()
                .indexOf("prev_pidd =="), run.err().lines().filter(l -> l.strip().equals("^")).findFirst()
                .orElseThrow().indexOf('^'), run.err());
    }
}
