package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * Process scoping through the kernel's pid filtering (issue 36): {@code capture -- CMD} records the
 * command and its children only and ends when it exits; {@code -P PID} records that process's
 * tree; {@code --comm NAME} only tasks of that name. The oracle is the fork tree the capture itself
 * records ({@code sched_process_fork}), with a noisy neighbour that must not appear.
 */
@Tag("live")
@Tag("concurrent")
class CaptureScopeLiveTest {
    /** One event line of {@code report}: comm, pid, event, rest. */
    record Line(String comm, long pid, String event, String rest) {
    }

    static final Pattern LINE = Pattern.compile("^\\s*(.+?)-(\\d+)\\s+\\[\\d+\\]\\s+\\S+\\s+[\\d.]+: (\\w+)[:(] ?(.*)$");
    static final Pattern FORK = Pattern.compile("\\bpid=(\\d+) child_comm=.* child_pid=(\\d+)");

    private static List<Line> report(Path file) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, Main.run(new String[] {"report", file.toString()}, new PrintStream(out),
                new PrintStream(new ByteArrayOutputStream())));
        List<Line> lines = new ArrayList<>();
        for (String l : out.toString(StandardCharsets.UTF_8).split("\n")) {
            Matcher m = LINE.matcher(l);
            if (m.matches()) {
                lines.add(new Line(m.group(1), Long.parseLong(m.group(2)), m.group(3), m.group(4)));
            }
        }
        return lines;
    }

    /** The root and every pid forked from the tree, in the order the forks were recorded. */
    private static Set<Long> tree(long root, List<Line> lines) {
        Set<Long> tree = new HashSet<>(Set.of(root));
        for (Line l : lines) {
            Matcher f = FORK.matcher(l.rest());
            if (l.event().equals("sched_process_fork") && f.find() && tree.contains(Long.parseLong(f.group(1)))) {
                tree.add(Long.parseLong(f.group(2)));
            }
        }
        return tree;
    }

    /** A shell that runs {@code tool /proc/version} every 10 ms. */
    private static Process noise(String tool) throws Exception {
        return new ProcessBuilder("sh", "-c", "while :; do " + tool + " /proc/version >/dev/null; sleep 0.01; done")
                .start();
    }

    private record Run(int rc, String out, String err, long returnedNs) {
    }

    private static Run capture(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(List.of("capture"));
        all.addAll(List.of(args));
        int rc = Main.run(all.toArray(String[]::new), new PrintStream(out), new PrintStream(err));
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), System.nanoTime());
    }

    @Test
    void aCommandAndItsChildrenOnlyUntilItExits(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        HostState before = HostState.of(top);
        Process noise = noise("cat");
        Path file = dir.resolve("cmd.pcapng");
        try {
            Run run = capture("-e", "sched:sched_process_fork", "-e", "syscalls:sys_enter_openat", "-w",
                    file.toString(), "--", "sh", "-c", "cat /proc/version >/dev/null; ls / >/dev/null; sleep 0.5; "
                    + "cat /proc/cpuinfo >/dev/null; exit 3");
            assertEquals(0, run.rc(), run.out() + run.err());
            assertTrue(run.err().contains("exited with status 3"), run.err());
            Matcher pid = Pattern.compile("\\(pid (\\d+)\\) and its children").matcher(run.err());
            assertTrue(pid.find(), run.err());
            List<Line> lines = report(file);
            Set<Long> tree = tree(Long.parseLong(pid.group(1)), lines);
            assertTrue(tree.size() >= 4, "sh forked cat, ls, sleep, cat: " + tree);
            List<Line> outside = lines.stream().filter(l -> !tree.contains(l.pid())).limit(3).toList();
            assertEquals(List.of(), outside, "events of tasks outside the command's tree");
            assertEquals(2, lines.stream().filter(l -> l.comm().equals("cat")).map(Line::pid).distinct().count(),
                    "both cats, the last one after the sleep, are there");
            assertFalse(lines.stream().anyMatch(l -> l.pid() == noise.pid()), "the neighbour is not recorded");
        } finally {
            noise.destroyForcibly().waitFor();
        }
        assertEquals(List.of(), HostState.of(top).leftSince(before), "tracing settings, instances or interfaces changed");
    }

    @Test
    void endsSoonAfterTheCommandExits(@TempDir Path dir) throws Exception {
        Prerequisites.requireTracefs();
        Path stamp = dir.resolve("stamp");
        Run run = capture("-e", "syscalls:sys_enter_openat", "-w", dir.resolve("t.pcapng").toString(), "--", "sh", "-c",
                "sleep 0.3; cat /proc/uptime > " + stamp);
        assertEquals(0, run.rc(), run.err());
        // the stamp file's mtime is the command's last act; compare on the same (wall) clock
        long exitedMs = Files.getLastModifiedTime(stamp).toMillis();
        long returnedMs = System.currentTimeMillis() - (System.nanoTime() - run.returnedNs()) / 1_000_000;
        assertTrue(returnedMs - exitedMs < 1000, "the capture ended " + (returnedMs - exitedMs) + " ms after the command");
    }

    @Test
    void aPidAndItsChildrenOnly(@TempDir Path dir) throws Exception {
        Prerequisites.requireTracefs();
        Process target = noise("cat");
        Process other = noise("head");
        try {
            Path file = dir.resolve("p.pcapng");
            Run run = capture("-e", "sched:sched_process_fork", "-e", "syscalls:sys_enter_openat", "-P",
                    Long.toString(target.pid()), "--duration", "1", "-w", file.toString());
            assertEquals(0, run.rc(), run.out() + run.err());
            // children forked after set_event_pid was written but before tracing started have no
            // recorded fork: the neighbour runs another program, which must never appear
            List<Line> lines = report(file);
            assertTrue(lines.stream().anyMatch(l -> l.comm().equals("cat")), "the target's children: " + lines.size());
            assertFalse(lines.stream().anyMatch(l -> l.comm().equals("head") || l.pid() == other.pid()),
                    "the neighbour's tasks are not recorded");
        } finally {
            target.destroyForcibly().waitFor();
            other.destroyForcibly().waitFor();
        }
        assertEquals(Main.EXIT_USAGE, capture("-e", "sched:sched_switch", "-P", "999999999", "-w",
                dir.resolve("n.pcapng").toString(), "--duration", "1").rc());
    }

    @Test
    void onlyTasksOfAName(@TempDir Path dir) throws Exception {
        Prerequisites.requireTracefs();
        Process n = noise("cat");
        Process h = noise("head");
        try {
            Path file = dir.resolve("c.pcapng");
            Run run = capture("-e", "syscalls:sys_enter_openat", "--comm", "cat", "--duration", "1", "-w",
                    file.toString());
            assertEquals(0, run.rc(), run.out() + run.err());
            List<Line> lines = report(file);
            assertTrue(lines.stream().anyMatch(l -> l.comm().equals("cat")), "cat opens files every 10 ms");
            // "<...>": a task whose name the file does not carry (issue 36, task names), not another name
            List<String> others = lines.stream().map(Line::comm).filter(c -> !c.equals("cat") && !c.equals("<...>"))
                    .distinct().toList();
            assertEquals(List.of(), others);
        } finally {
            n.destroyForcibly().waitFor();
            h.destroyForcibly().waitFor();
        }
    }
}
