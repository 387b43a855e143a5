package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.dissector.DissectorGenerator;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * {@code capture -w FILE -b filesize:KB -b files:N} against the kernel: a capture of scheduler,
 * exec and openat events under a workload of short-lived processes, in files of 150 kB, three kept,
 * while an oracle instance records the same events. The ring went round (at least four files
 * written, the three newest kept, named as dumpcap names them); each kept file read alone by
 * {@code report} decodes every event (no unknown format, every task named) and its text is the
 * kernel's for 99% of its events or more (as an unrotated capture's: {@link CaptureContextLiveTest}), and
 * tshark with the repository's dissector shows the same text for the middle file alone;
 * the kept files hold the tail of the stream: per CPU value their frames' sequence numbers run on
 * without a gap from file to file, and with what the summary says was removed they add up to every
 * frame and event of the capture; each file holds the frames the summary names it with, and ends
 * with its own statistics block.
 */
@Tag("live")
@Tag("concurrent")
class CaptureRingLiveTest {
    static final List<String> EVENTS = List.of("sched:sched_switch", "sched:sched_wakeup", "sched:sched_process_exec",
            "syscalls:sys_enter_openat");

    @Test
    void eachFileOfTheRingDecodesAloneAndTheKeptFilesHoldTheTail(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        HostState before = HostState.of(top);
        Path base = dir.resolve("ring.pcapng");
        List<String> args = new ArrayList<>();
        EVENTS.forEach(e -> args.addAll(List.of("-e", e)));
        args.addAll(List.of("--duration", "4", "--no-iface", "-w", base.toString(), "-b", "filesize:150", "-b",
                "files:3"));
        CaptureOracle.Run run = CaptureOracle.run(top, "oracle-ring", EVENTS, args, () -> {
            try {
                CaptureOracle.sh("sh", "-c", "for i in $(seq 300); do /bin/true; cat /proc/version > /dev/null; done");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertEquals(0, run.exit(), run.stderr());
        assertEquals("", run.stdout(), "standard output carries only data: none with -w FILE");
        String summary = run.stderr().lines().filter(l -> l.contains("events read")).findFirst().orElse("");
        System.out.println(summary);
        Matcher totals = Pattern.compile("(\\d+) events read, (\\d+) frames emitted").matcher(summary);
        Matcher ring = Pattern.compile("(\\d+) files written, (\\d+) kept \\((\\d+) older removed: (\\d+) frames, "
                + "(\\d+) events\\)").matcher(summary);
        assertTrue(totals.find() && ring.find(), summary);
        assertTrue(Integer.parseInt(ring.group(1)) >= 4, "the ring switched files at least 3 times: " + summary);
        assertEquals(3, Integer.parseInt(ring.group(2)), summary);
        List<Path> kept;
        try (Stream<Path> s = Files.list(dir)) {
            kept = s.filter(p -> p.getFileName().toString().matches("ring_\\d{5}_\\d{14}\\.pcapng")).sorted().toList();
        }
        assertEquals(3, kept.size(), "three files kept on disk, named as dumpcap names them: " + kept);

        long keptFrames = 0;
        long keptEvents = 0;
        Map<Integer, Long> nextSequence = new TreeMap<>();
        for (Path f : kept) {
            // read alone by report: every event decoded, every task named
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int rc = Main.run(new String[] {"report", f.toString()}, new PrintStream(out), new PrintStream(err));
            String text = out.toString(StandardCharsets.UTF_8);
            assertEquals(0, rc, f + ": " + err.toString(StandardCharsets.UTF_8));
            List<String> unnamed = text.lines().filter(l -> l.contains("<...>")).limit(5).toList();
            assertEquals(List.of(), unnamed, f + ": tasks the file does not name");
            assertTrue(text.lines().noneMatch(l -> l.toLowerCase(Locale.ROOT).contains("unknown event")), f + ": " + text);
            CaptureOracle.Comparison c = CaptureOracle.compare(f, run.kernel());
            System.out.print(f.getFileName() + ": " + c.report());
            assertEquals(text.lines().count(), c.frames(), f + ": report prints a line per event frame");
            assertTrue(c.frames() > (f.equals(kept.get(2)) ? 0 : 100), f + ": " + c.frames() + " events");
            assertTrue(c.rate() >= 0.99, f + ": the kernel's text for " + c.rate() + " of its events");
            if (f.equals(kept.get(1))) {
                assertEquals(bodies(text), tsharkInfo(f), f + ": tshark with the dissector, the file alone");
            }

            // the tail: the frames' sequence numbers run on from the file before, per cpu value
            long frames = 0;
            long events = 0;
            for (WireFrames.Decoded d : WireFrames.read(f)) {
                int cpu = d.frame().header().cpu();
                long seq = d.frame().header().sequence();
                Long want = nextSequence.get(cpu);
                assertTrue(want == null || want == seq, f + ": cpu value " + cpu + " sequence " + seq + " after "
                        + (want == null ? "none" : want - 1));
                nextSequence.put(cpu, (seq + 1) & 0xffffffffL);
                frames++;
                events += d.isEvent() ? 1 : 0;
            }
            assertTrue(summary.contains(f + " " + frames + " frames"), "the summary names " + f + " with " + frames
                    + " frames: " + summary);
            try (PcapngPacketReader r = new PcapngPacketReader(f)) {
                while (r.next() != null) {
                    // to the statistics block at the end
                }
                assertTrue(r.statisticsDrops(0) >= 0, f + " ends with its own statistics block");
            }
            keptFrames += frames;
            keptEvents += events;
        }
        assertEquals(Long.parseLong(totals.group(2)), Long.parseLong(ring.group(4)) + keptFrames,
                "removed + kept frames = the frames emitted");
        assertEquals(Long.parseLong(totals.group(1)), Long.parseLong(ring.group(5)) + keptEvents,
                "removed + kept events = the events read");
        // other captures may run on this host meanwhile: only what a process that has ended left counts
        HostState after = HostState.of(top);
        assertEquals(before.settings(), after.settings(), "top-level tracing settings changed");
        List<String> left = after.instances().stream().filter(i -> !before.instances().contains(i))
                .filter(i -> !i.matches("tracewire-\\d+") || !Files.isDirectory(Path.of("/proc", i.substring(10))))
                .toList();
        assertEquals(List.of(), left, "instances left behind");
    }

    /** The event text of each line of {@code report} (after the time stamp). */
    static List<String> bodies(String report) {
        Pattern time = Pattern.compile("^.*?\\[\\d{3}] \\S{5}\\s+\\d+\\.\\d+: ");
        return report.lines().map(l -> time.matcher(l).replaceFirst("")).toList();
    }

    /** The Info column of every event frame, from tshark with the repository's dissector on the file alone. */
    static List<String> tsharkInfo(Path file) throws Exception {
        Prerequisites.requireTool("tshark");
        // the runtime alone (lua/runtime/*.lua): what decodes any capture from its own context
        Path lua = Files.createTempFile("tracewire-runtime", ".lua");
        lua.toFile().deleteOnExit();
        Files.writeString(lua, DissectorGenerator.runtimeOnly());
        String errors = CaptureOracle.sh("tshark", "-n", "-X", "lua_script:" + lua, "-r", file.toString(),
                "-Y", "_ws.lua.error || _ws.malformed", "-T", "fields", "-e", "frame.number");
        assertEquals("", errors.lines().filter(l -> !l.startsWith("Running as user")).reduce("", String::concat),
                "frames the dissector could not decode");
        String info = CaptureOracle.sh("tshark", "-n", "-X", "lua_script:" + lua, "-r", file.toString(),
                "-Y", "tracewire.kind == 0", "-T", "fields", "-e", "_ws.col.Info");
        return info.lines().filter(l -> !l.startsWith("Running as user")).toList();
    }
}
