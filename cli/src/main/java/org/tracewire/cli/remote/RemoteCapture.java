package org.tracewire.cli.remote;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.tracewire.text.SafeText;
import org.tracewire.capture.ContextRelay;
import org.tracewire.capture.FrameOutput;
import org.tracewire.capture.FrameOutputs;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.MacAddress;
import org.tracewire.wire.WireHeader;

/**
 * A capture on another host over SSH (Wireshark's sshdump / Stratoshark's sshdig design): runs
 * {@code tracewire capture ARGS --no-iface -w - --stop-on-stdin-eof} there through the system's
 * {@code ssh} ({@link SshTarget}, {@link RemoteCommand}), reads the pcapng it writes to its
 * standard output, checks it (one section, one interface of link type 162, tracewire version-2
 * frames) and writes every frame, context frames included, to the local outputs through a
 * {@link ContextRelay} (a local TAP or {@code --send-on} interface also gets the remote's context
 * again every 2 s, for a capture tool started late). The outputs are opened once the remote
 * section and interface are known, so a local pcapng keeps the remote host's identity (its {@code shb_hardware},
 * {@code shb_os}, the interface's "ftrace events of HOST", {@code if_os} and the clock mapping
 * in its comment). The remote's progress and summary lines (its stderr) are shown prefixed with
 * the host.
 *
 * <p>Stopping: the remote capture stops at {@code --duration}/{@code --count}, or when its
 * standard input ends. Closing ssh's standard input ({@link #stop()}, Ctrl-C or SIGTERM here)
 * therefore stops it cleanly: it drains, finishes its pcapng (the statistics block with the
 * drops after the last frame) and exits, and the local outputs are closed. When the connection
 * breaks (ssh killed, network gone), sshd closes the remote command's pipes: it sees the end of
 * its standard input (or a failed write) and cleans up the same way; the local outputs keep
 * what arrived and are closed properly, and the run fails with "connection ... lost".
 */
public final class RemoteCapture {
    /** Seconds after the expected end (duration) before the remote is asked to stop, then before ssh is killed. */
    static final long GRACE_S = 20;

    /**
     * What to run.
     *
     * @param target      the host
     * @param remotePath  the folder of the remote {@code tracewire} launcher, or null for its PATH
     * @param captureArgs the remote capture's event and engine options ({@code -e}, {@code -f},
     *                    {@code --duration}, {@code --buffer-kb}, ...); output options are added
     * @param durationS   the capture's duration (0: until stopped), for the local watchdog
     * @param ssh         the ssh executable ({@code ssh})
     */
    public record Options(SshTarget target, String remotePath, List<String> captureArgs, double durationS, String ssh) {
        public Options {
            captureArgs = List.copyOf(captureArgs);
        }
    }

    /** Opens the local outputs once the remote stream's section and interface are known. */
    @FunctionalInterface
    public interface OutputFactory {
        /**
         * @param section the remote section's options, with a comment saying it came over ssh
         * @param iface   the remote interface (host, OS, hardware, clock mapping)
         * @return the outputs, at least one
         * @throws IOException when an output cannot be opened
         */
        List<FrameOutput> open(SectionInfo section, InterfaceInfo iface) throws IOException;
    }

    /**
     * What arrived.
     *
     * @param frames  frames received and written
     * @param lost    events the remote lost (its drop counts, including those after the last frame)
     * @param section the remote section, or null when no stream arrived
     * @param iface   the remote interface, or null
     */
    public record Result(long frames, long lost, SectionInfo section, InterfaceInfo iface) {
    }

    /** A remote capture that could not run or broke off; the message says why, for the user. */
    public static final class RemoteException extends Exception {
        private final Result partial;

        RemoteException(String message, Result partial) {
            super(message);
            this.partial = partial;
        }

        /** What arrived before the failure (the outputs holding it were closed properly). */
        public Result partial() {
            return partial;
        }
    }

    private final Options options;
    private final PrintWriter err;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private volatile Process process;
    private volatile OutputStream stdin;

