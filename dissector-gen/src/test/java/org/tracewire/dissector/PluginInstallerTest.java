package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The personal plugin folder under sudo and without, and the atomic write. */
class PluginInstallerTest {
    static final List<String> PASSWD = List.of("root:x:0:0:root:/root:/bin/bash",
            "alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash");

    @Test
    void sudoUsesTheInvokingUsersHome() {
        PluginInstaller.Target t = PluginInstaller.target(Map.of("SUDO_USER", "alice"), "/root", PASSWD);
        assertEquals(Path.of("/home/alice/.local/lib/wireshark/plugins"), t.pluginDir());
        assertEquals("alice", t.owner());
    }

    @Test
    void withoutSudoUsesUserHome() {
        PluginInstaller.Target t = PluginInstaller.target(Map.of(), "/home/bob", PASSWD);
        assertEquals(Path.of("/home/bob/.local/lib/wireshark/plugins"), t.pluginDir());
        assertNull(t.owner());
        assertNull(PluginInstaller.target(Map.of("SUDO_USER", "root"), "/root", PASSWD).owner());
        assertThrows(IllegalStateException.class, () -> PluginInstaller.target(Map.of("SUDO_USER", "mallory"), "/root", PASSWD));
    }

    @Test
    void installReplacesAtomically(@TempDir Path home) throws Exception {
        PluginInstaller.Target t = new PluginInstaller.Target(home, null);
        Path f = PluginInstaller.install(t, "-- one\n");
        assertEquals("-- one\n", Files.readString(f));
        PluginInstaller.install(t, "-- two\n");
        assertEquals("-- two\n", Files.readString(f));
        try (var s = Files.list(f.getParent())) {
            assertEquals(1, s.count());
        }
    }
}
