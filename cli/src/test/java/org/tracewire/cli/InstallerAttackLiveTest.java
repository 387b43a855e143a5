package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.dissector.PluginInstaller;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.TestUser;

/**
 * The installers run by root for a real unprivileged test user (as under sudo) while that user
 * attacks them with symbolic links into root's files: nothing of root's is ever written, created
 * or given to the user.
 */
@Tag("live")
class InstallerAttackLiveTest {
    /** Race rounds: each one installs while the user swaps links as fast as a shell can. */
    static final int ROUNDS = 120;

    /**
     * {@code sudo tracewire dissector --install} (the real command, with sudo's variables) when the
     * user's plugin folder is a link to a root directory: refused, saying why; the root directory and
     * its 0600 file untouched. Without the link the plugin is installed, the folders and file the user's.
     */
    @Test
    void dissectorInstallNeverWritesThroughTheUsersLink(@TempDir Path tmp) throws Exception {
        Path rootDir = rootDirWithSecret(tmp);
        Map<Path, String> before = snapshot(rootDir);
        try (TestUser u = TestUser.create()) {
            Path wireshark = u.home().resolve(".local/lib/wireshark");
            assertEquals(0, u.runAs(List.of("mkdir", "-p", wireshark.toString())));
            assertEquals(0, u.runAs(List.of("ln", "-s", rootDir.toString(), wireshark.resolve("plugins").toString())));
            Result r = install(u);
            assertEquals(1, r.code, r.err);
            assertTrue(r.err.contains("the directory " + wireshark.resolve("plugins") + " is not writable by uid " + u.uid()),
                    r.err);
            assertEquals(before, snapshot(rootDir), "root's directory untouched");

            assertEquals(0, u.runAs(List.of("rm", wireshark.resolve("plugins").toString())));
            r = install(u);
            assertEquals(0, r.code, r.err);
            Path plugin = wireshark.resolve("plugins/tracewire.lua");
            assertEquals(u.uid(), Files.getAttribute(plugin, "unix:uid"));
            assertEquals(u.gid(), Files.getAttribute(plugin, "unix:gid"));
            assertEquals(u.uid(), Files.getAttribute(plugin.getParent(), "unix:uid"), "the folder made for the user is theirs");
            assertTrue(Files.readString(plugin).contains("tracewire.sched.sched_switch"));
        }
    }

    /**
     * The race: while root installs the plugin {@value #ROUNDS} times for the user, the user swaps
     * the plugin folder between a link to a root directory and a folder of their own, in which the
     * plugin's name is a link to a root 0600 file. 0 wins: the root file keeps its owner, mode and
     * content; the root directory gets nothing.
     */
    @Test
    void theSymlinkSwapRaceNeverWins(@TempDir Path tmp) throws Exception {
        Path rootDir = rootDirWithSecret(tmp);
        Path secret = rootDir.resolve("secret");
        Map<Path, String> before = snapshot(rootDir);
        try (TestUser u = TestUser.create()) {
            Path wireshark = u.home().resolve(".local/lib/wireshark");
            String loop = "cd " + wireshark + " && mkdir -p own && while :; do "
                    + "ln -sfn " + rootDir + " p.new && mv -T p.new plugins; "
                    + "ln -sfn own p.new && mv -T p.new plugins; "
                    + "ln -sf " + secret + " own/tracewire.lua.new && mv -T own/tracewire.lua.new own/tracewire.lua; "
                    + "done";
            assertEquals(0, u.runAs(List.of("mkdir", "-p", wireshark.toString())));
            List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=" + u.uid(), "--regid=" + u.gid(),
                    "--init-groups", "--", "sh", "-c", loop));
            Process attacker = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            int installed = 0;
            int refused = 0;
            int wins = 0;
            try {
                // the attacker is at work once its first link is there
                for (int i = 0; i < 500 && !Files.isSymbolicLink(wireshark.resolve("plugins")); i++) {
                    Thread.sleep(20);
                }
                assertTrue(Files.isSymbolicLink(wireshark.resolve("plugins")), "the attacker's loop did not start");
                PluginInstaller.Target target = new PluginInstaller.Target(u.home(), u.invoking());
                for (int i = 0; i < ROUNDS; i++) {
                    try {
                        PluginInstaller.install(target, "-- round " + i + "\n");
                        installed++;
                    } catch (IOException e) {
                        refused++;
                    }
                    if (!before.equals(snapshot(rootDir))) {
                        wins++;
                        before = snapshot(rootDir);
                    }
                }
            } finally {
                attacker.destroyForcibly();
                attacker.waitFor(10, TimeUnit.SECONDS);
            }
            System.out.println("installer race: " + ROUNDS + " rounds, " + installed + " installed (as the user), "
                    + refused + " refused, " + wins + " wins");
            assertEquals(0, wins, "root's directory or file changed");
            assertEquals(ROUNDS, installed + refused);
            assertEquals(0, Files.getAttribute(secret, "unix:uid"));
            assertEquals(0600, (Integer) Files.getAttribute(secret, "unix:mode") & 07777);
            assertEquals("root's secret\n", Files.readString(secret));
            Path own = wireshark.resolve("own/tracewire.lua");
            if (installed > 0 && Files.isRegularFile(own, LinkOption.NOFOLLOW_LINKS)) {
                assertEquals(u.uid(), Files.getAttribute(own, "unix:uid", LinkOption.NOFOLLOW_LINKS));
            }
        }
    }

    /**
     * Checks the prerequisites (root, useradd, setpriv) and makes a root directory (0755) holding a
     * root file of mode 0600, {@code secret}, in {@code tmp} (made searchable by all).
     */
    private static Path rootDirWithSecret(Path tmp) throws IOException {
        Prerequisites.requireRoot();
        Prerequisites.requireTool("useradd");
        Prerequisites.requireTool("setpriv");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path dir = Files.createDirectory(tmp.resolve("root-plugins"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path secret = Files.writeString(dir.resolve("secret"), "root's secret\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        return dir;
    }

    /** Every entry of a directory with its owner, mode and content. */
    private static Map<Path, String> snapshot(Path dir) throws IOException {
        Map<Path, String> m = new TreeMap<>();
        try (var s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                m.put(p, Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS) + " "
                        + Integer.toOctalString((Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS)) + " "
                        + (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) ? Files.readString(p) : "?"));
            }
        }
        m.put(dir, Files.getAttribute(dir, "unix:uid") + " " + Integer.toOctalString((Integer) Files.getAttribute(dir, "unix:mode")));
        return m;
    }

    private record Result(int code, String err) {
    }

    /** {@code tracewire dissector --install} as root for the user, with the variables sudo sets. */
    private static Result install(TestUser u) throws Exception {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "org.tracewire.cli.Main", "dissector", "--tracefs",
                Prerequisites.snapshot().toString(), "-e", "sched:sched_switch", "--install");
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("SUDO_UID", Integer.toString(u.uid()));
        pb.environment().put("SUDO_GID", Integer.toString(u.gid()));
        pb.environment().put("SUDO_USER", u.name());
        pb.environment().put("HOME", "/root");
        pb.environment().remove("PKEXEC_UID");
        Process p = pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new Result(p.exitValue(), err);
    }
}
