package org.tracewire.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.tracewire.pcapng.PcapngMerger;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.text.SafeText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tracewire merge A.pcapng B.pcapng ... -w OUT.pcapng}: merges captures (e.g. of several
 * hosts) into one file in event-time order, every input interface kept as its own interface with
 * its host identity ({@link PcapngMerger}). Exit codes: 0, 1 an input that is not a readable
 * pcapng (the message names it and the offset), 2 usage.
 */
@Command(name = "merge", mixinStandardHelpOptions = true,
        description = "Merge pcapng files (e.g. captures of several hosts) in time order, each host's interface kept.",
        footerHeading = Main.EXAMPLES,
        footer = {"  One timeline of two hosts' captures:",
                "    tracewire merge host-a.pcapng host-b.pcapng -w both.pcapng"})
final class MergeCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "FILE.pcapng", description = "The captures to merge.")
    List<Path> inputs = new ArrayList<>();

    @Option(names = "-w", required = true, paramLabel = "OUT.pcapng", description = "The merged file (replaced).")
    Path output;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        for (Path in : inputs) {
            Main.requireFile(in);
            if (in.toAbsolutePath().normalize().equals(output.toAbsolutePath().normalize())) {
                throw new Main.UsageException(in + " is both an input and the output");
            }
        }
        List<String> names = inputs.stream().map(p -> p.getFileName().toString()).toList();
        SectionInfo section = SectionInfo.host().withComment("merged by tracewire on " + SectionInfo.hostName()
                + " from " + String.join(", ", names));
        try {
            PcapngMerger.Result r = PcapngMerger.merge(inputs, output, section);
            out.printf(Locale.ROOT, "merge: %d packets from %d files, %d interfaces -> %s%n", r.packets(), inputs.size(),
                    r.interfaces(), SafeText.escape(output.toString()));
            out.flush();
            for (String d : r.damaged()) {
                err.println("merge: " + SafeText.escape(d) + ": its packets before that block were merged");
            }
            return r.damaged().isEmpty() ? 0 : Main.EXIT_FAILURE;
        } catch (IOException e) {
            Files.deleteIfExists(output);
            err.println("merge: " + SafeText.escape(e.getMessage()));
            return Main.EXIT_FAILURE;
        }
    }
}
