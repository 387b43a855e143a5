package org.tracewire.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.tracewire.text.SafeText;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatJson;
import org.tracewire.format.Field;
import org.tracewire.format.FormatException;
import org.tracewire.format.KernelLayout;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.EventSelector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tracewire formats}: prints parsed event formats, or with {@code --check} parses every
 * format and summarises.
 *
 * <pre>
 * formats [--tracefs DIR] [SYSTEM:EVENT | SYSTEM:* ...] [--json]
 * formats --check [--tracefs DIR] [SYSTEM:EVENT | SYSTEM:* ...]
 * </pre>
 *
 * {@code --check} prints {@code formats: N parsed, N print-fmt ok, N print-fmt fallback}, then
 * one line per fallback event ({@code fallback SYSTEM:EVENT: reason}) and one per format that
 * failed to parse ({@code error FILE:LINE:COL: detail}); it exits 1 when any failed to parse.
 */
@Command(name = "formats", mixinStandardHelpOptions = true,
        description = {"Print parsed trace event formats (default: all events).",
                "Reads the live tracefs when readable (root), else the snapshot in the repository."},
        footerHeading = Main.EXAMPLES,
        footer = {"  Check that this kernel's every event format parses (root):",
                "    sudo tracewire formats --check",
                "  Show the fields of one event, or of a whole system:",
                "    sudo tracewire formats sched:sched_switch 'irq:*'"})
final class FormatsCommand implements Callable<Integer> {
    @Mixin
    TracefsOption tracefsOption = new TracefsOption();

    @Option(names = "--json", description = "One JSON document: an array of events with their fields.")
    boolean json;

    @Option(names = "--check", description = "Parse every format; print a summary; exit 1 if any field layout fails to parse.")
    boolean check;

    @Parameters(paramLabel = "SYSTEM:EVENT", arity = "0..*",
            description = "Events to print, e.g. sched:sched_switch; SYSTEM:* selects a whole system.")
    List<String> selectors = new ArrayList<>();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (check && json) {
            throw new Main.UsageException("--check and --json cannot be combined");
        }
        Tracefs tracefs = tracefsOption.resolve("formats", err);
        List<String[]> events = select(tracefs);
        return check ? check(tracefs, events, out, err) : print(tracefs, events, out, err);
    }

    /** Resolves the selectors to (system, event) pairs, in order, without duplicates. */
    private List<String[]> select(Tracefs tracefs) {
        try {
            return EventSelector.resolveAll(tracefs, selectors).stream()
                    .map(e -> new String[] {e.system(), e.event()}).toList();
        } catch (IllegalArgumentException e) {
            throw new Main.UsageException(e.getMessage());
        }
    }

    private int print(Tracefs tracefs, List<String[]> events, PrintWriter out, PrintWriter err) throws Exception {
        List<EventFormat> formats = new ArrayList<>();
        int failed = 0;
        for (String[] e : events) {
            try {
                formats.add(tracefs.format(e[0], e[1]));
            } catch (FormatException ex) {
                err.println("formats: " + SafeText.escape(ex.getMessage()));
                failed++;
            }
        }
        if (json) {
            out.println(toJson(formats));
        } else {
            for (int i = 0; i < formats.size(); i++) {
                if (i > 0) {
                    out.println();
                }
                printHuman(formats.get(i), out);
            }
        }
        out.flush();
        return failed == 0 ? 0 : Main.EXIT_FAILURE;
    }

    private int check(Tracefs tracefs, List<String[]> events, PrintWriter out, PrintWriter err) {
        KernelLayout layout = tracefs.layout();
        int parsed = 0;
        int ok = 0;
        List<String> fallbacks = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (String[] e : events) {
            EventFormat f;
            try {
                f = tracefs.format(e[0], e[1]);
            } catch (FormatException ex) {
                errors.add(ex.getMessage());
                continue;
            }
            parsed++;
            PrintFmtStatus status = PrintFmtStatus.of(f, layout);
            if (status.fallback()) {
                fallbacks.add(f.fullName() + ": " + status.reason());
            } else {
                ok++;
            }
        }
        out.println("formats: " + parsed + " parsed, " + ok + " print-fmt ok, " + fallbacks.size() + " print-fmt fallback");
        for (String f : fallbacks) {
            out.println("fallback " + SafeText.escape(f));
        }
        for (String e : errors) {
            out.println("error " + SafeText.escape(e));
        }
        out.flush();
        if (!errors.isEmpty()) {
            err.println("formats: " + errors.size() + " of " + events.size() + " formats failed to parse");
            return Main.EXIT_FAILURE;
        }
        return 0;
    }

    /** The human-readable form of one format: header, field table, print fmt. */
    static void printHuman(EventFormat f, PrintWriter out) {
        // a --tracefs directory is anybody's: its names and print fmts are shown escaped
        out.println(SafeText.escape(f.fullName()) + "  (id " + f.id() + ")");
        List<Field> fields = f.allFields();
        int typeW = "type".length();
        int nameW = "name".length();
        for (Field x : fields) {
            typeW = Math.max(typeW, SafeText.escape(x.type()).length());
            nameW = Math.max(nameW, SafeText.escape(nameWithSuffix(x)).length());
        }
        String row = "  %-" + typeW + "s  %-" + nameW + "s  %6s  %4s  %-6s  %s%n";
        out.printf(row, "type", "name", "offset", "size", "signed", "kind");
        for (Field x : fields) {
            out.printf(row, SafeText.escape(x.type()), SafeText.escape(nameWithSuffix(x)), x.offset(), x.size(), x.signed() ? "yes" : "no",
                    x.kind().name().toLowerCase() + (x.relative() ? " (rel_loc)" : "") + (x.common() ? " (common)" : ""));
        }
        out.println("  print fmt: " + SafeText.escape(f.printFmt()));
    }

    private static String nameWithSuffix(Field x) {
        if (x.kind().isDynamic()) {
            return x.name();
        }
        return x.arrayLength() > 0 ? x.name() + "[" + x.arrayLength() + "]" : x.arrayLength() == 0 ? x.name() + "[]" : x.name();
    }

    /** The JSON document: an array of {system, name, id, printFmt, fields: [...]}. */
    static String toJson(List<EventFormat> formats) throws Exception {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ArrayNode array = mapper.createArrayNode();
        for (EventFormat f : formats) {
            FormatJson.add(array, f);
        }
        return mapper.writeValueAsString(array);
    }
}
