package org.tracewire.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.Prerequisites;

/** A user's checkout starts the backend of the root-owned copy when there is one. */
@Tag("live")
class BackendLauncherLiveTest {
    @Test
    void aUsersLauncherGivesWayToRootsCopy(@TempDir Path tmp) throws Exception {
        Prerequisites.requireRoot();
        Path users = script(tmp.resolve("users"), 4242);
        Path roots = script(tmp.resolve("roots"), 0);
        assertEquals(roots, BackendLauncher.privileged(users, roots));
        assertEquals(users, BackendLauncher.privileged(users, tmp.resolve("none")), "no copy: stays (and refuses as root)");
        assertEquals(roots, BackendLauncher.privileged(roots, users), "root's own tree stays");
        Files.setPosixFilePermissions(roots, PosixFilePermissions.fromString("rwxrwxr-x"));
        assertEquals(users, BackendLauncher.privileged(users, roots), "a copy others may change is not root's");
        Path link = Files.createSymbolicLink(tmp.resolve("link"), users);
        assertEquals(users, BackendLauncher.privileged(users, link));
    }

    private static Path script(Path p, int uid) throws Exception {
        Files.writeString(p, "#!/bin/sh\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setAttribute(p, "unix:uid", uid);
        return p;
    }
}
