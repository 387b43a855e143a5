package org.tracewire.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.tracewire.capture.FrameOutput;
import org.tracewire.capture.FrameOutputs;
import org.tracewire.capture.TapDevice;
import org.tracewire.cli.remote.RemoteCapture;
import org.tracewire.cli.remote.SshTarget;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.text.SafeText;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.EventSelector;

/**
 * {@code capture --remote}: checks the options that apply to a remote capture, forwards them as
 * the remote host's {@code tracewire capture ... -w -} arguments ({@link #remoteArgs}), and writes
 * the frames that come back to the local outputs ({@link RemoteCapture}).
 */
final class CaptureRemote {
    private CaptureRemote() {
    }

    /**
     * {@code capture --remote}: the engine runs on the other host, the outputs here.
     *
     * @param c   the command's options
     * @param err where progress and errors go
     * @return the exit code
     * @throws Main.UsageException for options that do not apply to a remote capture
     */
    static int run(CaptureCommand c, PrintWriter err) throws Exception {
        if (c.duration < 0 || c.count < 0 || c.buffer.bufferKb < 0) {
            throw new Main.UsageException("--duration, --count and --buffer-kb must not be negative");
        }
        c.checkMaxFrame();
        if (!c.command.isEmpty()) {
            throw new Main.UsageException("a command to trace (-- CMD) does not apply to --remote: run it on the remote "
                    + "host and give -P PID");
        }
        if (c.delay > 0 || c.noIface || c.stopOnStdinEof) {
            throw new Main.UsageException("--delay, --no-iface and --stop-on-stdin-eof do not apply to --remote "
                    + "(there is no local TAP unless -i IFACE is given)");
        }
        if (c.iface == null && c.sendOn == null && c.pcapng == null) {
            throw new Main.UsageException("no local output: give -w FILE.pcapng (or -w -), -i IFACE or --send-on IFACE");
        }
        if (c.iface != null) {
            try {
                TapDevice.checkName(c.iface);
            } catch (IllegalArgumentException e) {
                throw new Main.UsageException(e.getMessage());
            }
        }
        SshTarget target;
        try {
            target = SshTarget.parse(c.remote, 0, null, c.sshOptions);
        } catch (IllegalArgumentException e) {
            throw new Main.UsageException("--remote: " + e.getMessage());
        }
        List<String> args = remoteArgs(c);
        RemoteCapture rc = new RemoteCapture(new RemoteCapture.Options(target, c.remotePath, args, c.duration, "ssh"), err);
        List<String> names = new ArrayList<>();
        try {
            RemoteCapture.Result r = rc.run((section, idb) -> {
                List<FrameOutput> outs = localOutputs(c, section, idb);
                outs.forEach(o -> names.add(o.describe()));
                return outs;
            });
            err.printf(Locale.ROOT, "remote: %d frames from %s (%s) into %s, lost %d%n", r.frames(), target.destination(),
                    r.iface().description(), String.join(", ", names), r.lost());
            err.flush();
            return 0;
        } catch (RemoteCapture.RemoteException e) {
            err.println("capture: " + SafeText.escape(e.getMessage()));
            return Main.EXIT_FAILURE;
        }
    }

    /**
     * The remote {@code tracewire capture} arguments of the options (events, filters and stacks,
     * probes, scope, stop conditions, buffer): each event name is checked here, resolved there.
     *
     * @throws Main.UsageException for a malformed event name, or nothing to capture
     */
    static List<String> remoteArgs(CaptureCommand c) {
        List<String> args = new ArrayList<>();
        for (CaptureCommand.EventArg e : c.events) {
            try {
                EventSelector.parse(e.event); // resolved on the remote host
            } catch (IllegalArgumentException ex) {
                throw new Main.UsageException(ex.getMessage());
            }
            args.add("-e");
            args.add(e.event);
            if (e.filter != null) {
                args.add("-f");
                args.add(e.filter);
            }
            if (e.stack() != EventSelection.Stack.NONE) {
                args.add("--stack=" + e.stack().word());
            }
        }
        if (c.events.isEmpty() && c.uprobes.isEmpty()) {
            throw new Main.UsageException("nothing to capture: give -e EVENT (or --uprobe SPEC)");
        }
        for (String u : c.uprobes) {
            args.addAll(List.of("--uprobe", u)); // resolved on the remote host, against its binaries
        }
        for (long pid : c.pids) {
            args.addAll(List.of("-P", Long.toString(pid)));
        }
        if (c.comm != null) {
            args.addAll(List.of("--comm", c.comm));
        }
        if (c.duration > 0) {
            args.addAll(List.of("--duration", Double.toString(c.duration)));
        }
        if (c.count > 0) {
            args.addAll(List.of("--count", Long.toString(c.count)));
        }
        args.addAll(List.of("--buffer-kb", Integer.toString(c.buffer.bufferKb), "--clock", c.buffer.clock,
                "--max-frame", Integer.toString(c.maxFrame)));
        if (c.traceSelf) {
            args.add("--trace-self");
        }
        if (c.namesFromProc) {
            args.add("--names-from-proc");
        }
        return args;
    }

    /**
     * The local outputs of a remote capture, with the remote host's section and interface in a pcapng,
     * and the remote host's source MAC on interfaces (named in its interface comment).
     */
    private static List<FrameOutput> localOutputs(CaptureCommand c, SectionInfo section, InterfaceInfo idb)
            throws IOException {
        return FrameOutputs.outputs(c.iface, c.sendOn, c.pcapng, section, idb, RemoteCapture.sourceMac(idb), c.maxFrame,
                FrameOutputs.FileOpener.INVOKING_USER);
    }
}
