package org.tracewire.backend;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import org.tracewire.capture.FrameOutputs;
import org.tracewire.posix.InvokingUser;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsLocator;
import org.tracewire.wire.Ethernet;

/**
 * The privileged backend process ({@code ./tracewire backend}, started by the desktop app directly
 * as root or through pkexec / {@code sudo -A}): serves the JSON-lines protocol of
 * {@code docs/backend-protocol.md} on stdin/stdout. It runs from this module's jar and its
 * dependencies only (core, JNA, Jackson, pcap4j): no GUI library is on its class path.
 *
 * <p>Serves the live tracefs when readable (root), else the snapshot (metadata only). Acts for the
 * invoking user ({@link InvokingUser}: {@code PKEXEC_UID} / {@code SUDO_UID}): the pcapng file is
 * created with their rights and owned by them. A user other than root runs at most
 * {@link UserQuota#MAX_BACKENDS} backends at once, whose captures hold at most
 * {@link UserQuota#MAX_BUFFER_BYTES} of ring buffers ({@link UserQuota}). Exits 0 at end of input or
 * {@code quit}; 1 when stdin or stdout fails, the invoking user's variables are malformed, or the
 * user already runs as many backends as allowed (the reason on stderr).
 */
public final class BackendMain {
    /** What {@code backend --help} prints. */
    static final String USAGE = """
            Usage: tracewire backend
            The privileged capture process the desktop app and the extcap talk to: JSON lines on
            standard input (commands) and standard output (replies, pushed stats), until end of
            input or {"type":"quit"} (docs/backend-protocol.md). It takes no arguments. Run as root
            (through pkexec or sudo it acts for the invoking user). Example:
              printf '%s\\n' '{"type":"hello"}' '{"type":"quit"}' | sudo ./tracewire backend""";

    private BackendMain() {
    }

    /** Runs the server on stdin/stdout and exits with its code. */
    public static void main(String[] args) {
        if (args.length > 0) {
            // it takes no arguments: --help (or anything else) must not start a server waiting on stdin
            boolean help = args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"));
            (help ? System.out : System.err).println(USAGE);
            System.exit(help ? 0 : 2);
        }
        System.exit(serve(System.in, System.out));
    }

    /**
     * Serves one client until end of input or {@code quit}.
     *
     * @param in  the commands (JSON lines, UTF-8)
     * @param out the replies and pushed messages (JSON lines, UTF-8)
     * @return the exit code: 0 after a normal end, 1 when I/O failed (reason on stderr)
     */
    public static int serve(InputStream in, OutputStream out) {
        Tracefs tracefs = TracefsLocator.resolve(null, note -> System.err.println("backend: " + note));
        InvokingUser user;
        try {
            user = InvokingUser.current();
        } catch (RuntimeException e) {
            System.err.println("backend: " + e.getMessage());
            return 1;
        }
        System.err.println("backend: acting for uid " + user.uid() + " (" + user.source() + ")");
        UserQuota quota = null;
        if (!user.isRoot()) {
            try {
                quota = UserQuota.acquire(UserQuota.DIR, user.uid(), UserQuota.MAX_BACKENDS, UserQuota.MAX_BUFFER_BYTES);
            } catch (IOException e) {
                System.err.println("backend: " + e.getMessage());
                return 1;
            }
        }
        BackendServer server = new BackendServer(tracefs, out, (iface, pcapng, t, session) ->
                FrameOutputs.open(session, iface, null, pcapng == null ? null : Path.of(pcapng),
                        Ethernet.DEFAULT_MAX_FRAME, (f, extra) -> user.openForWriting(f, "pcapng", extra)),
                user, BackendLimits.DEFAULT).withQuota(quota);
        try {
            server.serve(in);
            return 0;
        } catch (IOException e) {
            System.err.println("backend: " + e.getMessage());
            return 1;
        }
    }
}
