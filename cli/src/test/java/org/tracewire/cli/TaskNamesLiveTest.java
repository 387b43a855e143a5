package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.LatencyFormat;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.FrameKind;

/**
 * Task names of a syscalls-only capture (no sched events in it) of 200 short-lived programs and a
 * shell that renames itself, against the kernel's {@code trace} text of an oracle instance of ours:
 * the names come from the fork, exec and rename records the capture follows, so they hold after
 * the programs exit. Both name a pid by its last name ({@code report} as the kernel's
 * {@code saved_cmdlines} does). Compared: ≥ 99.5% of the events the kernel names. Left out and
 * counted: {@code <...>} (a name the kernel did not keep) and a name the pid had earlier (the
 * kernel's table is written at context switches, under a trylock, and may miss the exec).
 */
@Tag("live")
@Tag("concurrent")
class TaskNamesLiveTest {
    private static final List<String> EVENTS = List.of("syscalls:sys_enter_openat", "syscalls:sys_exit_openat");

    @Test
    void namesOfShortLivedProgramsEqualTheKernels(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Path file = dir.resolve("names.pcapng");
        List<String> args = new ArrayList<>();
        for (String e : EVENTS) {
            args.addAll(List.of("-e", e));
        }
        args.addAll(List.of("-w", file.toString(), "--duration", "4"));
        CaptureOracle.Run run = CaptureOracle.run(top, "task-names", EVENTS, args, () -> {
            try {
                // cat's output is discarded by this JVM, not by a redirection the forked shell opens
                Process p = new ProcessBuilder("sh", "-c", "for i in $(seq 200); do cat /proc/version; done; "
                        + "printf renamed-sh > /proc/$$/comm; for i in 1 2 3; do head -c1 /proc/version; done; "
                        + "cat /proc/$$/comm").redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertEquals(0, run.exit(), run.stdout() + run.stderr());
        // kernel: "cpu|pid|flags|text" -> comm -> count
        Map<String, Map<String, Integer>> kernel = new HashMap<>();
        Map<Integer, String> kernelName = new HashMap<>();
        for (String line : run.kernelText().split("\n")) {
            Matcher m = CaptureOracle.LINE.matcher(line);
            if (!line.startsWith("#") && m.matches()) {
                kernel.computeIfAbsent(m.group(3) + "|" + m.group(2) + "|" + m.group(4) + "|" + m.group(5),
                        k -> new HashMap<>()).merge(m.group(1), 1, Integer::sum);
                kernelName.put(Integer.parseInt(m.group(2)), m.group(1));
            }
        }
        // every name the file gave each pid (PROCESS items: pid, tgid, comm)
        Map<Integer, Set<String>> given = new HashMap<>();
        for (WireFrames.Decoded d : WireFrames.read(file)) {
            if (d.message() != null && d.message().kind() == FrameKind.PROCESS) {
                for (ContextMessage.Item item : d.message().items()) {
                    if (item.type() == ContextMessage.PROCESS_TASK) {
                        ByteBuffer b = ByteBuffer.wrap(item.value());
                        int pid = b.getInt();
                        given.computeIfAbsent(pid, k -> new HashSet<>()).add(
                                new String(item.value(), 8, item.value().length - 8, StandardCharsets.UTF_8));
                    }
                }
            }
        }
        List<String[]> ours = new ArrayList<>(); // {key, our name at the time, pid}
        Map<Integer, String> lastName = new HashMap<>();
        try (PcapngInput in = PcapngInput.open(file)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                EventRecord r = it.next().record();
                String key = String.format("%03d|%d|%s|%s", r.cpu(), r.pid(),
                        LatencyFormat.format(r.flags(), r.preemptCount()), in.renderer().body(r));
                String name = in.renderer().comm(r.pid());
                ours.add(new String[] {key, name, Integer.toString(r.pid())});
                lastName.put(r.pid(), name);
            }
        }
        long compared = 0;
        long atTheTime = 0;
        long lastNames = 0;
        long cats = 0;
        long kernelUnnamed = 0;
        long kernelEarlier = 0;
        List<String> misses = new ArrayList<>();
        for (String[] o : ours) {
            Map<String, Integer> comms = kernel.get(o[0]);
            if (comms == null) {
                continue; // not in the oracle's window
            }
            String k = comms.keySet().iterator().next();
            if (k.equals("<...>")) {
                // the kernel lost the name (its saved_cmdlines is filled at context switches, with a
                // trylock): nothing to compare with
                kernelUnnamed++;
                continue;
            }
            if (!k.equals(o[1]) && given.getOrDefault(Integer.parseInt(o[2]), Set.of()).contains(k)) {
                // the kernel kept a name the task had before (the sh that forked cat): not saved again
                kernelEarlier++;
                continue;
            }
            compared++;
            if (k.equals(o[1])) {
                atTheTime++;
            } else if (misses.size() < 20) {
                misses.add(o[1] + " (kernel: " + k + ") " + o[0]);
            }
            if (k.equals(lastName.get(Integer.parseInt(o[2])))) {
                lastNames++;
            }
            if (o[1].equals("cat")) {
                cats++;
            }
        }
        System.out.printf("[live] task names: %d events compared, %d named as the kernel at the time, %d by the pid's"
                + " last name; %d of cat; %d the kernel prints as <...>, %d with a name the task had before%n%s%n",
                compared, atTheTime, lastNames, cats, kernelUnnamed, kernelEarlier, String.join("\n", misses));
        assertTrue(compared > 1000, "200 programs open several files each: " + compared);
        assertTrue(cats >= 600, "cat's events named cat: " + cats);
        assertTrue(lastName.containsValue("renamed-sh"), "the renamed shell: " + lastName.values().stream().distinct().toList());
        assertTrue(atTheTime >= 0.995 * compared, atTheTime + "/" + compared + ": " + misses);
        assertTrue(lastNames >= 0.995 * compared, lastNames + "/" + compared);
        assertTrue(run.stderr().contains("for task names only"), "the summary (stderr) counts them: " + run.stderr());
    }
}
