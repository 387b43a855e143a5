package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.TestUser;

/**
 * Commands run as root through sudo write their outputs as the invoking user (a real test user):
 * {@code capture -w}, {@code dissector -o}, {@code merge -w} are refused where the user may not
 * write (nothing created) and give the user the files they may write.
 */
@Tag("live")
class SudoOutputsLiveTest {
    @Test
    void outputsAreTheInvokingUsersToWrite() throws Exception {
        Prerequisites.requireTracefs();
        Prerequisites.requireRoot();
        Prerequisites.requireTool("useradd");
        long pid = ProcessHandle.current().pid();
        Path etcPcapng = Path.of("/etc/tracewire-sudo-" + pid + ".pcapng");
        Path etcLua = Path.of("/etc/tracewire-sudo-" + pid + ".lua");
        try (TestUser u = TestUser.create()) {
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
        pb.environment().put("SUDO_USER", u.name());
        pb.environment().remove("PKEXEC_UID");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        return new Result(p.exitValue(), out);
    }
}
