package org.tracewire.cli;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.tracewire.text.SafeText;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * tracewire's commands ({@code ./tracewire SUBCOMMAND ...}): dispatches subcommands. With none it
 * prints their list. The desktop app is a process of its own: with a display, the launcher starts
 * {@code org.tracewire.app.AppLauncher} for no command or only the app's options ({@code --open},
 * {@code --view}); here those options only explain that.
 *
 * <p>Exit codes: 0 success, 1 the command ran and found a failure or bad input (a format that does
 * not parse, a missing, malformed or truncated file), 2 a usage error only (unknown option, unknown
 * event, contradictory options). Error messages are one line, escaped ({@link SafeText}).
 */
@Command(name = "tracewire",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Linux ftrace events as network packets for Wireshark.",
        footerHeading = Main.EXAMPLES,
        footer = {"  Open the desktop app, or one recorded capture in it:",
                "    tracewire",
                "    tracewire --open sched.pcapng",
                "  Record context switches for 5 seconds, then print them:",
                "    sudo tracewire capture -e sched:sched_switch --duration 5 -w sched.pcapng",
                "    tracewire report sched.pcapng",
                "  Help on one command:",
                "    tracewire help capture",
                "",
                "Launcher-only subcommands:",
                "  backend  The privileged backend process the desktop app and the extcap",
                "           start (JSON lines on stdin/stdout): tracewire backend --help.",
                "  test     A source tree's ./tracewire: prerequisites, mount tracefs",
                "           (root), then mvn -B verify."})
public final class Main implements Callable<Integer> {
    /** The subcommands, in the order the usage lists them. */
    static final List<Class<?>> SUBCOMMANDS = List.of(FormatsCommand.class, ListCommand.class, StatCommand.class,
            CaptureCommand.class,
            FilterCommand.class, DissectorCommand.class, ReportCommand.class, ImportCommand.class, ExportCommand.class,
            MergeCommand.class, RecoverCommand.class, ExtcapCommand.class, SqlCommand.class,
            CommandLine.HelpCommand.class);

    /** The heading of every command's examples (its usage footer). */
    static final String EXAMPLES = "%nExamples:%n";

    /** Exit code of a command that ran and found a failure. */
    public static final int EXIT_FAILURE = 1;
    /** Exit code of a usage error. */
    public static final int EXIT_USAGE = 2;

    @Spec
    CommandSpec spec;

    @Option(names = "--view", hidden = true, paramLabel = "VIEW",
            description = "Desktop app: the view shown first (start, browser, filter, capture, wireshark, timeline, latency, histogram, query, iograph).")
    String view;

    @Option(names = "--open", paramLabel = "FILE",
            description = "Desktop app: open a recorded capture (a pcapng of tracewire frames, or a trace-cmd trace.dat) "
                    + "in the event table, timeline, latency and histogram views. Needs no root and no backend.")
    Path open;

    @Option(names = "--capture", paramLabel = "EVENT",
            description = "Desktop app: start a capture of EVENT (SYSTEM:EVENT, repeatable) at once into a pcapng, "
                    + "as Start does (with --duration SECONDS, -w FILE; the app's --help tells more). Needs root.")
    List<String> capture;

    @Option(names = "--screenshot-mode", hidden = true,
            description = "Desktop app: fill the views with an example (and start a capture on the capture view).")
    boolean screenshotMode;

    /**
     * Prints usage (the subcommand list); the desktop app's options say how the app is opened.
     */
    @Override
    public Integer call() {
        if (open != null) {
            requireFile(open);
        }
        if (open != null || view != null || screenshotMode || capture != null) {
            spec.commandLine().getErr().println("tracewire: the desktop app (--open, --view, --capture) opens through the tracewire "
                    + "launcher with a display (DISPLAY or WAYLAND_DISPLAY)"
                    + (open == null ? "" : "; without one, print the file with: tracewire report " + open));
            return EXIT_USAGE;
        }
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }

    /**
     * The stream, but failing: a {@link PrintStream} keeps a write error to itself, so a command's
     * {@link PrintWriter#checkError()} would never learn that its reader went away
     * ({@code tracewire report FILE | head}).
     */
    static OutputStream failing(PrintStream ps) {
        return new FilterOutputStream(ps) {
            @Override
            public void write(byte[] b, int off, int len) {
                ps.write(b, off, len); // a failure shows at the flush (checkError flushes once more)
            }

            @Override
            public void flush() throws IOException {
                if (ps.checkError()) {
                    throw new IOException("standard output is closed");
                }
            }
        };
    }

    /** Runs a command line and exits the JVM with its exit code. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs a command line in-process (tests use this).
     *
     * @param args the arguments after {@code tracewire}
     * @param out  where normal output goes (UTF-8)
     * @param err  where errors and notes go (UTF-8)
     * @return the exit code: 0, {@link #EXIT_FAILURE} or {@link #EXIT_USAGE}
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        PrintWriter o = new PrintWriter(new OutputStreamWriter(failing(out), StandardCharsets.UTF_8), true);
        PrintWriter e = new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true);
        CommandLine cl = commandLine(args);
        cl.setAllowSubcommandsAsOptionParameters(true); // --view filter names a view, not the subcommand
        cl.setOut(o);
        cl.setErr(e);
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            // messages quote file names and file content: escaped before the terminal sees them
            String cmd = commandLine.getCommandSpec().qualifiedName();
            if (ex instanceof UsageException) {
                commandLine.getErr().println(cmd + ": " + SafeText.escape(ex.getMessage()));
                return EXIT_USAGE;
            }
            String msg = ex.getMessage() != null ? ex.getMessage() : ex.toString();
            commandLine.getErr().println(cmd + ": " + SafeText.escape(msg.lines().findFirst().orElse(msg)));
            return EXIT_FAILURE;
        });
        try {
            return cl.execute(args);
        } finally {
            o.flush();
            e.flush();
        }
    }

    /**
     * The command line for {@code args}: when the first argument names a subcommand, only that one
     * is added (picocli builds the model of every subcommand it is given, about 0.05 CPU-s of each
     * capture process's start for the ten it would not run); otherwise all of them (usage,
     * {@code help}, the desktop app's options, the man pages and completion the Debian package
     * generates from this model: dist/).
     *
     * @param args the arguments after {@code tracewire}; empty for the whole model
     * @return the command line, not yet run
     */
    public static CommandLine commandLine(String[] args) {
        CommandLine cl = new CommandLine(new Main());
        String first = args.length > 0 ? args[0] : "";
        List<Class<?>> add = SUBCOMMANDS;
        for (Class<?> c : SUBCOMMANDS) {
            Command a = c.getAnnotation(Command.class);
            if (c != CommandLine.HelpCommand.class && a != null && a.name().equals(first)) {
                add = List.of(c);
            }
        }
        for (Class<?> c : add) {
            cl.addSubcommand(c);
        }
        return cl;
    }

    /**
     * Checks that an input file named on the command line is a regular file.
     *
     * @param file the file
     * @throws BadInputException (exit code 1, like any input that cannot be read) when it is not
     */
    static void requireFile(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new BadInputException(file + ": no such file");
        }
    }

    /** Input that cannot be used (a missing or unreadable file): one line, exit code 1. */
    static final class BadInputException extends RuntimeException {
        BadInputException(String message) {
            super(message);
        }
    }

    /**
     * A usage error (unknown option or event, bad combination or value of options): one line, exit
     * code 2. Never for the content of an input file, which is bad input (exit code 1).
     */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }

    /** The version from the jar manifest ({@code Implementation-Version}), else "dev". */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"tracewire " + (v != null ? v : "dev")};
        }
    }
}
