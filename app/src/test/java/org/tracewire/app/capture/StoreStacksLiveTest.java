package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.cli.Main;
import org.tracewire.store.StoreCache;
import org.tracewire.testing.Prerequisites;

/**
 * The details pane's stacks (issue 35) of a live {@code --stack=both} capture against {@code report}'s
 * text of the same file: each {@code sys_enter_openat} row's kernel stack, as {@link StoreTable#stacksOf}
 * gives it, is the {@code => func} lines report prints after that event, and the tree shows it
 * before the kernel text.
 */
@Tag("live")
@Tag("concurrent")
class StoreStacksLiveTest {
    @Test
    void eachEventsStackIsTheOneReportPrintsAfterIt(@TempDir Path dir) throws Exception {
        Prerequisites.requireTracefs();
        Path file = dir.resolve("stacks.pcapng");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Main.run(new String[] {"capture", "-e", "syscalls:sys_enter_openat", "--stack=both", "-e",
            "sched:sched_switch", "-w", file.toString(), "--", "sh", "-c",
            "for i in $(seq 12); do cat /proc/version >/dev/null; done"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, Main.run(new String[] {"report", file.toString()}, new PrintStream(out),
                new PrintStream(new ByteArrayOutputStream())));
        // report, in file order: each sys_enter_openat's "<stack trace>" and the " => FUNC" lines after
        // it; other CPUs' lines can come between an event and its stack, so per CPU ("[NNN]")
        List<List<String>> reported = new ArrayList<>();
        Map<String, List<String>> pending = new HashMap<>();
        List<String> current = null;
        Pattern cpu = Pattern.compile(" \\[(\\d{3})\\] ");
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith(" => ")) {
                if (current != null) {
                    current.add(line.substring(4));
                }
                continue;
            }
            Matcher m = cpu.matcher(line);
            String c = m.find() ? m.group(1) : "";
            current = null;
            if (line.contains(" sys_openat(") || line.contains(" sys_enter_openat:")) {
                List<String> stack = new ArrayList<>();
                reported.add(stack);
                pending.put(c, stack);
            } else if (line.endsWith(": <stack trace>")) {
                current = pending.remove(c);
            } else if (!line.endsWith(": <user stack trace>")) {
                pending.remove(c);
            }
        }
        try (StoreTable table = StoreTable.open(file, new StoreCache(dir.resolve("cache"), 1L << 32), n -> { },
                Runnable::run, new DirectTaskExecutor())) {
            List<Long> frames = new ArrayList<>();
            try (Statement s = table.store().connection().createStatement();
                 ResultSet rs = s.executeQuery("SELECT frame FROM events WHERE event = 'syscalls:sys_enter_openat'"
                         + " ORDER BY frame")) {
                while (rs.next()) {
                    frames.add(rs.getLong(1));
                }
            }
            assertEquals(reported.size(), frames.size(), "report and the store see the same openat events");
            assertTrue(frames.size() > 100, "12 cats open several files each: " + frames.size());
            int withUser = 0;
            Map<Long, List<EventDetailTree.StackFrame>> stacks = new HashMap<>();
            for (int i = 0; i < frames.size(); i++) {
                List<List<EventDetailTree.StackFrame>> got = new ArrayList<>();
                table.stacksOf(frames.get(i), got::add);
                stacks.put(frames.get(i), got.get(0));
                List<String> kernel = new ArrayList<>();
                boolean user = false;
                for (EventDetailTree.StackFrame f : got.get(0)) {
                    if (f.kind().equals("kernel")) {
                        kernel.add(f.func() != null ? f.func() : String.format("0x%08x", f.address()));
                    } else {
                        user = true;
                    }
                }
                withUser += user ? 1 : 0;
                assertEquals(reported.get(i), kernel, "frame " + frames.get(i) + "'s kernel stack");
                List<EventDetailTree.Node> tree = EventDetailTree.withStacks(
                        List.of(EventDetailTree.Node.leaf("Event", "", null), EventDetailTree.Node.leaf("Kernel text", "", null)),
                        got.get(0));
                assertEquals("Kernel stack", tree.get(1).name(), "the kernel stack comes before the kernel text");
                assertEquals(kernel.size(), tree.get(1).children().size());
                assertEquals("Kernel text", tree.get(tree.size() - 1).name());
            }
            // the flame graph's folded stacks: each event's user frames, then its kernel frames, root first
            Map<String, Long> expected = new java.util.TreeMap<>();
            for (long frame : frames) {
                List<String> rootFirst = new ArrayList<>();
                for (String kind : List.of("user", "kernel")) {
                    stacks.get(frame).stream().filter(f -> f.kind().equals(kind))
                            .sorted(java.util.Comparator.comparingInt(EventDetailTree.StackFrame::depth).reversed())
                            .forEach(f -> rootFirst.add(f.address() == 0 ? "0"
                                    : f.func() != null ? f.func() : String.format("0x%08x", f.address())));
                }
                expected.merge(String.join(";", rootFirst), 1L, Long::sum);
            }
            try (java.sql.Connection c = table.newConnection()) {
                org.tracewire.app.histogram.StoreHistogram.Folded folded =
                        org.tracewire.app.histogram.StoreHistogram.open(c, file).folded("syscalls:sys_enter_openat", null);
                assertEquals(expected, new java.util.TreeMap<>(folded.folded()), "the flame graph's stacks, user then kernel");
                assertEquals(0, folded.noStack());
            }
            System.out.printf("[live] details stacks: %d openat events, %d with a user stack%n", frames.size(), withUser);
            assertTrue(withUser > frames.size() / 2, "--stack=both: most openat events carry a user stack: " + withUser);
        }
    }
}
