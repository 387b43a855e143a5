package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.FrameKind;

/**
 * The capture backend's acceptance on the live kernel: {@code tracewire capture -e sched:sched_switch
 * -e sched:sched_wakeup -e syscalls:sys_enter_openat -w out.pcapng} under a workload. capinfos counts
 * every frame the capture says it emitted (event and context frames); the file starts with its
 * CAPTURE frame, every event read is an event frame, packet times never go back and an event
 * packet's time is its event's; and every event, rendered from the file's own context
 * ({@link CaptureOracle}: no tracefs), equals the kernel's own text of the same event, recorded at
 * the same time by a second instance. Nothing is left behind.
 */
@Tag("live")
@Tag("concurrent")
class CaptureCommandLiveTest {
    @Test
    void pcapngFramesEqualTheKernelsText(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireTool("capinfos");
        HostState before = HostState.of(top);
        Path out = dir.resolve("out.pcapng");
        List<String> events = List.of("sched:sched_switch", "sched:sched_wakeup", "syscalls:sys_enter_openat");
        CaptureOracle.Run run = CaptureOracle.run(top, "oracle-b", events, List.of("-e", events.get(0), "-e",
                events.get(1), "-e", events.get(2), "--duration", "3", "-w", out.toString(), "--no-iface"), () -> {
            long until = System.nanoTime() + 2_500_000_000L;
            while (System.nanoTime() < until) {
                try {
                    new ProcessBuilder("sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10; do cat /proc/version; done")
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
                } catch (Exception e) {
                    return;
                }
            }
        });
        assertEquals(0, run.exit(), run.stdout() + run.stderr());
        assertEquals("", run.stdout(), "standard output carries only data: none with -w FILE");
        Matcher summary = Pattern.compile("(\\d+) events read, (\\d+) frames emitted \\((\\d+) of context")
                .matcher(run.stderr());
        assertTrue(summary.find(), run.stderr());
        long events0 = Long.parseLong(summary.group(1));
        long frames = Long.parseLong(summary.group(2));
        long context = Long.parseLong(summary.group(3));
        assertEquals(events0 + context, frames, "every event read became a frame: " + run.stderr());
        assertTrue(events0 > 500, "only " + events0 + " events");

        String capinfos = CaptureOracle.sh("capinfos", "-c", "-M", out.toString());
        assertTrue(capinfos.matches("(?s).*Number of packets:\\s+" + frames + "\\b.*"), capinfos);

        List<WireFrames.Decoded> all = WireFrames.read(out);
        assertEquals(frames, all.size());
        assertEquals(FrameKind.CAPTURE, all.get(0).kind(), "CAPTURE first");
        long prevTime = 0;
        long eventFrames = 0;
        for (WireFrames.Decoded d : all) {
            assertEquals(d.frame().header().timeNs(), d.packet().timeNs(), "packet time = the frame's time");
            assertTrue(d.packet().timeNs() >= prevTime, "packets in time order");
            prevTime = d.packet().timeNs();
            eventFrames += d.isEvent() ? 1 : 0;
        }
        assertEquals(events0, eventFrames);

        CaptureOracle.Comparison c = CaptureOracle.compare(out, run.kernel());
        System.out.print(c.report());
        assertEquals(events0, c.frames());
        assertTrue(c.rate() >= 0.99, "match rate " + c.rate());
        HostState after = HostState.of(top);
        assertEquals(List.of(), after.leftSince(before), "tracing settings, instances or interfaces changed");
    }

    /** Runs a command to its end; its output (standard error merged). */
    static String run(String... cmd) throws Exception {
        return CaptureOracle.sh(cmd);
    }
}
