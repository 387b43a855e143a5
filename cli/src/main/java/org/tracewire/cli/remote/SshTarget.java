package org.tracewire.cli.remote;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Another host reached through the system's OpenSSH client ({@code ssh}), the way Wireshark's
 * sshdump and Stratoshark's sshdig reach theirs: key-based authentication only
 * ({@code BatchMode=yes}: ssh never asks for a password or a host-key confirmation; keys come
 * from the user's ssh setup, an agent, {@link #identity()} or {@code ~/.ssh/config}), and no
 * terminal ({@code -T}; never {@code -tt}, so the remote command's standard input and output are
 * plain pipes whose end it notices when the connection goes).
 *
 * @param user     the remote user, or null for ssh's default (the local user, or {@code ~/.ssh/config})
 * @param host     the host name or address
 * @param port     the port, or 0 for ssh's default
 * @param identity a private key file ({@code ssh -i}), or null
 * @param options  extra {@code ssh -o} options, each {@code Name=value}
 */
public record SshTarget(String user, String host, int port, Path identity, List<String> options) {
    public SshTarget {
        Objects.requireNonNull(host, "host");
        checkWord("host", host);
        if (user != null) {
            checkWord("user", user);
            if (user.contains("@")) {
                throw new IllegalArgumentException("user '" + user + "' contains '@'");
            }
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 1..65535");
        }
        options = List.copyOf(options);
        for (String o : options) {
            if (o.isBlank() || o.startsWith("-") || o.chars().anyMatch(c -> c < 0x20)) {
                throw new IllegalArgumentException("ssh option '" + o + "' is not Name=value (as ssh -o takes it)");
            }
        }
    }

    /**
     * Parses {@code [user@]host}.
     *
     * @throws IllegalArgumentException for an empty host or user, a host or user starting with
     *                                  {@code -} (it would be read as an ssh option), or one
     *                                  holding white space or control characters
     */
    public static SshTarget parse(String destination, int port, Path identity, List<String> options) {
        Objects.requireNonNull(destination, "destination");
        int at = destination.lastIndexOf('@');
        String user = at < 0 ? null : destination.substring(0, at);
        String host = destination.substring(at + 1);
        return new SshTarget(user, host, port, identity, options);
    }

    private static void checkWord(String what, String s) {
        if (s.isEmpty()) {
            throw new IllegalArgumentException(what + " is empty");
        }
        if (s.startsWith("-")) {
            throw new IllegalArgumentException(what + " '" + s + "' starts with '-' (ssh would read it as an option)");
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= ' ' || c == 0x7f) {
                throw new IllegalArgumentException(what + " '" + s + "' contains white space or a control character");
            }
        }
    }

    /** {@code user@host}, or {@code host} without a user. */
    public String destination() {
        return user == null ? host : user + "@" + host;
    }

    /**
     * The ssh command line running {@code remoteCommand} (one string, which the remote user's
     * login shell parses: quote its words with {@link RemoteCommand#quote}).
     *
     * @param ssh           the ssh executable (normally {@code ssh})
     * @param remoteCommand the command for the remote shell
     * @return the argument vector
     */
    public List<String> command(String ssh, String remoteCommand) {
        List<String> c = new ArrayList<>(List.of(ssh, "-T", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=5",
                "-o", "ServerAliveCountMax=3", "-o", "ConnectTimeout=15", "-o", "LogLevel=ERROR"));
        if (port != 0) {
            c.add("-p");
            c.add(Integer.toString(port));
        }
        if (identity != null) {
            c.add("-i");
            c.add(identity.toString());
            c.add("-o");
            c.add("IdentitiesOnly=yes");
        }
        for (String o : options) {
            c.add("-o");
            c.add(o);
        }
        c.add("--");
        c.add(destination());
        c.add(remoteCommand);
        return c;
    }
}
