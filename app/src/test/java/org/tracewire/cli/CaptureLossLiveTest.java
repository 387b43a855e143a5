package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.pcapng.PcapngReader;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.WireDecoder;
import org.tracewire.wire.WireFrame;
import org.tracewire.wire.WireHeader;

/**
 * Lost events are counted, never hidden: the same heavy load (one million 1-byte reads and writes
 * by dd, traced at sys_enter_read/write) overruns a 8 KiB-per-CPU ring buffer, and the loss shows
 * per CPU in the summary, in the frames' lost-events fields and in the pcapng drop counts; with a
 * 256 MiB buffer the same load loses nothing.
 */
@Tag("live")
class CaptureLossLiveTest {
    record Result(long emitted, long lostKnown, long unknownPages, long framesWithLoss, long frameLost,
                  long pcapngDrops, long packets) {
    }

    static Result capture(Path file, int bufferKb) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        HostState before = HostState.of(top);
        Thread load = new Thread(() -> {
            try {
                Thread.sleep(2500);
                new ProcessBuilder("dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=1000000")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
            } catch (Exception ignored) {
                // the counts below tell
            }
        });
        load.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = Main.run(new String[] {"capture", "-e", "syscalls:sys_enter_read", "-e", "syscalls:sys_enter_write",
                "--buffer-kb", Integer.toString(bufferKb), "--duration", "6", "-w", file.toString(), "--no-iface"},
                new PrintStream(out), new PrintStream(new ByteArrayOutputStream()));
        load.join();
        String stdout = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, stdout);
        System.out.println("buffer " + bufferKb + " KiB: " + stdout.strip());
        Matcher m = Pattern.compile("(\\d+) frames emitted").matcher(stdout);
        assertTrue(m.find(), stdout);
        long emitted = Long.parseLong(m.group(1));
        long lostKnown = 0;
        long unknown = 0;
        Matcher cpu = Pattern.compile("cpu(\\d+) (\\d+)( \\(\\+ unknown in (\\d+) pages\\))?").matcher(stdout);
        while (cpu.find()) {
            lostKnown += Long.parseLong(cpu.group(2));
            unknown += cpu.group(4) == null ? 0 : Long.parseLong(cpu.group(4));
        }
        List<PcapngReader.Packet> packets = new PcapngReader(Files.readAllBytes(file)).packets();
        long withLoss = 0;
        long frameLost = 0;
        long drops = 0;
        for (PcapngReader.Packet p : packets) {
            WireHeader h = WireDecoder.decode(p.frame()).header();
            if (h.lostEvents() > 0 || (h.flags() & WireHeader.FLAG_LOST_UNKNOWN) != 0) {
                withLoss++;
            }
            frameLost += h.lostEvents();
            drops += p.dropCount();
        }
        assertEquals(before, HostState.of(top), "state left behind");
        return new Result(emitted, lostKnown, unknown, withLoss, frameLost, drops, packets.size());
    }

    @Test
    void aTinyBufferLosesEventsAndSaysSo(@TempDir Path dir) throws Exception {
        Result r = capture(dir.resolve("tiny.pcapng"), 8);
        assertEquals(r.emitted(), r.packets());
        assertTrue(r.lostKnown() + r.unknownPages() > 0, "a 8 KiB buffer under this load must lose events: " + r);
        assertTrue(r.framesWithLoss() > 0, "frames carry the loss: " + r);
        assertEquals(r.lostKnown(), r.frameLost(), "the frames' lost-events fields add up to the summary: " + r);
        assertEquals(r.lostKnown(), r.pcapngDrops(), "the pcapng drop counts add up to the summary: " + r);
    }

    @Test
    void anAmpleBufferLosesNothing(@TempDir Path dir) throws Exception {
        Result r = capture(dir.resolve("ample.pcapng"), 262144);
        assertEquals(r.emitted(), r.packets());
        assertTrue(r.emitted() > 1_000_000, "the load produced only " + r.emitted() + " events");
        assertEquals(0, r.lostKnown() + r.unknownPages(), "lost with an ample buffer: " + r);
        assertEquals(0, r.framesWithLoss());
        assertEquals(0, r.pcapngDrops());
    }
}
