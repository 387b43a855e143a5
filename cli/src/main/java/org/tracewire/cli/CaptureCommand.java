package org.tracewire.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import org.tracewire.capture.CaptureEngine;
import org.tracewire.capture.CaptureRun;
import org.tracewire.capture.EventSelection;
import org.tracewire.capture.FilterRejectedException;
import org.tracewire.capture.FrameOutput;
import org.tracewire.capture.FrameOutputs;
import org.tracewire.capture.InterfaceOutput;
import org.tracewire.capture.PcapngOutput;
import org.tracewire.capture.TapOutput;
import org.tracewire.cli.remote.RemoteCapture;
import org.tracewire.cli.remote.SshTarget;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.capture.TapDevice;
import org.tracewire.protocol.Protocol;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.Ethernet;
import org.tracewire.wire.MacAddress;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tracewire capture}: records trace events in an instance of our own and emits each as a
 * tracewire frame ({@code docs/wire-format.md}: the record as the ring buffer holds it, with the
 * context frames that describe it) on a TAP interface (default {@code tw0}, in Ethernet), an
 * existing interface and/or a pcapng file (link type 162; {@code -w -}: standard output, live, the
 * summary on stderr). A {@code -f} applies to the {@code -e} before it, as in trace-cmd. Needs root.
 *
 * <p>{@code --remote [USER@]HOST} runs the capture on another host over SSH
 * ({@link RemoteCapture}) and writes its frames to the local outputs ({@code -w}, {@code -i},
 * {@code --send-on}; no TAP unless {@code -i} is given); root is needed there, not here.
 */
@Command(name = "capture", mixinStandardHelpOptions = true, description = "Capture trace events as tracewire frames (TAP interface, existing interface, pcapng).")
public final class CaptureCommand implements Callable<Integer> {
    /** One {@code -e SYSTEM:EVENT [-f FILTER]} pair. */
    static final class EventArg {
        @Option(names = "-e", required = true, paramLabel = "SYSTEM:EVENT", description = "An event to capture.")
        String event;
        @Option(names = "-f", paramLabel = "FILTER", description = "Kernel filter for the -e before it.")
        String filter;
    }

    @ArgGroup(exclusive = false, multiplicity = "1..*")
    List<EventArg> events = new ArrayList<>();

    @Option(names = "--duration", paramLabel = "SECONDS", description = "Stop after this many seconds.")
    double duration;

    @Option(names = "--count", paramLabel = "N", description = "Stop after N events.")
    long count;

    @Option(names = "-i", paramLabel = "IFACE", description = "TAP interface to create (default: " + Protocol.DEFAULT_IFACE + ").")
    String iface;

    @Option(names = "--no-iface", description = "Do not create a TAP interface.")
    boolean noIface;

    @Option(names = "--send-on", paramLabel = "IFACE", description = "Also send on this existing interface (libpcap).")
    String sendOn;

    @Option(names = "-w", paramLabel = "FILE.pcapng", description = "Write a pcapng file.")
    Path pcapng;

    @Mixin
    BufferOptions buffer = new BufferOptions();


    @Option(names = "--delay", paramLabel = "SECONDS",
            description = "Wait this long after creating the outputs before tracing (time to start a capture tool).")
    double delay;

    @Option(names = "--linger", paramLabel = "SECONDS", defaultValue = "1",
            description = "Keep the TAP interface this long after the last frame (default: 1).")
    double linger;

    @Option(names = "--max-frame", paramLabel = "BYTES", description = "Largest event frame on interfaces, incl. the "
            + "Ethernet header (default: 1514); longer events are cut and flagged. A pcapng file keeps every event whole.")
    int maxFrame = Ethernet.DEFAULT_MAX_FRAME;

    @Option(names = "--read-ahead", paramLabel = "MIB", description = "When every output is a file: MiB of sub-buffers "
            + "(all CPUs) kept in memory while tracing, so framing them waits until tracing stops and the workload keeps "
            + "the CPU (default: a quarter of the available memory, 256-2048 MiB; 0: frame while tracing).")
    Long readAheadMib;

    @Option(names = "--trace-self", description = "Also record tracewire's own threads (excluded by default through "
            + "the instance's set_event_notrace_pid; like trace-cmd's --no-filter). Beware feedback.")
    boolean traceSelf;

