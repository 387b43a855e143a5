package org.tracewire.cli.remote;

import java.util.List;

/**
 * The command a remote capture runs on the other host, built for the remote user's login shell
 * (which {@code ssh} hands one string): every word single-quoted ({@link #quote}), so an event,
 * a filter or a path holding quotes, {@code $( )}, back quotes, {@code ;}, {@code |} or new lines
 * reaches the remote tracewire as one unchanged argument. The shell must be POSIX-like (sh, dash,
 * bash, zsh, ksh).
 *
 * <p>The command runs a short {@code sh} script that checks the prerequisites first and reports a
 * missing one on stderr as a line {@code tracewire-remote: not-found WHERE} (exit
 * {@value #EXIT_NOT_FOUND}) or {@code tracewire-remote: not-root USER} (exit
 * {@value #EXIT_NOT_ROOT}), then {@code exec}s {@code tracewire capture ARGS}: the remote
 * tracewire is the SSH session's own process, so its standard input and output are the
 * connection's pipes.
 */
public final class RemoteCommand {
    /** The first word of the prerequisite script's report lines on stderr. */
    public static final String MARKER = "tracewire-remote:";
    /** Exit status when no tracewire was found. */
    public static final int EXIT_NOT_FOUND = 125;
    /** Exit status when the remote user is not root. */
    public static final int EXIT_NOT_ROOT = 124;

    /** $1 = the remote path ("" for PATH), the rest = tracewire's arguments. */
    static final String SCRIPT = "d=$1; shift; "
            + "if [ -n \"$d\" ]; then t=\"${d%/}/tracewire\"; w=\"$d\"; else t=$(command -v tracewire 2>/dev/null) || t=; w=PATH; fi; "
            + "if [ -z \"$t\" ] || [ ! -f \"$t\" ] || [ ! -x \"$t\" ]; then echo \"" + MARKER + " not-found $w\" >&2; exit "
            + EXIT_NOT_FOUND + "; fi; "
            + "if [ \"$(id -u)\" != 0 ]; then echo \"" + MARKER + " not-root $(id -un)\" >&2; exit " + EXIT_NOT_ROOT + "; fi; "
            + "exec \"$t\" \"$@\"";

    private RemoteCommand() {
    }

    /**
     * Quotes a word for a POSIX shell: {@code 'it'\''s'}.
     *
     * @throws IllegalArgumentException for a NUL character (no shell word can hold one)
     */
    public static String quote(String word) {
        if (word.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("argument contains a NUL character: " + word.replace('\0', '?'));
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }

    /**
     * The remote command: {@code sh -c SCRIPT tracewire-remote DIR ARGS...}, every word quoted.
     *
     * @param remotePath the folder holding the remote {@code tracewire} launcher, or null to find
     *                   it on the remote PATH
     * @param args       tracewire's arguments, e.g. {@code capture -e sched:sched_switch -w -}
     * @return the command string for ssh
     */
    public static String build(String remotePath, List<String> args) {
        StringBuilder sb = new StringBuilder("exec sh -c ").append(quote(SCRIPT)).append(" tracewire-remote ")
                .append(quote(remotePath == null ? "" : remotePath));
        for (String a : args) {
            sb.append(' ').append(quote(a));
        }
        return sb.toString();
    }
}
