package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.TestUser;

/**
 * Commands run as root through sudo write their outputs as the invoking user (a test user):
 * {@code capture -w}, {@code dissector -o}, {@code merge -w} are refused where the user may not
 * write (nothing created) and give the user the files they may write.
 */
@Tag("live")
@Tag("concurrent")
class SudoOutputsLiveTest {
    @Test
    void outputsAreTheInvokingUsersToWrite(@TempDir Path tmp) throws Exception {
        Prerequisites.requireTracefs();
        Prerequisites.requireRoot();
        long pid = ProcessHandle.current().pid();
        Path etcPcapng = Path.of("/etc/tracewire-sudo-" + pid + ".pcapng");
        Path etcLua = Path.of("/etc/tracewire-sudo-" + pid + ".lua");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        TestUser u = TestUser.create(tmp);
        try {
            Path mine = u.home().resolve("out.pcapng");
            Result r = run(u, "capture", "-e", "sched:sched_switch", "--no-iface", "--duration", "1", "-w", etcPcapng.toString());
            assertEquals(1, r.code, r.out);
            assertTrue(r.out.contains("the directory /etc is not writable by uid " + u.uid()), r.out);
            assertFalse(Files.exists(etcPcapng));
            r = run(u, "capture", "-e", "sched:sched_switch", "--no-iface", "--duration", "1", "-w", mine.toString());
            assertEquals(0, r.code, r.out);
            assertEquals(u.uid(), Files.getAttribute(mine, "unix:uid"));
            assertTrue(Files.size(mine) > 0);

            r = run(u, "dissector", "--tracefs", Prerequisites.snapshot().toString(), "-e", "sched:sched_switch",
                    "-o", etcLua.toString());
            assertEquals(1, r.code, r.out);
            assertTrue(r.out.contains("the directory /etc is not writable by uid " + u.uid()), r.out);
            assertFalse(Files.exists(etcLua));

            Path merged = u.home().resolve("merged.pcapng");
            r = run(u, "merge", mine.toString(), "-w", merged.toString());
            assertEquals(0, r.code, r.out);
            assertEquals(u.uid(), Files.getAttribute(merged, "unix:uid"));
            r = run(u, "merge", mine.toString(), "-w", etcPcapng.toString());
            assertEquals(1, r.code, r.out);
            assertFalse(Files.exists(etcPcapng));
        } finally {
            Files.deleteIfExists(etcPcapng);
            Files.deleteIfExists(etcLua);
        }
    }

    /**
     * A ring of files under sudo: each file is created as the user, the oldest are removed as the
     * user (only the newest two are left, all the user's), and a ring where the user may not write
     * is refused before anything is created.
     */
    @Test
    void ringFilesAreTheInvokingUsersAndRemovedAsThem(@TempDir Path tmp) throws Exception {
        Prerequisites.requireTracefs();
        Prerequisites.requireRoot();
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        TestUser u = TestUser.create(tmp);
        Path dir = u.home().resolve("ring");
        Files.createDirectory(dir);
        Files.setAttribute(dir, "unix:uid", u.uid());
        Result r = run(u, "capture", "-e", "sched", "--no-iface", "--duration", "2", "--read-ahead", "0",
                "-w", dir.resolve("r.pcapng").toString(), "-b", "filesize:20", "-b", "files:2");
        assertEquals(0, r.code, r.out);
        Matcher m = Pattern.compile("(\\d+) files written, 2 kept").matcher(r.out);
        assertTrue(m.find() && Integer.parseInt(m.group(1)) >= 3, "the ring went round: " + r.out);
        List<Path> left;
        try (var l = Files.list(dir)) {
            left = l.sorted().toList();
        }
        assertEquals(2, left.size(), "the older files were removed: " + left);
        for (Path f : left) {
            assertTrue(f.getFileName().toString().matches("r_\\d{5}_\\d{14}\\.pcapng"), f.toString());
            assertEquals(u.uid(), Files.getAttribute(f, "unix:uid"), f + " is the user's");
        }
        long pid = ProcessHandle.current().pid();
        r = run(u, "capture", "-e", "sched:sched_switch", "--no-iface", "--duration", "1", "-w",
                "/etc/tracewire-ring-" + pid + ".pcapng", "--ring", "1,2");
        assertEquals(1, r.code, r.out);
        assertTrue(r.out.contains("the directory /etc is not writable by uid " + u.uid()), r.out);
        try (var l = Files.list(Path.of("/etc"))) {
            assertEquals(List.of(), l.filter(f -> f.getFileName().toString().startsWith("tracewire-ring-" + pid)).toList());
        }
    }

    private record Result(int code, String out) {
    }

    /** The command as root with the variables sudo sets for the user. */
    private static Result run(TestUser u, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "org.tracewire.cli.Main"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("SUDO_UID", Integer.toString(u.uid()));
        pb.environment().put("SUDO_GID", Integer.toString(u.gid()));
        pb.environment().put("SUDO_USER", "tracewire-test");
        pb.environment().remove("PKEXEC_UID");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        return new Result(p.exitValue(), out);
    }
}