    @Option(names = "--remote", paramLabel = "[USER@]HOST",
            description = "Capture on this host over SSH (the system's ssh, key-based, BatchMode): it runs "
                    + "`tracewire capture ... -w -` there and writes the frames to the local outputs (-w, -i, --send-on).")
    String remote;

    @Option(names = "--remote-path", paramLabel = "DIR",
            description = "With --remote: the folder holding the remote tracewire launcher (default: its PATH).")
    String remotePath;

    @Option(names = "--ssh-option", paramLabel = "NAME=VALUE",
            description = "With --remote: an option for ssh -o (repeatable), e.g. Port=2222, IdentityFile=~/.ssh/k, "
                    + "UserKnownHostsFile=F.")
    List<String> sshOptions = new ArrayList<>();

    @Option(names = "--stop-on-stdin-eof", description = "Stop (drain, finish the outputs, clean up) when standard input "
            + "ends: what a remote capture runs with, so a lost SSH connection leaves nothing behind.")
    boolean stopOnStdinEof;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (pcapng != null && FrameOutputs.isStdout(pcapng)) {
            out = err; // standard output carries the pcapng: the summary goes to stderr
        }
        if (remote != null) {
            return remote(out, err);
        }
        if (remotePath != null || !sshOptions.isEmpty()) {
            throw new Main.UsageException("--remote-path and --ssh-option need --remote [USER@]HOST");
        }
        if (duration < 0 || count < 0 || buffer.bufferKb < 0 || delay < 0 || linger < 0) {
            throw new Main.UsageException("--duration, --count, --delay and --buffer-kb must not be negative");
        }
        checkMaxFrame();
        if (noIface && iface != null) {
            throw new Main.UsageException("-i and --no-iface contradict each other");
        }
        String tap = noIface ? null : iface != null ? iface : Protocol.DEFAULT_IFACE;
        if (tap != null) {
            try {
                TapDevice.checkName(tap);
            } catch (IllegalArgumentException e) {
                throw new Main.UsageException(e.getMessage());
            }
        }
        if (tap == null && sendOn == null && pcapng == null) {
            throw new Main.UsageException("no output: drop --no-iface, or give --send-on IFACE or -w FILE.pcapng");
        }
        List<EventSelection> selections = new ArrayList<>();
        for (EventArg e : events) {
            try {
                selections.add(EventSelection.parse(e.event, e.filter));
            } catch (IllegalArgumentException ex) {
                throw new Main.UsageException(ex.getMessage());
            }
        }
        Tracefs top = Tracefs.live();
        for (EventSelection s : selections) {
            try {
                new EventSelector(s.system(), s.event()).resolve(top);
            } catch (IllegalArgumentException ex) {
                throw new Main.UsageException(ex.getMessage());
            }
        }
        if (readAheadMib != null && (readAheadMib < 0 || readAheadMib > (Long.MAX_VALUE >> 20))) {
            throw new Main.UsageException("--read-ahead: MiB must be from 0 to " + (Long.MAX_VALUE >> 20) + ": "
                    + readAheadMib);
        }
        CaptureRun.Options o = new CaptureRun.Options(selections, duration, count, tap, sendOn, pcapng,
                buffer.bufferKb, buffer.clock, maxFrame, delay, linger, traceSelf,
                readAheadMib == null ? CaptureEngine.READ_AHEAD_DEFAULT : readAheadMib << 20);
        AtomicBoolean stdinEnded = new AtomicBoolean();
        if (stopOnStdinEof) {
            watchStdin(stdinEnded);
        }
        try {
            PrintWriter summaryOut = out;
            org.tracewire.capture.Capture.Summary s = CaptureRun.run(top, o, err, stdinEnded::get, sum -> {
                summaryOut.println(sum.describe());
                summaryOut.flush();
            });
            if (!s.outputFailures().isEmpty()) {
                // the summary above says what each output holds; a capture that could not write all it read failed
                for (var f : s.outputFailures()) {
                    err.println("capture: " + f.output() + " failed: " + f.reason());
                }
                err.flush();
                return Main.EXIT_FAILURE;
            }
            return 0;
        } catch (FilterRejectedException e) {
            err.println("capture: " + e.getMessage());
            return Main.EXIT_FAILURE;
        }
    }

    /** Smallest --max-frame: the Ethernet and tracewire headers and the 8 common bytes of a record. */
    static final int MIN_MAX_FRAME = Ethernet.HEADER + 16 + 8;

    private void checkMaxFrame() {
        if (maxFrame < MIN_MAX_FRAME || maxFrame > 65535) {
            throw new Main.UsageException("--max-frame must be " + MIN_MAX_FRAME + "..65535");
        }
    }

    /** Reads standard input to its end on a daemon thread, then sets {@code ended}. */
    private static void watchStdin(AtomicBoolean ended) {
        Thread t = new Thread(() -> {
            byte[] b = new byte[4096];
            try {
                while (System.in.read(b) >= 0) {
                    // discard: only the end matters
                }
            } catch (IOException ignored) {
                // a broken stdin is its end too
            }
            ended.set(true);
        }, "tracewire-stdin-eof");
        t.setDaemon(true);
        t.start();
    }

    /** {@code capture --remote}: the engine runs on the other host, the outputs here. */
    private int remote(PrintWriter out, PrintWriter err) throws Exception {
        if (duration < 0 || count < 0 || buffer.bufferKb < 0) {
            throw new Main.UsageException("--duration, --count and --buffer-kb must not be negative");
        }
        checkMaxFrame();
        if (delay > 0 || noIface || stopOnStdinEof) {
            throw new Main.UsageException("--delay, --no-iface and --stop-on-stdin-eof do not apply to --remote "
                    + "(there is no local TAP unless -i IFACE is given)");
        }
        if (iface == null && sendOn == null && pcapng == null) {
            throw new Main.UsageException("no local output: give -w FILE.pcapng (or -w -), -i IFACE or --send-on IFACE");
        }
        if (iface != null) {
            try {
                TapDevice.checkName(iface);
            } catch (IllegalArgumentException e) {
                throw new Main.UsageException(e.getMessage());
            }
        }
        SshTarget target;
        try {
            target = SshTarget.parse(remote, 0, null, sshOptions);
        } catch (IllegalArgumentException e) {
            throw new Main.UsageException("--remote: " + e.getMessage());
        }
        List<String> args = new ArrayList<>();
        for (EventArg e : events) {
            try {
                EventSelection.parse(e.event, e.filter);
            } catch (IllegalArgumentException ex) {
                throw new Main.UsageException(ex.getMessage());
            }
            args.add("-e");
            args.add(e.event);
            if (e.filter != null) {
                args.add("-f");
                args.add(e.filter);
            }
        }
        if (duration > 0) {
            args.addAll(List.of("--duration", Double.toString(duration)));
        }
        if (count > 0) {
            args.addAll(List.of("--count", Long.toString(count)));
        }
        args.addAll(List.of("--buffer-kb", Integer.toString(buffer.bufferKb), "--clock", buffer.clock,
                "--max-frame", Integer.toString(maxFrame)));
        if (traceSelf) {
            args.add("--trace-self");
        }
        RemoteCapture rc = new RemoteCapture(new RemoteCapture.Options(target, remotePath, args, duration, "ssh"), err);
        List<String> names = new ArrayList<>();
        try {
            RemoteCapture.Result r = rc.run((section, idb) -> {
                List<FrameOutput> outs = localOutputs(section, idb);
                outs.forEach(o -> names.add(o.describe()));
                return outs;
            });
            out.printf(Locale.ROOT, "remote: %d frames from %s (%s) into %s, lost %d%n", r.frames(), target.destination(),
                    r.iface().description(), String.join(", ", names), r.lost());
            out.flush();
            return 0;
        } catch (RemoteCapture.RemoteException e) {
            err.println("capture: " + e.getMessage());
            return Main.EXIT_FAILURE;
        }
    }

    /**
     * The local outputs of a remote capture, with the remote host's section and interface in a pcapng,
     * and the remote host's source MAC on interfaces (named in its interface comment).
     */
    private List<FrameOutput> localOutputs(SectionInfo section, InterfaceInfo idb) throws IOException {
        return FrameOutputs.outputs(iface, sendOn, pcapng, section, idb, RemoteCapture.sourceMac(idb), maxFrame,
                FrameOutputs.FileOpener.PLAIN);
    }
}
