package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;

/** {@code report FILE | head -1}: when standard output's reader goes away, report stops (issue 36). */
class ReportPipeTest {
    /** A pipe whose reader leaves after the first line: every later write fails, and is counted (a line is
     * up to two writes: its text and its line break). */
    static final class HeadOne extends OutputStream {
        int lines;
        long writesAfterClose;

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (lines >= 1) {
                writesAfterClose++;
                throw new IOException("Broken pipe");
            }
            for (int i = off; i < off + len; i++) {
                lines += b[i] == '\n' ? 1 : 0;
            }
        }
    }

    @Test
    void stopsSoonAfterTheReaderLeaves(@TempDir Path dir) throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 3000);
        Path file = ContextPcapng.write(dir.resolve("many.pcapng"), recs, ContextPcapng.snapshot(recs), Map.of());
        HeadOne head = new HeadOne();
        int rc = Main.run(new String[] {"report", file.toString()}, new PrintStream(head),
                new PrintStream(new ByteArrayOutputStream()));
        assertEquals(0, rc);
        assertEquals(1, head.lines);
        assertTrue(head.writesAfterClose <= 2L * ReportCommand.READER_CHECK, "report went on writing "
                + head.writesAfterClose + " times into a closed pipe (of " + recs.size() + " lines)");
    }
}
