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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.input.PcapngInput;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.TestInstances;
import org.tracewire.tracefs.Tracefs;

/**
 * The live interface output: a {@code tshark -i} started on the TAP interface as soon as it
 * appears (the capture waits {@code --delay} before tracing) sees every frame the capture
 * emitted, and the interface is gone afterwards. A tshark started seconds after tracing began
 * still gets the whole context from the repeats ({@code docs/wire-format.md} §6): its file renders
 * from itself.
 */
@Tag("live")
@Tag("concurrent")
@Tag("tshark")
public class CaptureInterfaceLiveTest {
    /**
     * A thread that waits until {@code ready}, then {@code afterMs} more, then runs tshark with
     * {@code args} (its output and errors into {@code log}) for up to 60 s; started. A failure leaves
     * no file, which the caller's assertions report.
     */
    public static Thread tsharkWhen(BooleanSupplier ready, long afterMs, Path log, String... args) {
        List<String> cmd = new ArrayList<>(List.of("tshark"));
        cmd.addAll(List.of(args));
        Thread starter = new Thread(() -> {
            try {
                while (!ready.getAsBoolean()) {
                    Thread.sleep(20);
                }
                Thread.sleep(afterMs);
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
                p.waitFor(60, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // the assertions report a missing file
            }
        });
        starter.start();
        return starter;
    }

    @Test
    void tsharkOnTheTapSeesEveryFrame(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireTool("tshark");
        HostState before = HostState.of(top);
        String iface = "twt" + (ProcessHandle.current().pid() % 100000);
        Path file = dir.resolve("tap.pcapng");
        Path log = dir.resolve("tshark.log");
        Thread starter = tsharkWhen(() -> Files.exists(Path.of("/sys/class/net", iface)), 0, log,
                "-i", iface, "-w", file.toString());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = Main.run(new String[] {"capture", "-e", "sched:sched_switch", "-e", "sched:sched_wakeup",
                "--duration", "3", "-i", iface, "--delay", "3", "--linger", "2"}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(out)); // the summary is on standard error
        starter.join(30_000);
        String stdout = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, stdout);
        Matcher m = Pattern.compile("(\\d+) frames emitted").matcher(stdout);
        assertTrue(m.find(), stdout);
        long frames = Long.parseLong(m.group(1));
        assertTrue(frames > 100, stdout);
        String tshark = Files.readString(log);
        assertTrue(tshark.contains(frames + " packets captured"), "emitted " + frames + ", tshark: " + tshark);
        assertFalse(Files.exists(Path.of("/sys/class/net", iface)), "interface left behind");
        assertEquals(List.of(), HostState.of(top).leftSince(before));
    }

    @Test
    void aLateJoinerGetsTheContextFromTheRepeats(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireTool("tshark");
        HostState before = HostState.of(top);
        String iface = "twl" + (ProcessHandle.current().pid() % 100000);
        Path file = dir.resolve("late.pcapng");
        Path log = dir.resolve("tshark.log");
        Path instance = top.root().resolve("instances/tracewire-" + ProcessHandle.current().pid());
        // 1.5 s after tracing began: well after the first CAPTURE and FORMAT frames
        Thread starter = tsharkWhen(() -> TestInstances.isTracing(instance), 1500, log,
                "-i", iface, "-a", "duration:4", "-w", file.toString());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = Main.run(new String[] {"capture", "-e", "sched:sched_switch", "-e", "sched:sched_wakeup",
                "--duration", "6", "-i", iface, "--linger", "0"}, new PrintStream(out),
                new PrintStream(new ByteArrayOutputStream()));
        starter.join(30_000);
        assertEquals(0, rc, out.toString(StandardCharsets.UTF_8));
        long rendered = 0;
        try (PcapngInput in = PcapngInput.open(file)) {
            for (var it = in.events(); it.hasNext(); ) {
                var r = it.next().record();
                assertFalse(in.renderer().printer(r.format()).renderDetailed(r, in.context().printContext()).fallback());
                rendered++;
            }
            assertTrue(in.context().hasCapture(), "CAPTURE repeated");
            assertEquals(2, in.context().catalog().formats().size(), "both FORMATs repeated");
        }
        assertTrue(rendered > 100, rendered + " events rendered; tshark: " + Files.readString(log));
        assertEquals(List.of(), HostState.of(top).leftSince(before));
    }
}
