package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.format.FormatIdentity;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** {@code tracewire dissector}, run in-process through {@link Main#run}. */
class DissectorCommandTest {

    @Test
    void writesThePluginForASelection(@TempDir Path dir) throws Exception {
        Path snap = Prerequisites.snapshot();
        Path out = dir.resolve("tw.lua");
        FormatsCommandTest.Result r = FormatsCommandTest.run("dissector", "--tracefs", snap.toString(),
                "-e", "sched:*", "-e", "syscalls:sys_enter_openat", "-o", out.toString());
        assertEquals(0, r.code(), r.err());
        String hash = FormatIdentity.hex(FormatIdentity.of(Tracefs.open(snap).formats()));
        assertTrue(r.out().startsWith("dissector: "), r.out());
        assertTrue(r.out().contains("format hash " + hash), r.out());
        String lua = Files.readString(out);
        assertTrue(lua.contains("format identity hash: " + hash));
        assertTrue(lua.contains("\"tracewire.sched.sched_switch.prev_pid\""));
        assertTrue(lua.contains("\"tracewire.syscalls.sys_enter_openat.filename\""));
        assertTrue(!lua.contains("\"tracewire.irq."), "only the selection");
        if (Files.isExecutable(Path.of("/usr/bin/luac5.2"))) {
            Process p = new ProcessBuilder("luac5.2", "-p", out.toString()).inheritIO().start();
            assertEquals(0, p.waitFor());
        }
    }

    @Test
    void rejectsBadSelectorsAndMissingOutput(@TempDir Path dir) {
        String snap = Prerequisites.snapshot().toString();
        FormatsCommandTest.Result r = FormatsCommandTest.run("dissector", "--tracefs", snap, "-e", "nosuch:*",
                "-o", dir.resolve("x.lua").toString());
        assertNotEquals(0, r.code());
        assertTrue(r.err().contains("unknown system 'nosuch'"), r.err());
        r = FormatsCommandTest.run("dissector", "--tracefs", snap, "-e", "sched");
        assertNotEquals(0, r.code());
        r = FormatsCommandTest.run("dissector", "--tracefs", snap);
        assertNotEquals(0, r.code());
        assertTrue(r.err().contains("-o FILE.lua or --install"), r.err());
        assertTrue(!Files.exists(dir.resolve("x.lua")));
    }

    @Test
    void installsIntoThePersonalPluginFolder(@TempDir Path home) throws Exception {
        Assumptions.assumeTrue(System.getenv("SUDO_USER") == null, "runs under sudo: SUDO_USER's home would be used");
        String old = System.getProperty("user.home");
        System.setProperty("user.home", home.toString());
        try {
            FormatsCommandTest.Result r = FormatsCommandTest.run("dissector", "--tracefs",
                    Prerequisites.snapshot().toString(), "-e", "irq:*", "--install");
            assertEquals(0, r.code(), r.err());
            Path file = home.resolve(".local/lib/wireshark/plugins/tracewire.lua");
            assertTrue(Files.exists(file), r.out());
            assertTrue(r.out().contains(file.toString()), r.out());
            assertTrue(Files.readString(file).contains("\"tracewire.irq.irq_handler_entry.irq\""));
            try (var s = Files.list(file.getParent())) {
                assertEquals(1, s.count(), "no temporary files left");
            }
        } finally {
            System.setProperty("user.home", old);
        }
    }
}
