package org.tracewire.cli.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The remote command line: hostile events, filters and paths reach the remote tracewire as the
 * same arguments, checked by running the built command through {@code sh -c} exactly as the
 * remote login shell runs what ssh sends, with a fake {@code tracewire} that prints its arguments;
 * and the ssh command line's shape (BatchMode, no terminal, {@code --} before the destination).
 */
class RemoteCommandTest {
    static final List<String> HOSTILE = List.of("capture", "-e", "sched:sched_switch", "-f",
            "prev_comm == \"a'b\" && next_comm ~ \"$(touch /tmp/tracewire-pwned)\"",
            "-f", "`touch /tmp/tracewire-pwned`; echo pwned | cat; exit 3 #", "-e", "x:y\nz", "--clock", "'", "",
            "-w", "\\\\ \"$HOME\" * ? [a] ~ & > out < in", "--x=${PATH}", "  two  spaces  ", "\t", "ünïcödé €");

    @Test
    void everyArgumentArrivesUnchanged(@TempDir Path dir) throws Exception {
        Path remote = Files.createDirectories(dir.resolve("it's a \"dir\" $(x)"));
        Path argsFile = dir.resolve("args");
        write(remote.resolve("tracewire"), "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > '" + argsFile + "'\n");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        write(bin.resolve("id"), "#!/bin/sh\necho 0\n"); // the script's root check, whoever runs the test
        String command = RemoteCommand.build(remote.toString(), HOSTILE);
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        String got = Files.readString(argsFile, StandardCharsets.UTF_8);
        assertEquals(HOSTILE, Arrays.asList(got.substring(0, got.length() - 1).split("\0", -1)));
        assertFalse(Files.exists(Path.of("/tmp/tracewire-pwned")), "nothing ran");
    }

    @Test
    void aMissingTracewireIsReportedWithWhereItWasLookedFor(@TempDir Path dir) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", RemoteCommand.build(dir.resolve("nothing").toString(), List.of("capture")));
        Process p = pb.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        assertEquals(RemoteCommand.EXIT_NOT_FOUND, p.exitValue());
        assertEquals(RemoteCommand.MARKER + " not-found " + dir.resolve("nothing") + "\n", out);
    }

    @Test
    void aNulCannotBeQuoted() {
        assertThrows(IllegalArgumentException.class, () -> RemoteCommand.quote("a\0b"));
    }

    @Test
    void sshCommandLine() {
        SshTarget t = SshTarget.parse("root@10.0.0.2", 2222, Path.of("/k"), List.of("UserKnownHostsFile=/kh"));
        List<String> c = t.command("ssh", "CMD");
        assertEquals(List.of("ssh", "-T", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3",
                "-o", "ConnectTimeout=15", "-o", "LogLevel=ERROR", "-p", "2222", "-i", "/k", "-o", "IdentitiesOnly=yes",
                "-o", "UserKnownHostsFile=/kh", "--", "root@10.0.0.2", "CMD"), c);
        assertFalse(c.contains("-t") || c.contains("-tt"), "no terminal");
        assertEquals("host", SshTarget.parse("host", 0, null, List.of()).destination());
    }

    @Test
    void destinationsThatSshWouldReadAsOptionsAreRefused() {
        for (String bad : List.of("-oProxyCommand=touch /tmp/x", "root@-oProxyCommand=x", "a b", "root@", "@host", "ho\nst", "")) {
            assertThrows(IllegalArgumentException.class, () -> SshTarget.parse(bad, 0, null, List.of()), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> SshTarget.parse("h", 0, null, List.of("-oProxyCommand=x")));
        assertThrows(IllegalArgumentException.class, () -> SshTarget.parse("h", 70000, null, List.of()));
    }

    static void write(Path file, String text) throws Exception {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
