package org.tracewire.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsException;
import org.tracewire.testing.Prerequisites;

/** The running kernel's live tracefs hashes like its checked-in snapshot. */
@Tag("live")
class FormatIdentityLiveTest {
    @Test
    void liveTracefsHashesLikeItsSnapshot() throws Exception {
        Tracefs live;
        try {
            live = Tracefs.live();
        } catch (TracefsException e) {
            if ("true".equals(System.getenv("CI"))) {
                Assertions.fail("CI=true and the live tracefs is missing: " + e.getMessage());
            }
            Assumptions.abort("needs root and tracefs: " + e.getMessage());
            return;
        }
        Properties p = new Properties();
        try (var in = Files.newInputStream(Prerequisites.snapshot().resolve(Tracefs.SNAPSHOT_PROPERTIES))) {
            p.load(in);
        }
        String release = Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim();
        Assumptions.assumeTrue(release.equals(p.getProperty("kernel.release")),
                "the snapshot is of kernel " + p.getProperty("kernel.release") + ", this is " + release);
        FormatCatalog snap = Tracefs.open(Prerequisites.snapshot()).formats();
        FormatCatalog now = live.formats();
        assertEquals(snap.formats().size(), now.formats().size(), "events in the snapshot and live");
        assertEquals(FormatIdentity.hex(FormatIdentity.of(snap)), FormatIdentity.hex(FormatIdentity.of(now)));
    }
}
