package org.tracewire.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.tracefs.Tracefs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tracewire list}: names only, one a line, as {@code trace-cmd list -e} prints them: the
 * events (all, or those the selectors name, in trace-cmd's {@code -e} syntax), the systems, or the
 * trace clocks.
 */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = "List event names (SYSTEM:EVENT, one a line), systems or trace clocks, as trace-cmd list does.",
        footerHeading = Main.EXAMPLES,
        footer = {"  The scheduler's wake-up events, then the event systems (root):",
                "    sudo tracewire list 'sched:*wake*'",
                "    sudo tracewire list --systems",
                "  The trace clocks, the current one in [brackets]:",
                "    sudo tracewire list --clocks"})
final class ListCommand implements Callable<Integer> {
    @Parameters(paramLabel = "EVENT", arity = "0..*",
            description = "Only the events these name: SYSTEM:EVENT, SYSTEM, EVENT or a glob (sched:*wake*).")
    List<String> selectors = new ArrayList<>();

    @Option(names = "--systems", description = "List the event systems instead.")
    boolean systems;

    @Option(names = "--clocks", description = "List the trace clocks (the current one in [brackets]).")
    boolean clocks;

    @Mixin
    TracefsOption tracefsOption = new TracefsOption();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (systems && clocks) {
            throw new Main.UsageException("--systems and --clocks: one at a time");
        }
        Tracefs tracefs = tracefsOption.resolve("list", err);
        if (clocks) {
            out.println(tracefs.read("trace_clock").strip());
            return 0;
        }
        Set<String> names = new LinkedHashSet<>();
        try {
            if (selectors.isEmpty()) {
                names.addAll(tracefs.allEvents());
            } else {
                for (String s : selectors) {
                    names.addAll(EventSelector.parse(s).resolve(tracefs));
                }
            }
        } catch (IllegalArgumentException e) {
            throw new Main.UsageException(e.getMessage());
        }
        if (systems) {
            names.stream().map(n -> n.substring(0, n.indexOf(':'))).distinct().forEach(out::println);
        } else {
            names.forEach(out::println);
        }
        return 0;
    }
}
