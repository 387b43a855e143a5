package org.tracewire.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.tracewire.posix.InvokingUser;

/**
 * A real unprivileged user for a test: {@code tracewire-test-<random>} made with {@code useradd}
 * (its own group, a home directory under {@code /home}) and removed with {@code userdel -r} on
 * {@link #close()}. Needs root and {@code useradd}/{@code userdel} (callers check both,
 * {@link Prerequisites}).
 *
 * @param name the user name
 * @param uid  its uid
 * @param gid  its primary gid
 * @param home its home directory
 */
public record TestUser(String name, int uid, int gid, Path home) implements AutoCloseable {
    /** Creates the user (and its home directory). */
    public static TestUser create() throws IOException, InterruptedException {
        String name = "tracewire-test-" + Long.toHexString(System.nanoTime() & 0xffffffL);
        run("useradd", "--create-home", "--user-group", "--shell", "/bin/sh", name);
        int uid = Integer.parseInt(out("id", "-u", name).strip());
        int gid = Integer.parseInt(out("id", "-g", name).strip());
        return new TestUser(name, uid, gid, Path.of(out("getent", "passwd", name).strip().split(":")[5]));
    }

    /** The user as tracewire acts for it (as through sudo: SUDO_UID). */
    public InvokingUser invoking() {
        return new InvokingUser(uid, gid, Set.of(gid), "SUDO_UID");
    }

    /** Runs a command as this user ({@code setpriv}), waiting for it. @return its exit code */
    public int runAs(List<String> command) throws IOException, InterruptedException {
        List<String> cmd = new java.util.ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=" + gid,
                "--init-groups", "--"));
        cmd.addAll(command);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(cmd + " did not end within 60 s");
        }
        return p.exitValue();
    }

    /** Removes the user, its group and its home directory. */
    @Override
    public void close() throws IOException, InterruptedException {
        new ProcessBuilder("pkill", "-KILL", "-u", name).start().waitFor();
        run("userdel", "--remove", name);
    }

    private static void run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out.strip());
        }
    }

    private static String out(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed");
        }
        return out;
    }
}
