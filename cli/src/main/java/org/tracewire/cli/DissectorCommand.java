package org.tracewire.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.tracewire.dissector.DissectorGenerator;
import org.tracewire.tracefs.Tracefs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tracewire dissector}: generates the Wireshark Lua plugin for tracewire frames.
 *
 * <pre>
 * dissector [--tracefs DIR] [-e SYSTEM:EVENT | -e SYSTEM:* ...] (-o FILE.lua | --install)
 * </pre>
 *
 * Prints one line per written file: {@code dissector: N events, M fields, format hash H -> FILE}.
 */
@Command(name = "dissector", mixinStandardHelpOptions = true,
        description = {"Generate the Wireshark Lua dissector for tracewire frames (default: all events).",
                "Reads the live tracefs when readable (root), else the snapshot in the repository."},
        footerHeading = Main.EXAMPLES,
        footer = {"  Install the plugin with typed fields for every event of this kernel:",
                "    sudo tracewire dissector --install",
                "  Write a plugin with tables for the scheduler's events only:",
                "    tracewire dissector -e 'sched:*' -w sched.lua"})
final class DissectorCommand implements Callable<Integer> {
    @Mixin
    TracefsOption tracefsOption = new TracefsOption();

    @Option(names = {"-e", "--event"}, paramLabel = "SYSTEM:EVENT",
            description = "Events with generated tables (repeatable); SYSTEM:* selects a system. Others still show generically.")
    List<String> events = new ArrayList<>();

    @Option(names = {"-w", "-o", "--output"}, paramLabel = "FILE.lua", description = "Write the plugin to this file (atomically).")
    Path output;

    @Option(names = "--install", description = "Install into the invoking user's Wireshark personal plugin folder "
            + "(~/.local/lib/wireshark/plugins; under sudo SUDO_USER's).")
    boolean install;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (output == null && !install) {
            throw new Main.UsageException("give -o FILE.lua or --install");
        }
        Tracefs tracefs = tracefsOption.resolve("dissector", err);
        DissectorGenerator.Result r;
        try {
            r = DissectorGenerator.forTracefs(tracefs, events);
        } catch (IllegalArgumentException e) {
            throw new Main.UsageException(e.getMessage() + " in " + tracefs.label());
        }
        r.warnings().forEach(w -> err.println("dissector: " + w));
        if (output != null) {
            out.println("dissector: " + r.summary() + " -> " + r.write(output));
        }
        if (install) {
            out.println("dissector: " + r.summary() + " -> " + r.install());
        }
        out.flush();
        return 0;
    }
}
