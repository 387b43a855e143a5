package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.Prerequisites;

/**
 * A real process that names itself {@code ESC]0;PWN BEL ESC[2J} (written to its
 * {@code /proc/PID/comm}, as {@code prctl(PR_SET_NAME)} does) and sleeps in a loop, captured live
 * with {@code capture -e sched:sched_switch}: {@code report} of the file shows its lines with the
 * name escaped ({@code \x1b]0;PWN\x07\x1b[2J-PID}), in the comm column and in {@code prev_comm},
 * and writes no control character; {@code --json} gives the name itself. The kernel's own
 * {@code trace} text prints such a name raw (so does {@code trace-cmd report}).
 */
@Tag("live")
class UntrustedTextLiveTest {
    @Test
    void aTaskNamedWithEscapeSequencesIsReportedEscaped(@TempDir Path dir) throws Exception {
        Prerequisites.requireTracefs();
        Prerequisites.requireTool("bash");
        // bash renames itself, then waits in its own read builtin (no child takes the name)
        Process evil = new ProcessBuilder("bash", "-c", "exec 3< <(sleep 30); printf '\\033]0;PWN\\007\\033[2J' > /proc/$$/comm; "
                + "for i in $(seq 1 3000); do read -t 0.002 -u 3; done").start();
        Path out = dir.resolve("evil.pcapng");
        try {
            Thread.sleep(200);
            ReportCommandTest.Result cap = ReportCommandTest.cli("capture", "-e", "sched:sched_switch", "--duration", "2",
                    "--no-iface", "-w", out.toString());
            assertEquals(0, cap.rc(), cap.err());
        } finally {
            evil.descendants().forEach(ProcessHandle::destroy);
            evil.destroy();
            evil.waitFor(10, TimeUnit.SECONDS);
        }
        String pid = Long.toString(evil.pid());
        ReportCommandTest.Result r = ReportCommandTest.cli("report", out.toString());
        assertEquals(0, r.rc(), r.err());
        UntrustedTextTest.assertNoControls(r.out(), "report");
        UntrustedTextTest.assertNoControls(r.err(), "report");
        List<String> own = r.out().lines().filter(l -> l.stripLeading().startsWith(UntrustedTextTest.SHOWN + "-" + pid + " ")).toList();
        assertTrue(own.size() > 20, "lines of the renamed task: " + own.size());
        assertTrue(own.stream().anyMatch(l -> l.contains("prev_comm=" + UntrustedTextTest.SHOWN + " prev_pid=" + pid + " ")),
                own.get(0));
        ReportCommandTest.Result j = ReportCommandTest.cli("report", "--json", out.toString());
        assertEquals(0, j.rc(), j.err());
        UntrustedTextTest.assertNoControls(j.out(), "report --json");
        ObjectMapper json = new ObjectMapper();
        long named = j.out().lines().filter(l -> !l.isBlank()).map(l -> {
            try {
                return json.readTree(l);
            } catch (Exception e) {
                throw new AssertionError(l, e);
            }
        }).filter(e -> e.get("pid").asText().equals(pid) && e.get("comm").asText().equals(UntrustedTextTest.EVIL)).count();
        assertEquals(own.size(), named, "JSON names the same events' task with the name itself");
        System.out.printf("a task named ESC]0;PWN BEL ESC[2J, captured live: %d lines, shown as %s%n", own.size(), own.get(0));
    }
}
