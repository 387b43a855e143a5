package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.Prerequisites;

/**
 * The launcher as root runs only from a tree no other user can change: a copy of {@code ./tracewire}
 * whose {@code scripts/prereqs.sh} is a stand-in that says it ran. Root's copy proceeds to it; a copy
 * with a file or directory of another user's, or writable by others, stops before anything of the
 * tree runs, saying which and what to do.
 */
@Tag("live")
class LauncherTrustLiveTest {
    static final String RAN = "STAND-IN PREREQS RAN";

    @Test
    void rootRunsOnlyATreeNoOtherUserCanChange(@TempDir Path tmp) throws Exception {
        Prerequisites.requireRoot();
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path tree = Files.createDirectory(tmp.resolve("tree"));
        Path launcher = Files.copy(Path.of("..", "tracewire").toAbsolutePath().normalize(), tree.resolve("tracewire"));
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path prereqs = Files.createDirectory(tree.resolve("scripts")).resolve("prereqs.sh");
        Files.writeString(prereqs, "tracewire_prereqs() { echo '" + RAN + "' >&2; return 1; }\n");
        Files.setPosixFilePermissions(prereqs, PosixFilePermissions.fromString("rw-r--r--"));

        String out = run(launcher);
        assertTrue(out.contains(RAN), "root's own tree: the launcher goes on: " + out);

        Files.setAttribute(prereqs, "unix:uid", 4242);
        assertRefused(launcher, prereqs + " is owned by uid 4242");
        Files.setAttribute(prereqs, "unix:uid", 0);
        Files.setPosixFilePermissions(prereqs, PosixFilePermissions.fromString("rw-rw-r--"));
        assertRefused(launcher, prereqs + " is writable by others");
        Files.setPosixFilePermissions(prereqs, PosixFilePermissions.fromString("rw-r--r--"));
        Files.setAttribute(tmp, "unix:uid", 4242);
        assertRefused(launcher, tmp + " is owned by uid 4242");
        Files.setAttribute(tmp, "unix:uid", 0);
        assertTrue(run(launcher).contains(RAN));
    }

    private static void assertRefused(Path launcher, String why) throws Exception {
        String out = run(launcher);
        assertTrue(out.contains("tracewire: refusing to run as root from " + launcher.getParent() + ": " + why), out);
        assertTrue(out.contains("sudo /opt/tracewire/tracewire"), out);
        assertFalse(out.contains(RAN), "nothing of the tree ran: " + out);
    }

    private static String run(Path launcher) throws Exception {
        Process p = new ProcessBuilder("bash", launcher.toString(), "formats").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, p.exitValue(), out);
        return out;
    }
}
