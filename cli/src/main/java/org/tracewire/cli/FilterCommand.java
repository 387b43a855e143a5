package org.tracewire.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.tracewire.filter.CompiledFilter;
import org.tracewire.filter.FilterProblem;
import org.tracewire.filter.FilterSyntaxException;
import org.tracewire.format.EventFormat;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.tracefs.KernelFilterCheck;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tracewire filter -e SYSTEM:EVENT EXPRESSION [--json] [--tracefs DIR]}: parses and
 * validates a filter in the kernel's syntax for one event, prints its three forms (kernel filter
 * text, Wireshark display filter, libpcap capture filter) with the warnings of the forms that had
 * to widen, and on a live tracefs (root) whether the kernel accepts the kernel form (checked in a
 * scratch instance, {@link KernelFilterCheck}).
 *
 * <p>Human output, one {@code label: value} line each: {@code event}, {@code kernel},
 * {@code display}, {@code capture} (with {@code capture-exact: yes|no}), {@code warning} lines,
 * {@code kernel-check: accepted | rejected: MESSAGE (position N) | not run: REASON}. An invalid
 * filter prints {@code filter: position N: MESSAGE} and the expression with a caret on stderr.
 * With {@code --json}, one JSON object on stdout (also for errors).
 *
 * <p>Exit codes: 0 compiled (and accepted by the kernel when checked); 1 the filter is invalid or
 * the kernel rejected it; 2 usage (no or malformed {@code -e}, unknown event).
 */
@Command(name = "filter", mixinStandardHelpOptions = true,
        description = {"Compile a kernel event filter for one event into its kernel, Wireshark display and libpcap forms.",
                "The filter uses the kernel's event filter syntax; as root, the kernel is asked whether it accepts it."},
        footerHeading = Main.EXAMPLES,
        footer = {"  Switches away from PID 1 to a kworker, in all three forms:",
                "    tracewire filter -e sched:sched_switch 'prev_pid == 1 && next_comm ~ \"kw*\"'",
                "  The same as JSON, checked by the kernel (root):",
                "    sudo tracewire filter --json -e sched:sched_switch 'prev_pid == 1'"})
final class FilterCommand implements Callable<Integer> {
    @Option(names = {"-e", "--event"}, paramLabel = "SYSTEM:EVENT", required = true,
            description = "The event the filter is for, e.g. sched:sched_switch.")
    String event;

    @Parameters(index = "0", paramLabel = "EXPRESSION",
            description = "The filter, e.g. 'prev_pid == 1 && next_comm ~ \"kworker*\"'.")
    String expression;

    @Option(names = "--json", description = "One JSON object on stdout.")
    boolean json;

    @Mixin
    TracefsOption tracefsOption = new TracefsOption();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        EventSelector selector;
        try {
            selector = EventSelector.parseEvent(event);
        } catch (IllegalArgumentException e) {
            throw new Main.UsageException("-e " + e.getMessage());
        }
        Tracefs tracefs = tracefsOption.resolve("filter", err);
        try {
            selector.resolve(tracefs);
        } catch (IllegalArgumentException e) {
            throw new Main.UsageException(e.getMessage());
        }
        EventFormat format = tracefs.format(selector.system(), selector.event());
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode doc = mapper.createObjectNode();
        doc.put("event", format.fullName());
        doc.put("id", format.id());
        doc.put("expression", expression);
        CompiledFilter compiled;
        try {
            compiled = CompiledFilter.compile(expression, format, tracefs.byteOrder());
        } catch (FilterSyntaxException e) {
            if (json) {
                ObjectNode error = doc.putObject("error");
                error.put("message", e.detail());
                error.put("position", e.position());
                out.println(mapper.writeValueAsString(doc));
            } else {
                err.println("filter: position " + e.position() + ": " + e.detail());
                for (String line : FilterProblem.pointer(expression, e.position()).split("\n")) {
                    err.println("  " + line);
                }
            }
            return Main.EXIT_FAILURE;
        }
        KernelFilterCheck.Result check = null;
        String notRun = null;
        if (!tracefs.isLive()) {
            notRun = "not a live tracefs (" + tracefs.label() + ")";
        } else if (!Tracefs.isRoot()) {
            notRun = "needs root";
        } else {
            try {
                check = KernelFilterCheck.check(tracefs, format, compiled.kernel());
            } catch (TracefsException e) {
                notRun = e.getMessage();
            }
        }
        if (json) {
            printJson(doc, compiled, check, notRun, out, mapper);
        } else {
            printText(format, compiled, check, notRun, out);
        }
        out.flush();
        return check != null && !check.accepted() ? Main.EXIT_FAILURE : 0;
    }

    /** The result as JSON: the compiled forms, the warnings and the kernel's check (or why it was not run). */
    private static void printJson(ObjectNode doc, CompiledFilter compiled, KernelFilterCheck.Result check, String notRun,
                                  PrintWriter out, ObjectMapper mapper) throws JsonProcessingException {
        doc.put("kernel", compiled.kernel());
        doc.put("display", compiled.display());
        doc.put("capture", compiled.bpf());
        doc.put("captureExact", compiled.bpfExact());
        compiled.warnings().forEach(doc.putArray("warnings")::add);
        ObjectNode k = doc.putObject("kernelCheck");
        k.put("run", check != null);
        if (check == null) {
            k.put("reason", notRun);
        } else {
            k.put("accepted", check.accepted());
            if (!check.accepted()) {
                k.put("message", check.message());
                k.put("position", check.position());
            }
        }
        out.println(mapper.writeValueAsString(doc));
    }

    /** The result as text, one "name: value" line each, with a caret under a position the kernel rejected. */
    private static void printText(EventFormat format, CompiledFilter compiled, KernelFilterCheck.Result check,
                                  String notRun, PrintWriter out) {
        out.println("event:         " + format.fullName() + " (id " + format.id() + ")");
        out.println("kernel:        " + compiled.kernel());
        out.println("display:       " + compiled.display());
        out.println("capture:       " + compiled.bpf());
        out.println("capture-exact: " + (compiled.bpfExact() ? "yes" : "no (wider than the kernel filter)"));
        for (String w : compiled.warnings()) {
            out.println("warning:       " + w);
        }
        if (check == null) {
            out.println("kernel-check:  not run: " + notRun);
        } else if (check.accepted()) {
            out.println("kernel-check:  accepted");
        } else {
            out.println("kernel-check:  rejected: " + check.message()
                    + (check.position() >= 0 ? " (position " + check.position() + ")" : ""));
            if (check.position() >= 0) {
                for (String line : FilterProblem.pointer(compiled.kernel(), check.position()).split("\n")) {
                    out.println("               " + line);
                }
            }
        }
    }
}
