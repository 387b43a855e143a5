package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.posix.InvokingUser;

/** The atomic write into the personal plugin folder (the installer attacks: cli InstallerAttackLiveTest). */
class PluginInstallerTest {
    @Test
    void installReplacesAtomically(@TempDir Path home) throws Exception {
        PluginInstaller.Target t = new PluginInstaller.Target(home, InvokingUser.process());
        Path f = PluginInstaller.install(t, "-- one\n");
        assertEquals("-- one\n", Files.readString(f));
        PluginInstaller.install(t, "-- two\n");
        assertEquals("-- two\n", Files.readString(f));
        try (var s = Files.list(f.getParent())) {
            assertEquals(1, s.count());
        }
    }
}
