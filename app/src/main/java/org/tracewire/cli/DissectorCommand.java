package org.tracewire.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.tracewire.dissector.DissectorGenerator;
import org.tracewire.dissector.EventSelection;
import org.tracewire.dissector.PluginInstaller;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatIdentity;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.tracefs.Tracefs;
import picocli.CommandLine.Command;
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
                "Reads the live tracefs when readable (root), else the snapshot in the repository."})
final class DissectorCommand implements Callable<Integer> {
    /** The running kernel's BTF, for enum constants print fmts name (live tracefs only). */
    static final Path BTF = Path.of("/sys/kernel/btf/vmlinux");

    @Option(names = "--tracefs", paramLabel = "DIR", description = "A tracefs mount or snapshot directory (holding events/).")
    Path tracefsDir;

    @Option(names = {"-e", "--event"}, paramLabel = "SYSTEM:EVENT",
            description = "Events with generated tables (repeatable); SYSTEM:* selects a system. Others still show generically.")
    List<String> events = new ArrayList<>();

    @Option(names = {"-o", "--output"}, paramLabel = "FILE.lua", description = "Write the plugin to this file (atomically).")
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
        Tracefs tracefs = TracefsSource.resolve(tracefsDir, err, "dissector");
        FormatCatalog catalog = tracefs.formats();
        List<EventFormat> selection;
        try {
            selection = EventSelection.select(catalog, events);
        } catch (IllegalArgumentException e) {
            throw new Main.UsageException(e.getMessage() + " in " + tracefs.label());
        }
        KernelEnums enums = KernelEnums.empty();
        if (tracefs.isLive() && Files.isReadable(BTF)) {
            try {
                enums = KernelEnums.load(BTF);
            } catch (IOException | RuntimeException e) {
                err.println("dissector: kernel enum constants not read from " + BTF + ": " + e.getMessage());
            }
        }
        DissectorGenerator.Result r = new DissectorGenerator(catalog, tracefs.layout(), tracefs.label())
                .withEnums(enums).generate(selection);
        String summary = "dissector: " + r.events() + " events, " + r.fields() + " fields, format hash "
                + FormatIdentity.hex(r.formatHash());
        if (output != null) {
            PluginInstaller.writeAtomically(output, r.lua());
            out.println(summary + " -> " + output.toAbsolutePath());
        }
        if (install) {
            Path file = PluginInstaller.install(PluginInstaller.currentTarget(), r.lua());
            out.println(summary + " -> " + file);
        }
        out.flush();
        return 0;
    }
}
