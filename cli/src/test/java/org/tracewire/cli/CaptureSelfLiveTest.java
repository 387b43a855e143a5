package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.capture.SelfExclusion;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.TestInstances;
import org.tracewire.tracefs.Tracefs;

/**
 * A capture never traces itself by default: {@code capture -e syscalls:sys_enter_write -i IFACE}
 * with no workload stays at the machine's background rate of write() calls, although every frame
 * it emits is a write() to the TAP; the instance's {@code set_event_notrace_pid} lists every thread
 * of this process while it runs, and no frame carries one of them. With {@code --trace-self} the
 * same capture feeds on itself (each frame's write() is an event, hence another frame); that run is
 * bounded ({@code --count}, 3 s). Both runs see the same seed, 2,000 write() calls by another
 * process: excluded, they are recorded once; with {@code --trace-self} each comes back as our
 * write() of its frame, cycle after cycle.
 */
@Tag("live")
@Tag("concurrent")
class CaptureSelfLiveTest {
    /** 2,000 write() calls by another process: the seed a feedback loop would keep circulating. */
    static final List<String> BURST = List.of("dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=2000");

    record Run(String stdout, long frames, double seconds, long ownFrames, Set<Long> listed, Set<Long> ownTasks) {
        double rate() {
            return frames / seconds;
        }
    }

    static Run capture(Path dir, boolean traceSelf, String duration, String count) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        HostState before = HostState.of(top);
        long self = ProcessHandle.current().pid();
        String iface = "tws" + (self % 100000);
        Path file = dir.resolve(traceSelf ? "self.pcapng" : "excluded.pcapng");
        Path inst = top.root().resolve("instances/tracewire-" + self);
        AtomicReference<Set<Long>> listed = new AtomicReference<>(Set.of());
        AtomicReference<Set<Long>> tasks = new AtomicReference<>(Set.of());
        Thread watcher = new Thread(() -> {
            try {
                long until = System.nanoTime() + 30_000_000_000L;
                while (System.nanoTime() < until) {
                    try {
                        if (TestInstances.isTracing(inst)) {
                            Thread.sleep(1000);
                            Set<Long> t = SelfExclusion.tasks(self);
                            Set<Long> l = new TreeSet<>();
                            for (String s : Files.readString(inst.resolve("set_event_notrace_pid")).split("\\s+")) {
                                if (!s.isBlank()) {
                                    l.add(Long.parseLong(s));
                                }
                            }
                            t.retainAll(SelfExclusion.tasks(self));
                            tasks.set(t);
                            listed.set(l);
                            return;
                        }
                    } catch (IOException notYet) {
                        // no instance yet
                    }
                    Thread.sleep(20);
                }
            } catch (InterruptedException ignored) {
                // done
            }
        });
        watcher.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] args = traceSelf
                ? new String[] {"capture", "-e", "syscalls:sys_enter_write", "-i", iface, "--duration", duration,
                    "--count", count, "--linger", "0", "-w", file.toString(), "--trace-self"}
                : new String[] {"capture", "-e", "syscalls:sys_enter_write", "-i", iface, "--duration", duration,
                    "--linger", "0", "-w", file.toString()};
        int rc;
        try (LiveWorkload burst = LiveWorkload.start(top.root(), 0.5, BURST)) {
            rc = Main.run(args, new PrintStream(out), new PrintStream(err));
        }
        watcher.join(30_000);
        String stdout = err.toString(StandardCharsets.UTF_8); // the summary and the warnings
        assertEquals(0, rc, stdout + out.toString(StandardCharsets.UTF_8));
        Matcher m = Pattern.compile("capture: ([\\d.]+) s, \\d+ events read, (\\d+) frames emitted").matcher(stdout);
        assertTrue(m.find(), stdout);
        // our threads: those alive now plus those the watcher saw (a thread may have ended since)
        Set<Long> ours = new TreeSet<>(SelfExclusion.tasks(self));
        ours.addAll(tasks.get());
        long own = 0;
        for (WireFrames.Decoded d : WireFrames.read(file)) {
            if (d.isEvent() && ours.contains((long) d.pid())) {
                own++;
            }
        }
        HostState after = HostState.of(top);
        assertEquals(before.settings(), after.settings(), "top-level settings changed");
        assertFalse(after.instances().contains("tracewire-" + self), "instance left behind");
        assertFalse(after.interfaces().contains(iface), "interface left behind");
        String warnings = err.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("warning"))
                .reduce("", (a, b) -> a + b + "\n");
        System.out.println((traceSelf ? "trace-self: " : "excluded:   ") + stdout.strip() + "\n" + warnings);
        System.out.println("  frames of our own threads: " + own);
        return new Run(stdout, Long.parseLong(m.group(2)), Double.parseDouble(m.group(1)), own,
                listed.get(), tasks.get());
    }

    @Test
    void aCaptureOfWritesToATapDoesNotFeedOnItself(@TempDir Path dir) throws Exception {
        Run excluded = capture(dir, false, "6", "0");
        Run self = capture(dir, true, "3", "3000000");
        System.out.printf("rates: excluded %.0f frames/s (%d of our threads), trace-self %.0f frames/s (%d of our"
                        + " threads), %.1fx%n", excluded.rate(), excluded.ownFrames(), self.rate(), self.ownFrames(),
                self.rate() / Math.max(1, excluded.rate()));
        assertFalse(excluded.listed().isEmpty(), "set_event_notrace_pid read back empty");
        assertTrue(excluded.listed().containsAll(excluded.ownTasks()),
                "threads not excluded: " + excluded.ownTasks() + " vs listed " + excluded.listed());
        assertEquals(0, excluded.ownFrames(), "frames of our own threads without --trace-self");
        assertTrue(excluded.frames() >= 2000, "the burst's 2,000 writes were recorded: " + excluded.stdout());
        assertTrue(self.stdout().contains("feedback"), "--trace-self warns of feedback: " + self.stdout());
        // with --trace-self each of the burst's events comes back as our write() of its frame, cycle
        // after cycle (at least every 50 ms poll). One generation of our own writes would be at most the
        // seed's 2,000; more than three generations' worth shows the loop. (How many cycles fit in 3 s
        // depends on how busy the two CPUs are: 10,000 to 360,000 seen.)
        assertTrue(self.ownFrames() > 3 * 2000, "trace-self: " + self.ownFrames() + " frames of our own threads");
    }
}
