package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.TestInstances;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsInstance;

class ClockSyncTest {
    /**
     * With the {@code realtime}-like check available on every kernel: the {@code mono} clock's
     * offset to the wall clock equals the boot time (wall now minus uptime), which /proc/uptime
     * gives to 10 ms; and a second measurement agrees with the first within both error bounds plus
     * a small drift allowance.
     */
    @Test
    @Tag("live")
    void monoClockOffsetIsTheBootTimeAndRepeatable() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        try (TracefsInstance inst = TestInstances.create(top, "clocksync")) {
            inst.setClock("mono");
            SubBufferLayout layout = SubBufferLayout.of(inst.headerPage(), inst.headerEvent(), inst.layout());
            var print = top.format("ftrace", "print");
            ClockSync a = ClockSync.measure(inst, layout, print, 8);
            ClockSync b = ClockSync.measure(inst, layout, print, 8);
            assertTrue(a.errorNs() >= 0 && a.errorNs() < 1_000_000, "error bound " + a.errorNs() + " ns");
            long diff = Math.abs(a.offsetNs() - b.offsetNs());
            assertTrue(diff <= a.errorNs() + b.errorNs() + 50_000, "two measurements differ by " + diff + " ns");
            // mono = ns since boot; offset = mono - wall = -(boot time in wall ns)
            double uptime = Double.parseDouble(Files.readString(Path.of("/proc/uptime"))
                    .split(" ")[0]);
            long bootWall = ClockSync.epochNanos(Instant.now()) - (long) (uptime * 1e9);
            assertTrue(Math.abs(-a.offsetNs() - bootWall) < 50_000_000L,
                    "boot time from the offset " + (-a.offsetNs()) + " vs /proc/uptime " + bootWall);
            assertTrue(Math.abs(a.toWallNs(a.traceNow()) - ClockSync.epochNanos(Instant.now())) < 5_000_000L);
        }
    }
}
