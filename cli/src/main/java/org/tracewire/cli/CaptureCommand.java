package org.tracewire.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import org.tracewire.capture.Capture;
import org.tracewire.capture.CaptureEngine;
import org.tracewire.capture.CaptureRun;
import org.tracewire.capture.FilterRejectedException;
import org.tracewire.capture.FrameOutputs;
import org.tracewire.capture.InterfaceOutput;
import org.tracewire.capture.PcapngOutput;
import org.tracewire.capture.RingOutput;
import org.tracewire.capture.TapDevice;
import org.tracewire.capture.TapOutput;
import org.tracewire.capture.TaskScope;
import org.tracewire.capture.Uprobe;
import org.tracewire.capture.UprobeGroup;
import org.tracewire.cli.remote.RemoteCapture;
import org.tracewire.filter.CompiledFilter;
import org.tracewire.filter.FilterProblem;
import org.tracewire.filter.FilterSyntaxException;
import org.tracewire.protocol.Protocol;
import org.tracewire.text.SafeText;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.Ethernet;
import org.tracewire.wire.MacAddress;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tracewire capture}: records trace events in an instance of our own and emits each as a
 * tracewire frame ({@code docs/wire-format.md}: the record as the ring buffer holds it, with the
 * context frames that describe it) on a TAP interface (default {@code tw0}, in Ethernet), an
 * existing interface and/or a pcapng file (link type 162; {@code -w -}: standard output, live), or a
 * ring of pcapng files ({@code --ring}, dumpcap's {@code -b}: {@link RingOutput}). Standard output
 * carries only data: progress and the summary go to stderr. A {@code -f} applies to the {@code -e}
 * before it, as in trace-cmd. Needs root.
 *
 * <p>{@code --remote [USER@]HOST} runs the capture on another host over SSH
 * ({@link RemoteCapture}) and writes its frames to the local outputs ({@code -w}, {@code -i},
 * {@code --send-on}; no TAP unless {@code -i} is given); root is needed there, not here.
 */
@Command(name = "capture", mixinStandardHelpOptions = true, description = "Capture trace events as tracewire frames (TAP interface, existing interface, pcapng).",
        footerHeading = Main.EXAMPLES,
        footer = {"  Record context switches for 5 seconds into a file for Wireshark (root):",
                "    sudo tracewire capture -e sched:sched_switch --duration 5 -w sched.pcapng",
                "  Keep the newest 10 files of 100 MB of scheduler events until Ctrl-C (dumpcap's -b):",
                "    sudo tracewire capture -e sched -w sched.pcapng --ring 100,10",
                "  One process's system calls on TAP interface tw0 (kernel-filtered) until Ctrl-C:",
                "    sudo tracewire capture -e raw_syscalls:sys_enter -f 'common_pid == 42'",
                "  Who calls kfree_skb: its kernel stack after each event, into a file:",
                "    sudo tracewire capture -e skb:kfree_skb --stack -w drops.pcapng",
                "  Capture on another host over SSH into a local file:",
                "    tracewire capture --remote root@host -e sched:sched_wakeup -w host.pcapng"})
public final class CaptureCommand implements Callable<Integer> {
    /** One {@code -e SYSTEM:EVENT [-f FILTER]} pair. */
    static final class EventArg {
        @Option(names = "-e", required = true, paramLabel = "EVENT", description = "Events to capture, as trace-cmd's -e: SYSTEM:EVENT, SYSTEM, EVENT, or a glob (sched:*wake*).")
        String event;
        @Option(names = "-f", paramLabel = "FILTER", description = "Kernel filter for the -e before it.")
        String filter;
        @Option(names = "--stack", paramLabel = "WHICH", arity = "0..1", fallbackValue = "kernel",
                description = "Record a stack trace after each event of the -e before it (kernel, the default; user; "
                        + "both): kernel stacks through the event's stacktrace trigger (with its -f), or the instance's "
                        + "stacktrace option when every -e takes an unfiltered kernel stack (as trace-cmd record -T); user "
                        + "stacks through the instance's userstacktrace option, which applies to every event of the "
                        + "capture (task names then come from /proc, as with --names-from-proc).")
        String stack;

        EventSelection.Stack stack() {
            try {
                return stack == null ? EventSelection.Stack.NONE : EventSelection.Stack.parse(stack);
            } catch (IllegalArgumentException e) {
                throw new Main.UsageException("--stack: " + e.getMessage());
            }
        }
    }

    @ArgGroup(exclusive = false, multiplicity = "0..*")
    List<EventArg> events = new ArrayList<>();

    @Option(names = "--uprobe", paramLabel = "SPEC", description = "Also record a user-space probe: "
            + "'PATH:SYMBOL[+OFFSET][%%return] [FETCHARGS]' (PATH without / is looked up in $PATH), e.g. "
            + "'bash:readline%%return line=+0($retval):string'; made for this capture, removed after it (repeatable).")
    List<String> uprobes = new ArrayList<>();

    @Option(names = "--duration", paramLabel = "SECONDS", description = "Stop after this many seconds.")
    double duration;

    @Option(names = "--count", paramLabel = "N", description = "Stop after N events.")
    long count;

    @Option(names = "-i", paramLabel = "IFACE", description = "Create this TAP interface and send every frame on it (the default, " + Protocol.DEFAULT_IFACE + ", when neither -w nor --send-on is given).")
    String iface;

    @Option(names = "--no-iface", description = "Create no TAP interface (needed only without -w and --send-on).")
    boolean noIface;

    @Option(names = "--send-on", paramLabel = "IFACE", description = "Also send on this existing interface (libpcap).")
    String sendOn;

    @Option(names = "-w", paramLabel = "FILE.pcapng", description = "Write a pcapng file.")
    Path pcapng;

    @Option(names = "--ring", paramLabel = "FILESIZE_MB,FILES", description = "With -w FILE: a ring of files as "
            + "dumpcap's -b, FILE_00001_YYYYMMDDHHMMSS.pcapng, ...: the next file once one holds FILESIZE_MB MB "
            + "(1000000 bytes), the oldest removed beyond FILES (0: keep all). Each file opens alone.")
    String ring;

    @Option(names = "-b", paramLabel = "KEY:VALUE", description = "dumpcap's ring words, with -w FILE (repeatable): "
            + "filesize:KB (1000 bytes), files:N, duration:SECONDS (a file's events span at most that).")
    List<String> ringWords = new ArrayList<>();

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
            + "the CPU (default: a quarter of the available memory, 256-2048 MiB; 0: frame while tracing; a ring of "
            + "files frames while tracing unless this is given).")
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

    @Option(names = "-P", paramLabel = "PID", description = "Record only this process: its threads and the tasks it "
            + "starts from now on (the kernel's set_event_pid with event-fork; repeatable), as trace-cmd's -P.")
    List<Long> pids = new ArrayList<>();

    @Option(names = "--comm", paramLabel = "NAME", description = "Record only tasks named NAME (a glob with *: the "
            + "kernel's comm filter, joined to each -f with &&).")
    String comm;

    @Option(names = "--names-from-proc", description = "Name tasks from /proc and the kernel's saved_cmdlines only. "
            + "By default the capture also reads sched_process_fork, sched_process_exec and task_rename (not framed "
            + "unless selected) to name each task as the kernel did when it recorded the event.")
    boolean namesFromProc;

    @Parameters(paramLabel = "CMD", arity = "0..*", description = "After --: run CMD ARGS, record it and its children "
            + "only, and stop when it exits (its exit status is reported), as trace-cmd record CMD.")
    List<String> command = new ArrayList<>();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        // standard output carries only data (the pcapng of -w -): the summary goes to stderr with the
        // progress, as trace-cmd's and dumpcap's do
        PrintWriter err = spec.commandLine().getErr();
        RingOutput.Spec ringSpec = ringSpec();
        if (remote != null) {
            if (ringSpec != null) {
                throw new Main.UsageException("--ring and -b do not apply to --remote");
            }
            return CaptureRemote.run(this, err);
        }
        if (remotePath != null || !sshOptions.isEmpty()) {
            throw new Main.UsageException("--remote-path and --ssh-option need --remote [USER@]HOST");
        }
        String tap = localTap();
        if (events.isEmpty() && uprobes.isEmpty()) {
            throw new Main.UsageException("nothing to capture: give -e EVENT (or --uprobe SPEC)");
        }
        List<EventSelection> selections = new ArrayList<>();
        Set<String> selected = new HashSet<>();
        Tracefs top = Tracefs.live();
        resolveEvents(top, selections, selected);
        UprobeGroup probes = null;
        if (uprobes.isEmpty()) {
            UprobeGroup.removeStale(top); // a killed capture's probes (UprobeGroup.create does it too)
        } else {
            List<Uprobe> specs = new ArrayList<>();
            for (String u : uprobes) {
                try {
                    specs.add(Uprobe.parse(u, System.getenv("PATH")));
                } catch (IllegalArgumentException ex) {
                    throw new Main.UsageException(ex.getMessage());
                }
            }
            try {
                probes = UprobeGroup.create(top, specs);
            } catch (IllegalArgumentException ex) {
                err.println("capture: " + ex.getMessage());
                return Main.EXIT_FAILURE;
            }
            for (String name : probes.events()) {
                if (selected.add(name)) {
                    selections.add(EventSelection.parse(name, null));
                }
            }
        }
        try {
            return capture(top, selections, tap, ringSpec, err);
        } finally {
            if (probes != null) {
                probes.close();
            }
        }
    }

    /**
     * Checks the local capture's options and names the TAP interface to create: {@code -i}'s, or
     * {@value Protocol#DEFAULT_IFACE} when no output is named at all; null for none.
     *
     * @throws Main.UsageException for negative durations or sizes, contradicting or missing outputs
     */
    private String localTap() {
        if (duration < 0 || count < 0 || buffer.bufferKb < 0 || delay < 0 || linger < 0) {
            throw new Main.UsageException("--duration, --count, --delay and --buffer-kb must not be negative");
        }
        checkMaxFrame();
        if (noIface && iface != null) {
            throw new Main.UsageException("-i and --no-iface contradict each other");
        }
        // -w FILE and --send-on IFACE are outputs of their own; the TAP is made when asked for with -i,
        // or when no output is named at all (then tw0, for a live Wireshark).
        String tap = noIface ? null : iface != null ? iface : pcapng == null && sendOn == null ? Protocol.DEFAULT_IFACE : null;
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
        return tap;
    }

    /**
     * trace-cmd's -e syntax (SYSTEM, SYSTEM:EVENT, globs): each -e becomes its events, each with the
     * -f given after it; an event named twice keeps its first -e's filter.
     */
    private void resolveEvents(Tracefs top, List<EventSelection> selections, Set<String> selected) {
        for (EventArg e : events) {
            try {
                for (String name : EventSelector.parse(e.event).resolve(top)) {
                    if (selected.add(name)) {
                        selections.add(EventSelection.parse(name, e.filter, e.stack()));
                    }
                }
            } catch (IllegalArgumentException ex) {
                throw new Main.UsageException(ex.getMessage());
            }
        }
    }

    /**
     * The ring of files {@code --ring} and {@code -b} ask for, or null.
     *
     * @throws Main.UsageException for a malformed value, or a ring without {@code -w FILE}
     */
    private RingOutput.Spec ringSpec() {
        RingOutput.Spec r;
        try {
            r = RingOutput.Spec.parse(ring, ringWords);
        } catch (IllegalArgumentException e) {
            throw new Main.UsageException(e.getMessage());
        }
        if (r != null && (pcapng == null || FrameOutputs.isStdout(pcapng) || PcapngOutput.isLive(pcapng))) {
            throw new Main.UsageException("--ring and -b need -w FILE.pcapng (a file name the ring's files are named "
                    + "after, not standard output or a FIFO)");
        }
        return r;
    }

    private int capture(Tracefs top, List<EventSelection> selections, String tap, RingOutput.Spec ringSpec,
                        PrintWriter err) throws Exception {
        if (comm != null) {
            selections = withComm(selections, comm);
        }
        if (!checkFilters(top, selections, err)) {
            return Main.EXIT_FAILURE;
        }
        checkScope();
        TracedCommand traced = command.isEmpty() ? null
                : TracedCommand.start(command, FrameOutputs.isStdout(pcapng), stopOnStdinEof);
        List<Long> scoped = new ArrayList<>(pids);
        if (traced != null) {
            scoped.add(traced.pid());
            err.println("capture: recording " + traced.describe() + " (pid " + traced.pid()
                    + ") and its children");
        }
        CaptureRun.Options o = new CaptureRun.Options(selections, duration, count, tap, sendOn, pcapng,
                buffer.bufferKb, buffer.clock, maxFrame, delay, linger, traceSelf,
                // a ring frames while tracing unless asked: its files appear, are named and rotate as events come
                readAheadMib != null ? readAheadMib << 20 : ringSpec != null ? 0 : CaptureEngine.READ_AHEAD_DEFAULT,
                scoped.isEmpty() ? null : new TaskScope(scoped, traced == null ? null : traced::resume), !namesFromProc,
                ringSpec);
        AtomicBoolean stdinEnded = new AtomicBoolean();
        if (stopOnStdinEof) {
            watchStdin(stdinEnded);
        }
        try {
            Capture.Summary s = CaptureRun.run(top, o, err,
                    () -> stdinEnded.get() || (traced != null && traced.exited()), sum -> {
                        err.println(sum.describe());
                        err.flush();
                    });
            if (traced != null) {
                err.println(traced.exited() ? "capture: " + traced.describe() + " exited with status "
                        + traced.status() : "capture: " + traced.describe() + " (pid " + traced.pid()
                        + ") still runs: the capture ended first");
            }
            return outputsFailed(s, err) ? Main.EXIT_FAILURE : 0;
        } catch (FilterRejectedException e) {
            err.println("capture: " + SafeText.escape(e.getMessage()));
            return Main.EXIT_FAILURE;
        } finally {
            if (traced != null && TracedCommand.isStopped(traced.pid())) {
                traced.kill(); // never resumed: the capture failed before tracing
            }
        }
    }

    /**
     * Checks {@code --read-ahead} and the {@code -P} processes.
     *
     * @throws Main.UsageException for a read-ahead out of range or a process that does not exist
     */
    private void checkScope() {
        if (readAheadMib != null && (readAheadMib < 0 || readAheadMib > (Long.MAX_VALUE >> 20))) {
            throw new Main.UsageException("--read-ahead: MiB must be from 0 to " + (Long.MAX_VALUE >> 20) + ": "
                    + readAheadMib);
        }
        for (long pid : pids) {
            if (!Files.isDirectory(Path.of("/proc", Long.toString(pid)))) {
                throw new Main.UsageException("-P " + pid + ": no such process");
            }
        }
    }

    /**
     * Says on {@code err} which outputs failed during the capture (the summary says what each
     * holds): a capture that could not write all it read failed.
     *
     * @return true when one did
     */
    private static boolean outputsFailed(Capture.Summary s, PrintWriter err) {
        if (s.outputFailures().isEmpty()) {
            return false;
        }
        for (var f : s.outputFailures()) {
            err.println("capture: " + f.output() + " failed: " + f.reason());
        }
        err.flush();
        return true;
    }

    /**
     * Runs each {@code -f} through the filter checker the {@code filter} command uses (fields,
     * types, string lengths, with a caret) before the kernel sees it.
     *
     * @return false after printing the first problem on {@code err}
     */
    private static boolean checkFilters(Tracefs top, List<EventSelection> selections, PrintWriter err) {
        for (EventSelection s : selections) {
            if (s.filter() == null) {
                continue;
            }
            try {
                CompiledFilter.compile(s.filter(), top.format(s.system(), s.event()), top.byteOrder());
            } catch (FilterSyntaxException e) {
                err.println("capture: -f for " + s.fullName() + ": position " + e.position() + ": " + e.detail());
                for (String line : FilterProblem.pointer(s.filter(), e.position()).split("\n")) {
                    err.println("  " + line);
                }
                return false;
            }
        }
        return true;
    }

    /**
     * Joins {@code comm == "NAME"} (or {@code comm ~ "GLOB"}) to each event's filter.
     *
     * @throws Main.UsageException for a name the filter cannot quote (a quote, a backslash, a
     *                             control character) or longer than a task name (15 bytes)
     */
    static List<EventSelection> withComm(List<EventSelection> selections, String name) {
        if (name.isEmpty() || name.chars().anyMatch(c -> c == '"' || c == '\\' || Character.isISOControl(c))) {
            throw new Main.UsageException("--comm: a task name without quotes, backslashes or control characters");
        }
        if (name.getBytes(StandardCharsets.UTF_8).length > 15) {
            throw new Main.UsageException("--comm: a task name has at most 15 bytes (TASK_COMM_LEN 16)");
        }
        String test = (name.contains("*") ? "comm ~ \"" : "comm == \"") + name + "\"";
        List<EventSelection> out = new ArrayList<>();
        for (EventSelection s : selections) {
            String f = s.filter() == null || s.filter().isBlank() ? test : "(" + s.filter() + ") && " + test;
            out.add(s.withFilter(f));
        }
        return out;
    }

    /** Smallest --max-frame: the Ethernet and tracewire headers and the 8 common bytes of a record. */
    static final int MIN_MAX_FRAME = Ethernet.HEADER + 16 + 8;

    void checkMaxFrame() {
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
}
