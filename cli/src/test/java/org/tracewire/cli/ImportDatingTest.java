package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code import} dates a trace.dat without a DATE option from this boot's clock only when it is from this boot. */
class ImportDatingTest {
    @Test
    void aFileOfThisHostAndBootGetsThisBootsOffset() throws Exception {
        String host = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        String release = Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
        double uptime = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split("\\s+")[0]);
        long now = System.currentTimeMillis();
        Long offset = ImportCommand.thisBootOffset(host, release, "mono", now);
        assertNotNull(offset);
        long bootMillis = now - (long) (uptime * 1000);
        assertTrue(Math.abs(offset / 1_000_000L - bootMillis) < 2000, offset / 1_000_000L + " vs " + bootMillis);

        assertNull(ImportCommand.thisBootOffset("another-host", release, "mono", now), "another host");
        assertNull(ImportCommand.thisBootOffset(host, release + "-other", "mono", now), "another kernel");
        assertNull(ImportCommand.thisBootOffset(host, release, "x86-tsc", now), "a clock that does not count from boot");
        assertNull(ImportCommand.thisBootOffset(host, release, "local", bootMillis - 60_000), "written before this boot");
    }
}