    /**
     * @param options what to run
     * @param err     where the remote's stderr lines go, prefixed with the host
     */
    public RemoteCapture(Options options, PrintWriter err) {
        this.options = options;
        this.err = err;
    }

    /** The remote command's arguments: the capture arguments plus the output options. */
    public static List<String> remoteArgs(List<String> captureArgs) {
        List<String> a = new ArrayList<>();
        a.add("capture");
        a.addAll(captureArgs);
        a.addAll(List.of("--no-iface", "-w", "-", "--stop-on-stdin-eof"));
        return a;
    }

    /** The full ssh command line this capture runs. */
    public List<String> command() {
        List<String> c = new ArrayList<>();
        if (Files.isExecutable(SETSID)) {
            c.add(SETSID.toString()); // its own session: a Ctrl-C in the terminal reaches us, not ssh (we stop the remote cleanly)
        }
        c.addAll(options.target().command(options.ssh(), RemoteCommand.build(options.remotePath(),
                remoteArgs(options.captureArgs()))));
        return c;
    }

    private static final Path SETSID = Path.of("/usr/bin/setsid");

    /**
     * Asks the remote capture to stop: closes ssh's standard input, so the remote command reads
     * its end. Returns at once; {@link #run} returns when the remote has finished.
     */
    public void stop() {
        stopping.set(true);
        OutputStream in = stdin;
        if (in != null) {
            try {
                in.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }

    /**
     * Runs the remote capture to its end, with a shutdown hook that stops it cleanly on Ctrl-C or
     * SIGTERM.
     *
     * @param outputs opens the local outputs
     * @return what arrived
     * @throws RemoteException when ssh cannot connect, the remote lacks a prerequisite, the remote
     *                         capture fails, the stream is malformed, or the connection is lost
     * @throws IOException     when a local output fails
     */
    public Result run(OutputFactory outputs) throws RemoteException, IOException, InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stop();
            try {
                if (!done.await(GRACE_S, TimeUnit.SECONDS) && process != null) {
                    process.destroyForcibly();
                    done.await(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }, "tracewire-remote-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return runInner(outputs);
        } finally {
            done.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // shutting down: the hook is waiting for us
            }
        }
    }

    private Result runInner(OutputFactory factory) throws RemoteException, IOException, InterruptedException {
        String host = options.target().host();
        Process p;
        try {
            p = new ProcessBuilder(command()).start();
        } catch (IOException e) {
            throw new RemoteException("cannot run " + options.ssh() + " (install OpenSSH's client: "
                    + "sudo apt-get install -y openssh-client): " + e.getMessage(), new Result(0, 0, null, null));
        }
        process = p;
        stdin = p.getOutputStream(); // kept open: its end tells the remote capture to stop
        if (stopping.get()) {
            stop();
        }
        Deque<String> lastLines = new ArrayDeque<>();
        List<String> markers = new ArrayList<>();
        Thread pump = new Thread(() -> pumpStderr(p, host, lastLines, markers), "tracewire-remote-stderr");
        pump.setDaemon(true);
        pump.start();
        Thread watchdog = startWatchdog(p);
        Received in = new Received();
        try (PcapngPacketReader r = new PcapngPacketReader(p.getInputStream())) {
            in.receive(r, factory);
        } catch (IOException e) {
            in.streamError = e.getMessage();
        } finally {
            if (in.streamError != null || in.outputError != null) {
                stop();
                if (!p.waitFor(GRACE_S, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
            in.finish();
        }
        if (!p.waitFor(GRACE_S, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
        }
        pump.join(2000);
        if (watchdog != null) {
            watchdog.interrupt();
        }
        Result result = new Result(in.frames, in.lost, in.section, in.iface);
        if (in.outputError != null) {
            throw in.outputError;
        }
        RemoteException failed = failure(p.exitValue(), in, markers, lastLines, result);
        if (failed != null) {
            throw failed;
        }
        return result;
    }

    /**
     * With a duration: stops the remote capture {@link #GRACE_S} s after it should have ended, and
     * kills ssh {@link #GRACE_S} s later. Null without one.
     */
    private Thread startWatchdog(Process p) {
        if (options.durationS() <= 0) {
            return null;
        }
        long limitMs = (long) (options.durationS() * 1000) + GRACE_S * 1000;
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(limitMs);
                stop();
                Thread.sleep(GRACE_S * 1000);
                p.destroyForcibly();
            } catch (InterruptedException ignored) {
                // ended in time
            }
        }, "tracewire-remote-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        return watchdog;
    }

    /**
     * The remote stream as it is received: the outputs opened once its section and interface came
     * (the section's comment saying where from), each frame relayed with its drop count
     * ({@link ContextRelay}), the statistics block's drops after the last frame reported, and why
     * it ended early (a malformed stream, an output that failed).
     */
    private final class Received {
        List<FrameOutput> outs;
        ContextRelay relay;
        long frames;
        long lost;
        long epbDrops;
        SectionInfo section;
        InterfaceInfo iface;
        String streamError;
        IOException outputError;

        /** Reads the stream to its end, or to the first problem (kept in {@link #streamError} or {@link #outputError}). */
        void receive(PcapngPacketReader r, OutputFactory factory) throws IOException {
            while (true) {
                PcapngPacketReader.Packet packet = r.next();
                if (outs == null && !r.interfaces().isEmpty() && !open(r, factory)) {
                    return;
                }
                if (packet == null) {
                    long stats = r.statisticsDrops(0);
                    if (outs != null && stats > epbDrops) {
                        for (FrameOutput o : outs) {
                            o.dropsAfterLast(0, stats - epbDrops);
                        }
                        lost += stats - epbDrops;
                    }
                    return;
                }
                if (outs == null || r.sections() > 1 || packet.interfaceId() != 0) {
                    streamError = "the stream has more than one section or interface";
                    return;
                }
                byte[] d = packet.data();
                if (d.length < WireHeader.SIZE || (d[0] & 0xff) != WireHeader.VERSION
                        || d.length > FrameEncoder.MAX_FRAME) {
                    streamError = "frame " + (frames + 1) + " is not a tracewire version-2 frame";
                    return;
                }
                if (!relay(r, packet, d)) {
                    return;
                }
            }
        }

        /** The stream's section and interface came: checked, then the outputs opened; false on a problem. */
        private boolean open(PcapngPacketReader r, OutputFactory factory) {
            section = r.section();
            iface = r.interfaces().get(0);
            streamError = checkHeader(r);
            if (streamError != null) {
                return false;
            }
            SectionInfo local = section.withComment(join(section.comment(), "received over ssh from "
                    + options.target().destination() + " by " + SectionInfo.hostName()));
            try {
                outs = factory.open(local, iface);
                relay = new ContextRelay(outs);
                return true;
            } catch (IOException e) {
                outputError = e;
                return false;
            }
        }

        /** One frame to the outputs (flushed when the stream pauses, for live readers); false when an output failed. */
        private boolean relay(PcapngPacketReader r, PcapngPacketReader.Packet packet, byte[] d) {
            try {
                relay.relay(d, packet.timeNs(), packet.dropCount());
                if (!r.ready()) { // the stream paused: let live readers (Wireshark) see what we have
                    for (FrameOutput o : outs) {
                        o.flush();
                    }
                }
            } catch (IOException e) {
                outputError = e;
                return false;
            }
            frames++;
            lost += packet.dropCount();
            epbDrops += packet.dropCount();
            return true;
        }

        /** Finishes the relay and closes the outputs; the first failure becomes {@link #outputError}. */
        void finish() {
            if (relay != null && outputError == null) {
                try {
                    relay.finish(); // fragments of a message the stream never finished, as they came
                } catch (IOException e) {
                    outputError = e;
                }
            }
            if (outs != null) {
                IOException first = null;
                for (FrameOutput o : outs) {
                    try {
                        o.close();
                    } catch (IOException e) {
                        first = first == null ? e : first;
                    }
                }
                if (outputError == null && first != null) {
                    outputError = first;
                }
            }
        }
    }

    /**
     * Why the capture failed, from ssh's exit code, the remote's markers and stderr, and the
     * stream; null when it succeeded.
     */
    private RemoteException failure(int exit, Received in, List<String> markers, Deque<String> lastLines, Result result) {
        String host = options.target().host();
        String dest = options.target().destination();
        for (String m : markers) {
            if (m.startsWith("not-found ")) {
                String where = m.substring("not-found ".length());
                return new RemoteException("PATH".equals(where) && options.remotePath() == null
                        ? "tracewire not found on " + host + " (not on the PATH of " + dest
                        + "): install it there or pass --remote-path DIR"
                        : "tracewire not found on " + host + " at " + where + ": install it there or pass --remote-path", result);
            }
            if (m.startsWith("not-root ")) {
                return new RemoteException("capturing on " + host + " needs root, but " + dest + " logs in as "
                        + m.substring("not-root ".length()) + ": connect as root@" + host, result);
            }
        }
        if (exit == 0 && in.streamError == null && in.section != null) {
            return null;
        }
        String tail = String.join(" / ", lastLines);
        if (in.section == null && exit == 255) {
            return new RemoteException("ssh to " + dest + " failed" + (tail.isEmpty() ? "" : ": " + tail)
                    + " (key-based login needed: ssh-copy-id " + dest + ", or --ssh-option IdentityFile=KEY)", result);
        }
        if (in.section != null && (exit == 255 || exit >= 128) && !stopping.get()) {
            return new RemoteException("connection to " + dest + " lost after " + in.frames + " frames (ssh exit " + exit
                    + "); the outputs hold the frames received", result);
        }
        if (in.streamError != null && exit == 0) {
            return new RemoteException(host + " sent a malformed pcapng stream: " + in.streamError, result);
        }
        if (exit != 0) {
            return new RemoteException("remote capture on " + host + " failed (exit " + exit + ")"
                    + (tail.isEmpty() ? "" : ": " + tail), result);
        }
        return new RemoteException(host + " sent no pcapng stream" + (in.streamError == null ? "" : ": " + in.streamError),
                result);
    }

    /** Null when the stream's header is what a remote tracewire sends, else what is wrong. */
    private static String checkHeader(PcapngPacketReader r) {
        InterfaceInfo i = r.interfaces().get(0);
        if (i.linkType() != FrameEncoder.LINKTYPE) {
            return "interface link type " + i.linkType() + " is not tracewire's (" + FrameEncoder.LINKTYPE
                    + "): is the remote tracewire of another version?";
        }
        if (!r.section().userApplication().startsWith("tracewire")) {
            return "the stream was not written by tracewire (shb_userappl '" + r.section().userApplication() + "')";
        }
        return null;
    }

    /**
     * The Ethernet source for a remote capture's frames on local interfaces: the remote host's, as
     * its interface comment names it ({@link FrameOutputs#identity}), else derived from its host name.
     */
    public static MacAddress sourceMac(InterfaceInfo remote) {
        MacAddress m = FrameOutputs.sourceOf(remote);
        if (m != null) {
            return m;
        }
        String d = remote == null ? "" : remote.description();
        return MacAddress.forHost(d.startsWith("ftrace events of ") ? d.substring("ftrace events of ".length()) : d);
    }

    private void pumpStderr(Process p, String host, Deque<String> lastLines, List<String> markers) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith(RemoteCommand.MARKER)) {
                    synchronized (markers) {
                        markers.add(line.substring(RemoteCommand.MARKER.length()).strip());
                    }
                    continue;
                }
                synchronized (lastLines) {
                    lastLines.addLast(line.strip());
                    if (lastLines.size() > 3) {
                        lastLines.removeFirst();
                    }
                }
                synchronized (err) {
                    err.println(host + ": " + SafeText.escape(line)); // the remote host's text
                    err.flush();
                }
            }
        } catch (IOException ignored) {
            // the process ended
        }
    }

    private static String join(String a, String b) {
        return a == null || a.isEmpty() ? b : a + "; " + b;
    }
}
