package org.tracewire.cli.remote;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A "remote host" on this machine for tests: an OpenSSH server ({@code /usr/sbin/sshd -D -f
 * CONFIG}, Debian's openssh-server) in a network namespace of its own, listening on the
 * namespace's end of a veth pair. Host key, user key, authorized_keys, known_hosts and the
 * config are made in a temporary folder; root logs in with the user key only. {@link #close()}
 * removes everything: the processes in the namespace (sshd and any session), the veth pair, the
 * namespace, and {@code /run/sshd} when it was made here.
 */
final class SshdNamespace implements AutoCloseable {
    final String namespace;
    final String hostIface;
    final String address;
    final Path dir;
    final Path userKey;
    final Path knownHosts;
    private final boolean madeRunDir;
    private Process sshd;

    private SshdNamespace(Path dir) {
        long id = ProcessHandle.current().pid() % 10000;
        this.namespace = "twssh" + id;
        this.hostIface = "twsa" + id;
        this.address = "10.213." + (id % 250) + ".2";
        this.dir = dir;
        this.userKey = dir.resolve("user_key");
        this.knownHosts = dir.resolve("known_hosts");
        this.madeRunDir = !Files.isDirectory(Path.of("/run/sshd"));
    }

    /** Makes the namespace, the keys and the config, starts sshd and waits until it accepts connections. */
    static SshdNamespace start(Path dir) throws Exception {
        SshdNamespace s = new SshdNamespace(dir);
        try {
            s.setUp();
        } catch (Exception | Error e) {
            s.close();
            throw e;
        }
        return s;
    }

    private void setUp() throws Exception {
        String nsIface = "twsb" + hostIface.substring(4);
        String hostAddress = address.substring(0, address.lastIndexOf('.')) + ".1";
        run("ip", "netns", "add", namespace);
        run("ip", "link", "add", hostIface, "type", "veth", "peer", "name", nsIface);
        run("ip", "link", "set", nsIface, "netns", namespace);
        run("ip", "addr", "add", hostAddress + "/30", "dev", hostIface);
        run("ip", "link", "set", hostIface, "up");
        run("ip", "netns", "exec", namespace, "ip", "addr", "add", address + "/30", "dev", nsIface);
        run("ip", "netns", "exec", namespace, "ip", "link", "set", nsIface, "up");
        run("ip", "netns", "exec", namespace, "ip", "link", "set", "lo", "up");
        Path hostKey = dir.resolve("host_key");
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tracewire-test-host", "-f", hostKey.toString());
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tracewire-test-user", "-f", userKey.toString());
        Files.copy(dir.resolve("user_key.pub"), dir.resolve("authorized_keys"));
        Files.writeString(knownHosts, address + " " + Files.readString(dir.resolve("host_key.pub")));
        if (madeRunDir) {
            Files.createDirectories(Path.of("/run/sshd"), PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwxr-xr-x")));
        }
        Path config = dir.resolve("sshd_config");
        Files.writeString(config, String.join("\n",
                "ListenAddress " + address + ":22",
                "HostKey " + hostKey,
                "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
                "PermitRootLogin prohibit-password",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "UsePAM no",
                "StrictModes no",
                "PidFile " + dir.resolve("sshd.pid"),
                "LogLevel INFO",
                "") );
        sshd = new ProcessBuilder("ip", "netns", "exec", namespace, "/usr/sbin/sshd", "-D", "-e", "-f", config.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("sshd.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Socket so = new Socket()) {
                so.connect(new InetSocketAddress(address, 22), 500);
                return;
            } catch (IOException e) {
                if (!sshd.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("sshd did not start: " + log(), e);
                }
                Thread.sleep(50);
            }
        }
    }

    /** The {@code ssh -o} options that reach this server with the test's keys and nothing of the user's. */
    List<String> sshOptions() {
        return List.of("IdentityFile=" + userKey, "IdentitiesOnly=yes", "UserKnownHostsFile=" + knownHosts,
                "GlobalKnownHostsFile=/dev/null", "StrictHostKeyChecking=yes");
    }

    /** The same as {@code --ssh-option} arguments. */
    List<String> sshArgs() {
        List<String> a = new ArrayList<>();
        for (String o : sshOptions()) {
            a.add("--ssh-option");
            a.add(o);
        }
        return a;
    }

    /** Pids of the processes in the namespace. */
    List<Long> pids() throws IOException, InterruptedException {
        List<Long> l = new ArrayList<>();
        for (String line : run("ip", "netns", "pids", namespace).split("\n")) {
            if (!line.isBlank()) {
                l.add(Long.parseLong(line.strip()));
            }
        }
        return l;
    }

    /** sshd's log so far. */
    String log() {
        try {
            return Files.readString(dir.resolve("sshd.log"));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    @Override
    public void close() throws Exception {
        if (sshd != null) {
            sshd.destroy();
            if (!sshd.waitFor(5, TimeUnit.SECONDS)) {
                sshd.destroyForcibly();
                sshd.waitFor(5, TimeUnit.SECONDS);
            }
        }
        try {
            for (long pid : pids()) { // sessions that outlived sshd
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
        } catch (IOException | RuntimeException e) {
            // no namespace
        }
        quiet("ip", "link", "del", hostIface);
        quiet("ip", "netns", "del", namespace);
        if (madeRunDir) {
            Files.deleteIfExists(Path.of("/run/sshd"));
        }
    }

    static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out.strip());
        }
        return out;
    }

    private static void quiet(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            p.waitFor(30, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            // best effort
        }
    }
}
