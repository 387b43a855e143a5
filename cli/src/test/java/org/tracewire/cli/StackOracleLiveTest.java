package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * {@code capture --stack} against the kernel as the oracle ({@link CaptureOracle}): an instance of
 * our own with {@code nohash-ptr}, the same events and filters, the same {@code stacktrace}
 * triggers and {@code userstacktrace}, records the same workload (files, loopback TCP, programs run:
 * {@link CaptureContextLiveTest#workload}) while
 * {@code tracewire capture -e ... --stack ...} runs in another JVM. {@code tracewire report} of the
 * file (rendered from the file's own context) must print the kernel's text: each record, a stack
 * trace with all its {@code " => "} lines, found among the kernel's records of the same CPU, pid
 * and flags (a multiset, without task name and time, which the two instances stamp apart), for at
 * least 99.5% of the records and of the stack lines. User frames are compared by address (the
 * kernel prints only that); the symbols the capture resolved for them are checked apart: a user
 * stack right after a {@code sys_openat} of the test's own (live) JVM starts in libc's open function.
 */
@Tag("live")
@Tag("concurrent")
class StackOracleLiveTest {
    static final String SWITCH_FILTER = "prev_pid != 0";

    /** A user stack line with the symbol the capture resolved after the kernel's address. */
    static final Pattern USER_SYMBOL = Pattern.compile("(?m)^( =>  <[0-9a-f]{16}>) .*$");

    /**
     * In {@code report}'s text, the user stacks right after a {@code sys_openat} record of the same
     * task whose innermost frame the capture resolved in libc: {count, of them in a function named
     * *open*, user frames resolved in all}.
     */
    static int[] userSymbolsAfterOpenat(String text) {
        int[] n = new int[3];
        Map<String, String> lastBody = new HashMap<>(); // per cpu|pid: the last record's text
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            Matcher m = CaptureOracle.LINE.matcher(lines[i]);
            if (!m.matches()) {
                if (USER_SYMBOL.matcher(lines[i]).matches()) {
                    n[2]++;
                }
                continue;
            }
            String who = m.group(3) + "|" + m.group(2);
            String body = m.group(5);
            if (body.equals("<user stack trace>") && String.valueOf(lastBody.get(who)).startsWith("sys_openat(")
                    && i + 1 < lines.length && lines[i + 1].contains(" [") && lines[i + 1].contains("libc")) {
                n[0]++;
                String frame = lines[i + 1].replaceFirst("^ =>  <[0-9a-f]{16}> ", "");
                if (frame.substring(0, frame.indexOf('+')).contains("open")) {
                    n[1]++;
                } else {
                    System.out.println("  after sys_openat: " + lines[i + 1]);
                }
            }
            lastBody.put(who, body);
        }
        return n;
    }

    @Test
    void reportPrintsTheKernelsStackTraces(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        HostState before = HostState.of(top);
        Path out = dir.resolve("stacks.pcapng");
        List<String> events = List.of("sched:sched_switch", "syscalls:sys_enter_openat", "sched:sched_process_exec");
        List<String> args = List.of("-e", "sched:sched_switch", "-f", SWITCH_FILTER, "--stack",
                "-e", "syscalls:sys_enter_openat", "--stack=both", "-e", "sched:sched_process_exec",
                "--duration", "3", "-w", out.toString(), "--no-iface");
        CaptureOracle.Run run = CaptureOracle.run(top, "oracle-stacks", events, new ArrayList<>(args),
                () -> CaptureContextLiveTest.workload(dir), oracle -> {
                    oracle.write("events/sched/sched_switch/filter", SWITCH_FILTER);
                    oracle.write("events/sched/sched_switch/trigger", "stacktrace if " + SWITCH_FILTER);
                    oracle.write("events/syscalls/sys_enter_openat/trigger", "stacktrace");
                    oracle.write("options/userstacktrace", "1");
                });
        assertEquals(0, run.exit(), run.stdout() + run.stderr());
        System.out.println(run.stdout().strip());

        ByteArrayOutputStream text = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Main.run(new String[] {"report", out.toString()}, new PrintStream(text, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
        String reported = text.toString(StandardCharsets.UTF_8);
        int[] openStacks = userSymbolsAfterOpenat(reported);
        System.out.printf(Locale.ROOT, "user stacks after sys_openat with libc's frame resolved: %d, of them in an "
                + "open function: %d; user frames resolved in all: %d%n", openStacks[0], openStacks[1], openStacks[2]);
        assertTrue(openStacks[0] > 0, "no user stack of the test's own (live) process resolved in libc");
        assertEquals(openStacks[0], openStacks[1], "libc's innermost frame after sys_openat is an open function");
        // the kernel prints a user frame's address only: compared without the capture's symbol after it
        Map<String, Integer> report = CaptureOracle.records(USER_SYMBOL.matcher(reported).replaceAll("$1"));

        Map<String, Integer> kernel = new HashMap<>(run.kernel());
        Map<String, long[]> kinds = new TreeMap<>(); // kind → {records, matched, stack lines, matched lines}
        List<String> misses = new ArrayList<>();
        report.forEach((key, n) -> {
            String body = key.split("\\|", 4)[3];
            String kind = body.startsWith("<stack trace>") ? "kernel stack" : body.startsWith("<user stack trace>")
                    ? "user stack" : body.split("[:(]", 2)[0];
            int lines = body.split("\n").length - 1;
            int have = kernel.getOrDefault(key, 0);
            int hit = Math.min(have, n);
            kernel.put(key, have - hit);
            long[] a = kinds.computeIfAbsent(kind, k -> new long[4]);
            a[0] += n;
            a[1] += hit;
            a[2] += (long) n * lines;
            a[3] += (long) hit * lines;
            if (hit < n && misses.size() < 10) {
                misses.add(key);
            }
        });
        long records = kinds.values().stream().mapToLong(a -> a[0]).sum();
        long matched = kinds.values().stream().mapToLong(a -> a[1]).sum();
        long lines = kinds.values().stream().mapToLong(a -> a[2]).sum();
        long matchedLines = kinds.values().stream().mapToLong(a -> a[3]).sum();
        kinds.forEach((k, a) -> System.out.printf(Locale.ROOT, "  %-20s %6d/%-6d records, %7d/%-7d stack lines%n", k,
                a[1], a[0], a[3], a[2]));
        misses.forEach(m -> System.out.println("  not in the kernel's text: " + m.replace("\n", "\n      ")));
        System.out.printf(Locale.ROOT, "report vs kernel text: %d/%d records (%.3f%%), %d/%d stack lines (%.3f%%)%n",
                matched, records, 100.0 * matched / records, matchedLines, lines, 100.0 * matchedLines / lines);
        for (String k : List.of("kernel stack", "user stack", "sched_switch", "sys_openat", "sched_process_exec")) {
            assertTrue(kinds.containsKey(k) && kinds.get(k)[0] > 0, "no " + k + " records: " + kinds.keySet());
        }
        assertTrue(kinds.get("kernel stack")[2] > 5L * kinds.get("kernel stack")[0], "kernel stacks of a few frames");
        assertTrue(records > 500, "only " + records + " records");
        assertTrue(matched >= 0.995 * records, "records matched: " + matched + "/" + records);
        assertTrue(matchedLines >= 0.995 * lines, "stack lines matched: " + matchedLines + "/" + lines);
        assertEquals(List.of(), HostState.of(top).leftSince(before));
    }
}
