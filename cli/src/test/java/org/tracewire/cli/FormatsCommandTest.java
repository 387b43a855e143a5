package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** {@code tracewire formats}, run in-process through {@link Main#run}. */
class FormatsCommandTest {
    private static final Pattern SUMMARY =
            Pattern.compile("formats: (\\d+) parsed, (\\d+) print-fmt ok, (\\d+) print-fmt fallback");

    /** Exit code, stdout and stderr of one run. */
    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static long countFormatFiles(Path root) throws IOException {
        try (Stream<Path> s = Files.find(root.resolve("events"), 3,
                (p, a) -> p.getFileName().toString().equals("format") && root.resolve("events").relativize(p).getNameCount() == 3)) {
            return s.count();
        }
    }

    static void assertCheckSummary(Result r, long formatFiles) {
        assertEquals(0, r.code(), r.err());
        String first = r.out().lines().findFirst().orElse("");
        Matcher m = SUMMARY.matcher(first);
        assertTrue(m.matches(), "summary line: " + first);
        long parsed = Long.parseLong(m.group(1));
        long ok = Long.parseLong(m.group(2));
        long fallback = Long.parseLong(m.group(3));
        assertEquals(formatFiles, parsed, first);
        assertEquals(parsed, ok + fallback, first);
        assertEquals(fallback, r.out().lines().filter(l -> l.startsWith("fallback ")).count(), "one line per fallback event");
    }

    /**
     * A command line naming a subcommand builds only that one (start-up of every capture process);
     * usage, {@code help} and no arguments see them all, and an unknown name is still refused.
     */
    @Test
    void onlyTheNamedSubcommandIsBuiltAndUsageListsAll() {
        assertEquals(Set.of("capture"), Main.commandLine(new String[] {"capture", "--duration", "1"})
                .getSubcommands().keySet());
        assertEquals(Main.SUBCOMMANDS.size(), Main.commandLine(new String[0]).getSubcommands().size());
        assertEquals(Main.SUBCOMMANDS.size(), Main.commandLine(new String[] {"help", "capture"}).getSubcommands().size());
        Result usage = run("--help");
        for (String name : new String[] {"formats", "capture", "backend", "filter", "dissector", "report", "import",
                "export", "merge", "extcap", "help"}) {
            assertTrue(usage.out().contains("  " + name + " "), name + " in the usage:\n" + usage.out());
        }
        Result help = run("help", "report");
        assertEquals(0, help.code(), help.err());
        assertTrue(help.out().contains("Usage: tracewire report"), help.out());
        Result unknown = run("captur");
        assertEquals(Main.EXIT_USAGE, unknown.code(), unknown.out() + unknown.err());
    }

    @Test
    void checkParsesEverySnapshotFormat() throws IOException {
        Path snap = Prerequisites.snapshot();
        Result r = run("formats", "--check", "--tracefs", snap.toString());
        assertCheckSummary(r, countFormatFiles(snap));
    }

    @Test
    void jsonOfSchedSwitch() throws IOException {
        Result r = run("formats", "--tracefs", Prerequisites.snapshot().toString(), "sched:sched_switch", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertTrue(doc.isArray());
        assertEquals(1, doc.size());
        JsonNode ev = doc.get(0);
        assertEquals("sched", ev.get("system").asText());
        assertEquals("sched_switch", ev.get("name").asText());
        JsonNode prevComm = null;
        for (JsonNode f : ev.get("fields")) {
            if (f.get("name").asText().equals("prev_comm")) {
                prevComm = f;
            }
        }
        assertTrue(prevComm != null, r.out());
        assertEquals(8, prevComm.get("offset").asInt());
        assertEquals(16, prevComm.get("size").asInt());
        assertEquals("CHAR_ARRAY", prevComm.get("kind").asText());
    }

    @Test
    void humanOutputAndSystemWildcard() {
        Result r = run("formats", "--tracefs", Prerequisites.snapshot().toString(), "sched:*");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("sched:sched_switch  (id "), r.out());
        assertTrue(r.out().contains("print fmt: \"prev_comm=%s"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("\\s+char\\s+prev_comm\\[16]\\s+8\\s+16\\s+no\\s+char_array")), r.out());
    }

    @Test
    void unknownEventIsOneLineUsageError() {
        Result r = run("formats", "--tracefs", Prerequisites.snapshot().toString(), "sched:no_such_event");
        assertEquals(Main.EXIT_USAGE, r.code());
        assertEquals("", r.out());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("tracewire formats: unknown event 'sched:no_such_event'"), r.err());
    }

    @Test
    void malformedSelectorAndBadTracefsAreErrors() {
        Path snap = Prerequisites.snapshot();
        assertEquals(Main.EXIT_USAGE, run("formats", "--tracefs", snap.toString(), "../../etc").code());
        assertEquals(Main.EXIT_USAGE, run("formats", "--tracefs", snap.toString(), "nosuchsystem:*").code());
        Result bad = run("formats", "--tracefs", "/nonexistent");
        assertNotEquals(0, bad.code());
        assertEquals(1, bad.err().lines().count(), bad.err());
    }

    @Test
    void checkReportsLayoutFailuresWithPositionAndExitsOne(@TempDir Path dir) throws IOException {
        Path snap = Prerequisites.snapshot();
        for (String rel : new String[] {"events/header_page", "events/header_event",
                "events/sched/sched_switch/format", "events/sched/sched_wakeup/format"}) {
            Files.createDirectories(dir.resolve(rel).getParent());
            Files.copy(snap.resolve(rel), dir.resolve(rel));
        }
        Path broken = dir.resolve("events/sched/sched_wakeup/format");
        Files.writeString(broken, Files.readString(broken).replace("offset:8;", "offset:eight;"));
        Result r = run("formats", "--check", "--tracefs", dir.toString());
        assertEquals(Main.EXIT_FAILURE, r.code(), r.out());
        assertTrue(r.out().startsWith("formats: 1 parsed, "), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("error .*sched_wakeup/format:\\d+:\\d+: .*offset.*")), r.out());
        assertTrue(r.err().contains("1 of 2 formats failed to parse"), r.err());
    }

    @Test
    void noSubcommandPrintsHelp() {
        Result r = run();
        assertEquals(0, r.code());
        assertTrue(r.out().contains("formats"), r.out());
        assertTrue(r.out().contains("test"), r.out());
    }

    @Test
    @Tag("live")
    void checkOnLiveTracefsCountsEveryFormatFile() throws IOException {
        Tracefs live = Prerequisites.requireTracefs();
        long files = countFormatFiles(live.root());
        Result r = run("formats", "--check", "--tracefs", live.root().toString());
        assertCheckSummary(r, files);
    }

    @Test
    @Tag("tshark")
    void tsharkRuns() throws Exception {
        Path tshark = Prerequisites.requireTool("tshark");
        Process p = new ProcessBuilder(tshark.toString(), "--version").redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), text);
        assertTrue(text.contains("TShark (Wireshark)"), text);
    }
}
