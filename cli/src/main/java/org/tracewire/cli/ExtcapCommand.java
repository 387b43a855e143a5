package org.tracewire.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.tracewire.capture.CaptureRun;
import org.tracewire.capture.FilterRejectedException;
import org.tracewire.capture.FrameOutputs;
import org.tracewire.capture.PcapngOutput;
import org.tracewire.cli.remote.RemoteCapture;
import org.tracewire.cli.remote.SshTarget;
import org.tracewire.dissector.DissectorGenerator;
import org.tracewire.dissector.PluginInstaller;
import org.tracewire.protocol.BackendLauncher;
import org.tracewire.protocol.Messages;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsException;
import org.tracewire.wire.Ethernet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code tracewire extcap}: tracewire as a Wireshark extcap (Wireshark's extcap documentation,
 * {@code doc/extcap.adoc}), and its installer.
 *
 * <pre>
 * extcap --install [--no-dissector] [--extcap-dir DIR]     install the entry (+ the Lua plugin)
 * extcap --uninstall [--extcap-dir DIR]
 * extcap --extcap-interfaces                                what Wireshark calls, in this order
 * extcap --extcap-dlts --extcap-interface tracewire
 * extcap --extcap-config --extcap-interface tracewire
 * extcap --capture --extcap-interface tracewire --fifo PATH [--events E,E] [--filters EVENT=F;…]
 *        [--buffer-kb N] [--clock CLOCK] [--install-dissector true|false]
 * extcap --capture --extcap-interface tracewire-ssh --fifo PATH --remote-host HOST [--remote-port N]
 *        [--remote-username USER] [--sshkey FILE] [--remote-path DIR] [--ssh-options O;O] [--events …] …
 * </pre>
 *
 * The {@code tracewire-ssh} interface runs {@code capture --remote}'s {@link RemoteCapture} with
 * the FIFO as its output.
 *
 * A capture runs {@link CaptureRun} (the engine {@code capture -w} uses) with a pcapng output
 * on the FIFO: frame times are the events' times, lost events are drop counts, the FIFO is
 * flushed at least every 100 ms. SIGTERM/SIGINT (CaptureRun's shutdown hook) and a closed FIFO
 * (EPIPE) end it with tracing stopped and the instance removed. A BPF capture filter
 * ({@code --extcap-capture-filter}) is refused: Wireshark's check of it ({@code --extcap-interface X
 * --extcap-capture-filter F}, no {@code --capture}) is answered with the reason on stdout, and a
 * capture given one fails. A capture that fails hands the FIFO an empty pcapng stream first, so
 * that dumpcap, tshark and Wireshark end too ({@link ExtcapEnding#releaseFifo}). Run by a user who is not root, it starts the
 * privileged backend as the desktop app does and has it write into the FIFO
 * ({@link #captureViaBackend}). Exit codes: 0, 1 a failure (message on stderr,
 * which Wireshark shows as "Error by extcap pipe"), 2 usage.
 */
@Command(name = "extcap", mixinStandardHelpOptions = true,
        description = {"Wireshark extcap: --install puts a 'tracewire' capture interface into Wireshark.",
                "The --extcap-* and --capture options are Wireshark's calls."},
        footerHeading = Main.EXAMPLES,
        footer = {"  Install the interface (root: Wireshark 4.0 reads only its global extcap folder):",
                "    sudo tracewire extcap --install",
                "  Then capture with it, choosing the events:",
                "    tshark -i tracewire -o extcap.tracewire.events:sched:sched_switch -a duration:5",
                "  What Wireshark sees:",
                "    tracewire extcap --extcap-interfaces"})
final class ExtcapCommand implements Callable<Integer> {
    @Option(names = "--install", description = "Install the extcap entry where the installed Wireshark looks "
            + "(tshark -G folders) and the Lua plugin into the personal plugin folder.")
    boolean install;

    @Option(names = "--uninstall", description = "Remove the extcap entry.")
    boolean uninstall;

    @Option(names = "--no-dissector", description = "With --install: leave the Lua plugin alone.")
    boolean noDissector;

    @Option(names = "--extcap-dir", paramLabel = "DIR", description = "With --install/--uninstall: this folder instead of Wireshark's.")
    Path extcapDir;

    @Option(names = "--class-path", hidden = true, paramLabel = "CP",
            description = "With --install: the class path the entry runs (default: cli/target and dissector-gen/target, else this JVM's).")
    String classPath;

    @Option(names = "--extcap-interfaces", description = "List the interface (Wireshark's call).")
    boolean interfaces;

    @Option(names = "--extcap-version", arity = "0..1", paramLabel = "VERSION", description = "Wireshark's version (ignored).")
    String wiresharkVersion;

    @Option(names = "--extcap-interface", paramLabel = "IFACE", description = "The interface (tracewire).")
    String iface;

    @Option(names = "--extcap-dlts", description = "List the link types (Wireshark's call).")
    boolean dlts;

    @Option(names = "--extcap-config", description = "List the options (Wireshark's call).")
    boolean config;

    @Option(names = "--extcap-reload-option", paramLabel = "OPTION", description = "(ignored: no option reloads)")
    String reloadOption;

    @Option(names = "--capture", description = "Capture into --fifo (Wireshark's call).")
    boolean capture;

    @Option(names = "--fifo", paramLabel = "PATH", description = "Where the pcapng goes (Wireshark's FIFO).")
    Path fifo;

    @Option(names = "--extcap-capture-filter", paramLabel = "BPF", description = "Refused: use --filters (kernel) or a display filter.")
    String captureFilter;

    @Option(names = {"--extcap-control-in", "--extcap-control-out"}, paramLabel = "PATH", description = "(ignored: no toolbar)")
    String control;

    @Option(names = "--events", paramLabel = "E,E", defaultValue = ExtcapProtocol.DEFAULT_EVENTS,
            description = "SYSTEM:EVENT or SYSTEM:*, comma-separated (default: ${DEFAULT-VALUE}).")
    String events;

    @Option(names = "--filters", paramLabel = "EVENT=FILTER;...", description = "Kernel filters per event.")
    String filters;

    @Mixin
    BufferOptions buffer = new BufferOptions();

    @Option(names = "--remote-host", paramLabel = "HOST", description = "tracewire-ssh: the host to capture on.")
    String remoteHost;

    @Option(names = "--remote-port", paramLabel = "PORT", description = "tracewire-ssh: the SSH port (default: ssh's).")
    int remotePort;

    @Option(names = "--remote-username", paramLabel = "USER", description = "tracewire-ssh: the login (root).")
    String remoteUser;

    @Option(names = "--sshkey", paramLabel = "FILE", description = "tracewire-ssh: the private key (default: ssh's).")
    String sshKey;

    @Option(names = "--remote-path", paramLabel = "DIR", description = "tracewire-ssh: the remote tracewire's folder (default: its PATH).")
    String remotePath;

    @Option(names = "--ssh-options", paramLabel = "OPT;OPT", description = "tracewire-ssh: ssh -o options, separated by ';'.")
    String sshOptions;


    @Option(names = "--install-dissector", arity = "0..1", fallbackValue = "true", paramLabel = "true|false",
            description = "At capture start, rewrite the Lua plugin when it changed (default: false; Wireshark passes true).")
    boolean installDissector;

    /** Set when SIGTERM/SIGINT arrived: errors while stopping are not reported. */
    /** How this process's capture ends for Wireshark (the signals' flag is this command's). */
    private final ExtcapEnding ending = new ExtcapEnding();

    @Unmatched
    List<String> unmatched = new ArrayList<>();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (iface != null && !iface.equals(ExtcapProtocol.INTERFACE) && !iface.equals(ExtcapProtocol.INTERFACE_SSH)
                && (dlts || config || capture)) {
            throw new Main.UsageException("unknown interface '" + iface + "' (have " + ExtcapProtocol.INTERFACE + ", "
                    + ExtcapProtocol.INTERFACE_SSH + ")");
        }
        boolean ssh = ExtcapProtocol.INTERFACE_SSH.equals(iface);
        if (install || uninstall) {
            return install ? ExtcapSetup.install(out, err, extcapDir, noDissector, classPath)
                    : ExtcapSetup.uninstall(out, extcapDir);
        }
        if (interfaces) {
            ExtcapProtocol.interfaces(version()).forEach(out::println);
        } else if (dlts) {
            ExtcapProtocol.dlts().forEach(out::println);
        } else if (config) {
            (ssh ? ExtcapProtocol.configSsh() : ExtcapProtocol.config(clocks())).forEach(out::println);
        } else if (capture) {
            return endingForWireshark(ssh ? this::captureRemote : this::capture, err);
        } else if (captureFilter != null && iface != null) {
            // Wireshark's filter check (extcap.c, extcap_verify_capture_filter): nothing on stdout = valid,
            // else the first line is why not (the filter bar turns red and shows it)
            if (!captureFilter.isBlank()) {
                out.println(ExtcapProtocol.captureFilterRefusal(iface));
            }
        } else {
            throw new Main.UsageException("give --install, --uninstall, or one of Wireshark's calls "
                    + "(--extcap-interfaces, --extcap-dlts, --extcap-config, --capture)");
        }
        out.flush();
        return 0;
    }

    /** A capture of {@link #capture} or {@link #captureRemote}. */
    @FunctionalInterface
    private interface CaptureCall {
        int run(PrintWriter err) throws Exception;
    }

    /**
     * Runs a capture; when it fails (a refused filter or event, no privilege, any error), hands
     * Wireshark's FIFO a pcapng section header and an interface before exiting
     * ({@link ExtcapEnding#releaseFifo}): dumpcap waits for a header from a FIFO no writer ever opened, and
     * tshark and Wireshark wait for dumpcap, forever. With the header, dumpcap reads the end of the
     * stream and both exit, showing the extcap's message.
     */
    private int endingForWireshark(CaptureCall call, PrintWriter err) throws Exception {
        int rc;
        try {
            rc = call.run(err);
        } catch (Exception | Error e) {
            if (!ending.terminating() && fifo != null) {
                err.flush();
                ExtcapEnding.releaseFifo(fifo);
            }
            throw e;
        }
        if (rc != 0 && !ending.terminating() && fifo != null) {
            err.flush();
            ExtcapEnding.releaseFifo(fifo);
        }
        return rc;
    }

    private int capture(PrintWriter err) throws Exception {
        if (fifo == null) {
            throw new Main.UsageException("--capture needs --fifo PATH");
        }
        if (captureFilter != null && !captureFilter.isBlank()) {
            err.println("tracewire: " + ExtcapProtocol.captureFilterRefusal(ExtcapProtocol.INTERFACE));
            return Main.EXIT_FAILURE;
        }
        if (buffer.bufferKb < 0) {
            throw new Main.UsageException("--buffer-kb must not be negative");
        }
        Callable<Integer> capture;
        if (Tracefs.isRoot()) {
            capture = () -> captureAsRoot(err);
        } else {
            BackendLauncher.Result how = BackendLauncher.command(false, System.getenv());
            if (!how.ok()) {
                err.println("tracewire: " + how.problem());
                return Main.EXIT_FAILURE;
            }
            capture = () -> captureViaBackend(err, how.command());
        }
        ending.exitZeroOnSignals();
        try {
            return capture.call();
        } catch (Exception | Error e) {
            if (ending.terminating()) {
                return 0; // stopped by Wireshark while starting or stopping: nothing to report
            }
            throw e;
        }
    }

    private int captureAsRoot(PrintWriter err) throws Exception {
        Tracefs top = Tracefs.live();
        List<EventSelection> selections;
        try {
            selections = ExtcapProtocol.selections(top, events, filters);
        } catch (IllegalArgumentException e) {
            err.println("tracewire: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        // The plugin serves the next Wireshark (this one loaded its plugins at start): rewritten beside
        // the capture, not before it, so tracing starts at once (generating all events' tables takes
        // seconds of CPU).
        if (installDissector) {
            rewritePlugin(top);
        }
        CaptureRun.Options o = new CaptureRun.Options(selections, 0, 0, null, null, fifo, buffer.bufferKb, buffer.clock,
                Ethernet.DEFAULT_MAX_FRAME, 0, 0);
        try {
            CaptureRun.run(top, o, null);
            return 0;
        } catch (FilterRejectedException e) {
            err.println("tracewire: " + e.getMessage());
            return Main.EXIT_FAILURE;
        } catch (IllegalArgumentException e) { // e.g. a clock this kernel does not have
            if (ending.terminating()) {
                return 0;
            }
            err.println("tracewire: " + e.getMessage());
            return Main.EXIT_USAGE;
        } catch (IOException e) {
            if (ExtcapEnding.closedPipe(e)) {
                return 0; // Wireshark closed its end: a normal end, cleaned up by CaptureRun
            }
            throw e;
        }
    }

    /**
     * Rewrites the personal Wireshark plugin for this kernel's events on a background thread that the
     * JVM's exit waits for (at most {@link #PLUGIN_WAIT_MS}); a failure only leaves the old plugin.
     */
    private static void rewritePlugin(Tracefs top) {
        Thread plugin = new Thread(() -> {
            try {
                String home = System.getenv("HOME");
                if (home != null && !home.isBlank()) {
                    ExtcapSetup.writeIfChanged(DissectorGenerator.forTracefs(top, List.of()),
                            Path.of(home).resolve(PluginInstaller.PERSONAL_PLUGINS).resolve(PluginInstaller.FILE_NAME));
                }
            } catch (IOException | RuntimeException e) {
                // not worth failing the capture: the frames are still decodable with any plugin
            }
        }, "tracewire-extcap-plugin");
        plugin.setDaemon(true);
        plugin.setPriority(Thread.MIN_PRIORITY);
        plugin.start();
        // however the capture ends (Wireshark's SIGTERM included), the JVM waits for the write:
        // a write cut by the exit would leave its temporary file beside the plugin
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                plugin.join(PLUGIN_WAIT_MS);
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }, "tracewire-extcap-plugin-wait"));
    }

    /** How long a capture's end waits for the plugin it is rewriting. */
    static final long PLUGIN_WAIT_MS = 20_000;

    /**
     * A capture for a user who is not root, through the privileged backend ({@link ExtcapViaBackend}).
     *
     * @param err     where the extcap's messages go (Wireshark shows them on a non-zero exit)
     * @param command the backend's command line ({@link BackendLauncher#command})
     * @return the exit code: 0, 1 a failure (said on {@code err}), 2 a malformed event list
     * @throws Exception when waiting is interrupted, or another unexpected failure
     */
    int captureViaBackend(PrintWriter err, List<String> command) throws Exception {
        List<Messages.CaptureEvent> selected;
        try {
            selected = ExtcapProtocol.backendEvents(events, filters);
        } catch (IllegalArgumentException e) {
            err.println("tracewire: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        return new ExtcapViaBackend(selected, fifo, buffer.bufferKb, buffer.clock, ending::terminating).run(err, command);
    }

    /**
     * The {@code tracewire-ssh} interface: {@link RemoteCapture} into the FIFO, the remote host's
     * section and interface kept. Needs no root here (the remote login must be root).
     */
    private int captureRemote(PrintWriter err) throws Exception {
        if (fifo == null) {
            throw new Main.UsageException("--capture needs --fifo PATH");
        }
        if (captureFilter != null && !captureFilter.isBlank()) {
            err.println("tracewire: " + ExtcapProtocol.captureFilterRefusal(ExtcapProtocol.INTERFACE_SSH));
            return Main.EXIT_FAILURE;
        }
        if (remoteHost == null || remoteHost.isBlank()) {
            err.println("tracewire: no remote host: set 'Remote SSH server address' (-o extcap.tracewire-ssh.remotehost:HOST)");
            return Main.EXIT_USAGE;
        }
        SshTarget target;
        List<String> args = new ArrayList<>();
        try {
            List<String> opts = new ArrayList<>();
            if (sshOptions != null) {
                for (String o : sshOptions.split(";")) {
                    if (!o.isBlank()) {
                        opts.add(o.strip());
                    }
                }
            }
            String user = remoteUser == null || remoteUser.isBlank() ? null : remoteUser.strip();
            target = new SshTarget(user, remoteHost.strip(), remotePort,
                    sshKey == null || sshKey.isBlank() ? null : Path.of(sshKey), opts);
            args.addAll(ExtcapProtocol.remoteEventArgs(events, filters));
        } catch (IllegalArgumentException e) {
            err.println("tracewire: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        args.addAll(List.of("--buffer-kb", Integer.toString(Math.max(0, buffer.bufferKb)), "--clock", buffer.clock));
        ending.exitZeroOnSignals();
        RemoteCapture rc = new RemoteCapture(new RemoteCapture.Options(target,
                remotePath == null || remotePath.isBlank() ? null : remotePath.strip(), args, 0, "ssh"), err);
        try {
            rc.run((section, idb) -> List.of(new PcapngOutput(fifo.toString(),
                    FrameOutputs.FileOpener.PLAIN.open(fifo), PcapngOutput.isLive(fifo), section, idb)));
            return 0;
        } catch (RemoteCapture.RemoteException e) {
            if (ending.terminating()) {
                return 0;
            }
            err.println("tracewire: " + e.getMessage());
            return Main.EXIT_FAILURE;
        } catch (IOException e) {
            if (ExtcapEnding.closedPipe(e) || ending.terminating()) {
                return 0; // Wireshark closed its end: the remote was stopped by RemoteCapture
            }
            throw e;
        }
    }

    /** The live kernel's trace clocks, else {@link ExtcapProtocol#FALLBACK_CLOCKS}. */
    static List<String> clocks() {
        try {
            List<String> c = Tracefs.live().traceClocks();
            return c.isEmpty() ? ExtcapProtocol.FALLBACK_CLOCKS : c;
        } catch (TracefsException | IllegalStateException e) {
            return ExtcapProtocol.FALLBACK_CLOCKS;
        }
    }

    /** The repository root: {@code -Dtracewire.home} (the launcher and the entry set it), else null. */
    static Path home() {
        String h = System.getProperty("tracewire.home");
        return h == null || h.isBlank() ? null : Path.of(h).toAbsolutePath();
    }

    /** tracewire's version from the jar's manifest, {@code dev} when run from classes. */
    static String version() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v != null ? v : "dev";
    }
}
