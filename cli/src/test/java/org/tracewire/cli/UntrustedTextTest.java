package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.format.Field;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.tracedat.TraceDatFile;
import org.tracewire.tracetext.SavedCmdlines;

/**
 * Untrusted text never reaches the terminal raw: a crafted pcapng whose tasks are all named
 * {@code ESC]0;PWN BEL ESC[2J} (an xterm title change and a screen clear) and whose
 * {@code sched_switch} records carry that name in {@code prev_comm}. {@code report} shows the name
 * as {@code \x1b]0;PWN\x07\x1b[2J} in the comm column and in the event text, {@code --json} as a
 * JSON escape that reads back as the name, {@code export} writes it escaped into the trace.dat's
 * saved cmdlines (one line per task), and a file name with controls is escaped in the error.
 */
class UntrustedTextTest {
    static final String EVIL = "\u001b]0;PWN\u0007\u001b[2J";
    static final String SHOWN = "\\x1b]0;PWN\\x07\\x1b[2J";

    @TempDir
    Path dir;

    /** No control character but newline (and tab) in what a command wrote. */
    static void assertNoControls(String s, String what) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            assertFalse((c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c <= 0x9f),
                    what + ": control character " + (int) c + " at " + i);
        }
    }

    private Path craftedFile() throws Exception {
        List<EventRecord> recs = new ArrayList<>(FixtureRecords.load().subList(0, 400));
        StringBuilder tasks = new StringBuilder();
        recs.stream().map(EventRecord::pid).distinct().forEach(p -> tasks.append(p).append(' ').append(EVIL).append('\n'));
        int renamed = 0;
        for (int i = 0; i < recs.size(); i++) {
            EventRecord r = recs.get(i);
            if (r.format().fullName().equals("sched:sched_switch")) {
                Field f = r.format().field("prev_comm");
                ByteBuffer b = ByteBuffer.allocate(r.payload().limit()).order(r.layout().byteOrder());
                b.put(r.payload().duplicate()).flip();
                byte[] name = Arrays.copyOf(EVIL.getBytes(StandardCharsets.UTF_8), f.size());
                b.put(f.offset(), name);
                recs.set(i, new EventRecord(r.format(), r.layout(), r.cpu(), r.timestampNs(), b));
                renamed++;
            }
        }
        assertTrue(renamed >= 5, "sched_switch records: " + renamed);
        ContextPcapng.Source src = ContextPcapng.snapshot(recs).withTasks(SavedCmdlines.parse(tasks.toString()));
        return ContextPcapng.write(dir.resolve("evil.pcapng"), recs, src, Map.of());
    }

    @Test
    void reportShowsControlCharactersEscaped() throws Exception {
        Path file = craftedFile();
        ReportCommandTest.Result r = ReportCommandTest.cli("report", file.toString());
        assertEquals(0, r.rc(), r.err());
        assertNoControls(r.out(), "report");
        List<String> lines = r.out().lines().toList();
        assertEquals(400, lines.size());
        long named = lines.stream().filter(l -> l.startsWith(SHOWN + "-")).count();
        long inText = lines.stream().filter(l -> l.contains("prev_comm=" + SHOWN + " ")).count();
        assertTrue(named > 300, "lines whose comm column is the escaped name: " + named);
        assertTrue(inText >= 5, "sched_switch lines with the escaped prev_comm: " + inText);

        ReportCommandTest.Result j = ReportCommandTest.cli("report", "--json", file.toString());
        assertEquals(0, j.rc(), j.err());
        assertNoControls(j.out(), "report --json");
        ObjectMapper json = new ObjectMapper();
        int raw = 0;
        for (String l : j.out().lines().filter(s -> !s.isBlank()).toList()) {
            JsonNode e = json.readTree(l);
            if (e.get("comm").asText().equals(EVIL)) {
                raw++;
            }
        }
        assertTrue(raw > 300, "JSON keeps the name as data (escaped as JSON): " + raw);
    }

    @Test
    void exportWritesNamesEscapedIntoItsLines() throws Exception {
        Path file = craftedFile();
        Path dat = dir.resolve("evil.dat");
        ReportCommandTest.Result r = ReportCommandTest.cli("export", file.toString(), "-o", dat.toString());
        assertEquals(0, r.rc(), r.err());
        try (TraceDatFile f = TraceDatFile.open(dat)) {
            assertNoControls(f.cmdlinesText(), "saved cmdlines");
            assertTrue(f.cmdlinesText().lines().allMatch(l -> l.matches("\\d+ " + Pattern.quote(SHOWN))),
                    f.cmdlinesText());
        }
    }

    @Test
    void fileNamesInMessagesAreEscaped() throws Exception {
        Path missing = dir.resolve("x" + EVIL + ".pcapng");
        for (String cmd : List.of("report", "export")) {
            ReportCommandTest.Result r = cmd.equals("report") ? ReportCommandTest.cli("report", missing.toString())
                    : ReportCommandTest.cli("export", missing.toString(), "-o", dir.resolve("o.dat").toString());
            assertEquals(1, r.rc(), r.err());
            assertNoControls(r.err(), cmd);
            assertEquals("tracewire " + cmd + ": " + dir.resolve("x" + SHOWN + ".pcapng") + ": no such file\n", r.err());
        }
        Path foreign = Files.writeString(dir.resolve("y" + EVIL + ".txt"), "hello\n");
        ReportCommandTest.Result r = ReportCommandTest.cli("report", foreign.toString());
        assertEquals(1, r.rc());
        assertNoControls(r.err(), "report");
        assertTrue(r.err().contains("y" + SHOWN + ".txt: neither a trace.dat nor a pcapng file"), r.err());
    }
}
