package org.tracewire.capture;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A small child process that stops a capture's tracing the moment the capture's process dies,
 * however it dies ({@code kill -9} included), instead of at the next capture's stale-instance
 * cleanup: until then the orphaned instance kept tracing and overrunning (1.4 M overruns were seen).
 *
 * <p>The child is {@code /bin/sh} running {@link #SCRIPT} in a session of its own (so a terminal's
 * Ctrl-C does not reach it; it also ignores SIGINT, SIGTERM, SIGHUP and SIGPIPE). Its standard
 * input is a pipe whose only write end this JVM holds (the JDK closes every other descriptor in its
 * children). It reads lines from it:
 * <ul>
 *   <li>{@code spool DIR}: the capture's spool ({@link Spool}); on the capture's death the watchdog
 *       first drains what the kernel still holds into {@code DIR/cpuN.tail} and saves each CPU's
 *       {@code stats} as {@code DIR/cpuN.stats}, for {@code tracewire recover};</li>
 *   <li>{@code done}: the capture cleaned up itself; the watchdog exits without touching anything
 *       (so it never acts on an instance of the same name created later by the same process);</li>
 *   <li>the end of input without {@code done}: the JVM is gone (only the kernel closes that pipe
 *       then): it writes 0 to the instance's {@code tracing_on}, saves the spool's tail and stats
 *       when there is a spool, disables the instance's events ({@code events/enable}) and removes
 *       the instance (retried for up to 5 s while the dying process still holds a file of it).</li>
 * </ul>
 * Then it removes the capture's uprobes ({@link UprobeGroup}: group {@code tracewire_PID} of the
 * tracefs {@code uprobe_events}). A live capture is never touched: the pipe cannot reach its end
 * while the JVM holds the write end.
 */
public final class Watchdog implements AutoCloseable {
    /**
     * The watchdog's shell script ({@code $1}: the instance directory, {@code $2}: the sub-buffer
     * size in bytes for draining).
     */
    static final String SCRIPT = """
            trap '' INT TERM HUP PIPE
            inst=$1; sub=$2; spool=
            while IFS= read -r line; do
              case $line in
                done) exit 0 ;;
                'spool '*) spool=${line#spool } ;;
              esac
            done
            [ -d "$inst" ] || exit 0
            echo 0 > "$inst/tracing_on"
            if [ -n "$spool" ] && [ -d "$spool" ]; then
              for c in "$inst"/per_cpu/cpu*; do
                n=${c##*/cpu}
                dd if="$c/trace_pipe_raw" of="$spool/cpu$n.tail" iflag=nonblock oflag=nofollow bs="$sub" \
                   2>/dev/null
                dd if="$c/stats" of="$spool/cpu$n.stats" oflag=nofollow 2>/dev/null
              done
              : > "$spool/watchdog.done"
            fi
            echo 0 > "$inst/events/enable"
            # the dying process may still hold a trace_pipe_raw for a moment (its descriptors close one
            # by one, this pipe among them): retry for up to 5 s
            i=0
            while ! rmdir "$inst" 2>/dev/null && [ -d "$inst" ] && [ $i -lt 50 ]; do
              sleep 0.1; i=$((i+1))
            done
            # the capture's uprobes (group tracewire_PID, UprobeGroup), now that no instance enables them
            top=${inst%/instances/*}
            pid=${inst##*/tracewire-}
            case $pid in ''|*[!0-9]*) exit 0 ;; esac
            if [ "$top" != "$inst" ] && [ -f "$top/uprobe_events" ]; then
              grep -E "^[pr][^:]*:tracewire_$pid/" "$top/uprobe_events" | while IFS= read -r l; do
                ev=${l#*:}; ev=${ev%% *}
                echo "-:$ev" >> "$top/uprobe_events"
              done
            fi
            """;

    private final Process process;
    private final OutputStream control;
    private boolean closed;

    private Watchdog(Process process) {
        this.process = process;
        this.control = process.getOutputStream();
    }

    /**
     * Starts the watchdog of an instance.
     *
     * @param instanceDir  the instance's directory ({@code .../instances/tracewire-PID})
     * @param subBufferSize the instance's sub-buffer size, bytes (what one read of {@code trace_pipe_raw} returns)
     * @return the running watchdog
     * @throws IOException when {@code /bin/sh} cannot be started
     */
    public static Watchdog start(Path instanceDir, int subBufferSize) throws IOException {
        List<String> sh = List.of("/bin/sh", "-c", SCRIPT, "tracewire-watchdog", instanceDir.toString(),
                Integer.toString(Math.max(4096, subBufferSize)));
        List<String> cmd = new ArrayList<>(List.of("setsid"));
        cmd.addAll(sh);
        try {
            return new Watchdog(builder(cmd).start());
        } catch (IOException noSetsid) {
            // no setsid (util-linux) here: the script ignores SIGINT itself, only a SIGKILL of the
            // terminal's process group would take it along
            return new Watchdog(builder(sh).start());
        }
    }

    private static ProcessBuilder builder(List<String> cmd) {
        return new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
    }

    /** The watchdog's process id. */
    public long pid() {
        return process.pid();
    }

    /**
     * Tells the watchdog where the capture's spool is, so that on the capture's death it saves the
     * kernel's unread pages and counters there.
     *
     * @param spool the spool directory (no newline in its path)
     * @throws IOException when the watchdog is gone
     * @throws IllegalArgumentException for a path with a newline
     */
    public synchronized void spool(Path spool) throws IOException {
        String p = spool.toAbsolutePath().toString();
        if (p.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("spool path with a newline: " + p.replace("\n", "\\n"));
        }
        control.write(("spool " + p + "\n").getBytes(StandardCharsets.UTF_8));
        control.flush();
    }

    /**
     * Closes the pipe without standing the watchdog down, as this process's death does (for tests):
     * the watchdog then acts.
     */
    synchronized void orphan() throws IOException {
        closed = true;
        control.close();
    }

    /** Waits for the watchdog to end, at most {@code seconds}; true when it ended. */
    boolean await(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS);
    }

    /** True while the watchdog runs. */
    public boolean alive() {
        return process.isAlive();
    }

    /**
     * Stands the watchdog down (the capture cleaned up itself): it exits without acting. Waits up
     * to a second for it. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            control.write("done\n".getBytes(StandardCharsets.UTF_8));
            control.close();
            process.waitFor(1, TimeUnit.SECONDS);
        } catch (IOException e) {
            // the watchdog is gone already
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
