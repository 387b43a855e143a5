package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.Prerequisites;

/** {@code -w FILE} writes the file only (issue 36): no interface appears while it captures. */
@Tag("live")
class CaptureOutputsLiveTest {
    @Test
    void aFileCaptureCreatesNoInterface(@TempDir Path dir) throws Exception {
        Prerequisites.requireTracefs();
        Set<String> before = interfaces();
        Set<String> appeared = new ConcurrentSkipListSet<>();
        AtomicBoolean done = new AtomicBoolean();
        Thread watcher = new Thread(() -> {
            while (!done.get()) {
                try {
                    interfaces().stream().filter(i -> !before.contains(i)).forEach(appeared::add);
                    Thread.sleep(20);
                } catch (Exception e) {
                    return;
                }
            }
        });
        watcher.start();
        Path file = dir.resolve("only.pcapng");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc;
        try {
            rc = Main.run(new String[] {"capture", "-e", "sched:sched_switch", "--duration", "1.5", "-w",
                file.toString()}, new PrintStream(out), new PrintStream(err));
        } finally {
            done.set(true);
            watcher.join();
        }
        String all = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, all);
        assertTrue(Files.size(file) > 0, all);
        assertFalse(appeared.stream().anyMatch(i -> i.startsWith("tw")), "interfaces appeared: " + appeared);
    }

    private static Set<String> interfaces() throws Exception {
        try (Stream<Path> s = Files.list(Path.of("/sys/class/net"))) {
            return s.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        }
    }

    @Test
    void theSummaryListsEveryOutputWithTheFramesItHolds(@TempDir Path dir) throws Exception {
        Prerequisites.requireTracefs();
        Path file = dir.resolve("both.pcapng");
        String iface = "two" + (ProcessHandle.current().pid() % 100000);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Main.run(new String[] {"capture", "-e", "sched:sched_switch", "--duration", "1", "--linger", "0",
            "-w", file.toString(), "-i", iface}, new PrintStream(out), new PrintStream(err));
        String summary = err.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, summary + out.toString(StandardCharsets.UTF_8));
        assertEquals("", out.toString(StandardCharsets.UTF_8), "standard output carries only data: none here");
        Matcher f = Pattern.compile("; outputs: .*file " + Pattern.quote(
                file.toString()) + " (\\d+) frames").matcher(summary);
        Matcher t = Pattern.compile("interface " + iface + " (\\d+) frames").matcher(summary);
        assertTrue(f.find() && t.find(), summary);
        long inFile = WireFrames.read(file).size();
        assertEquals(inFile, Long.parseLong(f.group(1)), "the file holds what the summary says");
        assertTrue(Long.parseLong(t.group(1)) >= inFile, "the interface got every frame (and repeated context)");
    }
}
