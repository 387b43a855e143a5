package org.tracewire.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.tracewire.tracefs.RingBufferStats;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tracewire stat}: the live tracing state, as {@code trace-cmd stat} shows it: for the top
 * level and each instance, whether tracing is on, the tracer, the trace clock, the per-CPU buffer
 * size, the enabled events with their filters, the pid lists, and the per-CPU ring-buffer counters
 * ({@code per_cpu/cpuN/stats}). Reads only; needs root (tracefs is mode 0700).
 */
@Command(name = "stat", mixinStandardHelpOptions = true,
        description = "Show what is traced now: top level and instances, enabled events, filters, buffers, per-CPU "
                + "counters (root), as trace-cmd stat does.",
        footerHeading = Main.EXAMPLES,
        footer = {"  Everything traced now, then the top level only:",
                "    sudo tracewire stat",
                "    sudo tracewire stat --top"})
final class StatCommand implements Callable<Integer> {
    @Option(names = {"-B", "--instance"}, paramLabel = "NAME", description = "Only this instance (repeatable).")
    List<String> instances = new ArrayList<>();

    @Option(names = "--top", description = "Only the top level.")
    boolean topOnly;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Tracefs top;
        try {
            top = Tracefs.live();
        } catch (TracefsException e) {
            throw new IllegalStateException("needs the live tracefs (root): " + e.getMessage(), e);
        }
        List<String> names = instances.isEmpty() ? (topOnly ? List.of() : top.instanceNames()) : instances;
        if (instances.isEmpty()) {
            print(out, "top level", top);
        }
        for (String name : names) {
            Tracefs inst;
            try {
                inst = top.instance(name);
            } catch (TracefsException | IllegalArgumentException e) {
                throw new Main.UsageException("-B " + name + ": no such instance");
            }
            if (instances.isEmpty() || !name.equals(names.get(0))) {
                out.println();
            }
            print(out, "instance " + name + (name.startsWith("tracewire-") ? " (tracewire's)" : ""), inst);
        }
        return 0;
    }

    private static void print(PrintWriter out, String title, Tracefs t) {
        out.println(title + ":");
        out.println("  tracing:  " + ("1".equals(t.read("tracing_on").strip()) ? "on" : "off"));
        out.println("  tracer:   " + t.read("current_tracer").strip());
        out.println("  clock:    " + t.currentClock());
        out.println("  buffer:   " + t.bufferSizeKb() + " KiB per CPU");
        List<String> enabled = t.read("set_event").lines().filter(l -> !l.isBlank()).toList();
        out.println("  events:   " + (enabled.isEmpty() ? "none enabled" : enabled.size() + " enabled"));
        for (String e : enabled) {
            int colon = e.indexOf(':');
            String filter = colon > 0 ? filterOf(t, e.substring(0, colon), e.substring(colon + 1)) : "";
            out.println("    " + e + (filter.isEmpty() ? "" : "  filter: " + filter));
        }
        for (String list : List.of("set_event_pid", "set_event_notrace_pid")) {
            if (t.exists(list)) {
                String pids = String.join(" ", t.read(list).split("\\s+")).strip();
                if (!pids.isEmpty()) {
                    out.println("  " + list + ": " + pids);
                }
            }
        }
        out.printf(Locale.ROOT, "  %-7s %9s %9s %9s %9s %12s %12s%n", "per CPU", "entries", "overrun",
                "commit-ov", "dropped", "read", "bytes");
        for (int cpu : t.cpus()) {
            RingBufferStats s = RingBufferStats.read(t, cpu);
            out.printf(Locale.ROOT, "  %-7s %9d %9d %9d %9d %12d %12d%n", "cpu" + cpu, s.entries(), s.overrun(),
                    s.commitOverrun(), s.droppedEvents(), s.readEvents(), s.bytes());
        }
    }

    private static String filterOf(Tracefs t, String system, String event) {
        try {
            String f = t.filter(system, event).strip();
            return f.equals("none") ? "" : f;
        } catch (RuntimeException e) {
            return "";
        }
    }
}
