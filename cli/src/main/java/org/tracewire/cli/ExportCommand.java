package org.tracewire.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatException;
import org.tracewire.format.FormatParser;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.HeaderPage;
import org.tracewire.format.KernelLayout;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.store.CaptureStore;
import org.tracewire.store.StoreCache;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.tracedat.TraceDatWriter;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.WireContext;
import org.tracewire.text.SafeText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tracewire export FILE.pcapng -o FILE.dat}: a pcapng of tracewire version-2 frames back into
 * a trace-cmd trace.dat (version 6) that {@code trace-cmd report} reads, from the file alone: the
 * events come from core's {@link PcapngInput} (the one decoder of frames), each record in its CPU's
 * pages ({@link TraceDatWriter}) with its trace-clock time stamp and the events lost before it (LOST
 * context) as the pages' missed-events marks; the metadata from the file's context
 * ({@link WireContext}): {@code header_page} and {@code header_event}, the clock, the formats of the
 * events written (their {@code format} text as the FORMAT frames carried it), kallsyms made of the
 * symbols the SYMBOLS frames describe, printk formats of their strings, saved cmdlines of the PROCESS
 * frames' tasks, and {@code UNAME} from the host and kernel release. A file of several captures (a
 * {@code merge} of hosts) is refused: a trace.dat holds one kernel's trace. Truncated events are left
 * out (counted). Task and symbol names go into the file's line-oriented sections escaped
 * ({@link SafeText}), so a name cannot forge lines. A pcapng cut short or malformed at a block is
 * exported up to that block, then the error and exit code 1.
 */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = {"Convert a pcapng of tracewire frames (wire format v2) into a trace-cmd trace.dat (version 6), from the file alone."},
        footerHeading = Main.EXAMPLES,
        footer = {"  Open a capture in KernelShark:",
                "    tracewire export sched.pcapng -w sched.dat"})
final class ExportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE.pcapng", description = "The pcapng of tracewire frames.")
    Path input;

    @Parameters(index = "1..*", arity = "0..*", paramLabel = "FILE",
            description = "With --parquet: more capture files (pcapng or trace.dat), one host each.")
    List<Path> more = new ArrayList<>();

    @Option(names = {"-w", "-o"}, paramLabel = "FILE.dat", description = "The trace.dat to write.")
    Path output;

    @Option(names = "--parquet", paramLabel = "DIR",
            description = "Instead of -o: the capture store of the files as Parquet under DIR, Hive-partitioned "
                    + "(events/host=H/event=E/, TABLE/host=H/): docs/store.md.")
    Path parquet;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if ((output == null) == (parquet == null)) {
            throw new Main.UsageException("give -w FILE.dat or --parquet DIR");
        }
        if (parquet != null) {
            return ParquetExport.run(this);
        }
        if (!more.isEmpty()) {
            throw new Main.UsageException("-w writes one file's trace.dat: one FILE");
        }
        Main.requireFile(input);
        PrintWriter err = spec.commandLine().getErr();
        try (PcapngInput in = PcapngInput.open(input)) {
            if (in.captureScopes().size() > 1) {
                err.println("export: " + SafeText.escape(input.toString()) + " holds " + in.captureScopes().size() + " captures (interfaces "
                        + in.captureScopes() + "); a trace.dat holds one: split the file first, e.g. "
                        + "editcap or tshark -r FILE -Y 'frame.interface_id == N' -w ONE.pcapng");
                return Main.EXIT_FAILURE;
            }
            WireContext c = in.context();
            String hp = c.captureText(ContextMessage.CAPTURE_HEADER_PAGE);
            if (hp == null) {
                err.println("export: " + SafeText.escape(input.toString()) + ": its CAPTURE context has no header_page (item 10), "
                        + "which a trace.dat needs for its page layout");
                return Main.EXIT_FAILURE;
            }
            String he = c.captureText(ContextMessage.CAPTURE_HEADER_EVENT);
            if (he == null) {
                he = HeaderEvent.STANDARD_TEXT;
            }
            KernelLayout kernel = c.layout();
            SubBufferLayout layout;
            try {
                HeaderPage page = FormatParser.parseHeaderPage(hp, "header_page of " + input);
                HeaderEvent event = FormatParser.parseHeaderEvent(he, "header_event of " + input);
                layout = SubBufferLayout.of(page, event, kernel);
            } catch (FormatException e) {
                err.println("export: " + SafeText.escape(e.getMessage()));
                return Main.EXIT_FAILURE;
            }
            String host = c.captureText(ContextMessage.CAPTURE_HOST);
            String release = c.captureText(ContextMessage.CAPTURE_KERNEL_RELEASE);
            String uname = host == null || release == null ? null : "Linux " + host + " " + release + " unknown";
            TraceDatWriter.Metadata meta = new TraceDatWriter.Metadata(hp, he, kallsyms(c.symbols()),
                    printk(c.printkStrings()), cmdlines(c.tasks()), c.clock(), uname);
            long truncated = writeTraceDat(in, c, meta, layout, err);
            if (truncated > 0) {
                err.printf("export: %d truncated events left out%n", truncated);
            }
            for (String line : in.summary()) {
                err.println("export: " + SafeText.escape(line));
            }
            if (in.failure() != null) {
                err.println("export: " + SafeText.escape(in.failure()));
                return Main.EXIT_FAILURE;
            }
        }
        return 0;
    }

    /**
     * Writes every whole event of {@code in} into {@link #output} as a trace.dat, with the formats of
     * the events it holds; prints how many records went in.
     *
     * @return the truncated events left out
     */
    private long writeTraceDat(PcapngInput in, WireContext c, TraceDatWriter.Metadata meta, SubBufferLayout layout,
                               PrintWriter err) throws IOException {
        long records = 0;
        long truncated = 0;
        int maxCpu = -1;
        Set<Integer> used = new HashSet<>();
        Map<String, List<String>> texts = new TreeMap<>();
        try (TraceDatWriter writer = new TraceDatWriter(meta, layout)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                if (e.truncated()) {
                    truncated++;
                    continue;
                }
                EventFormat f = e.record().format();
                if (used.add(f.id())) {
                    String text = c.formatText(f.id());
                    if (text != null) {
                        texts.computeIfAbsent(f.system(), k -> new ArrayList<>()).add(text);
                    }
                }
                writer.add(e.record().cpu(), e.record().timestampNs(), e.record().payload(), e.lostBefore());
                maxCpu = Math.max(maxCpu, e.record().cpu());
                records++;
            }
            writer.write(output, maxCpu + 1, texts);
            err.printf("export: %d records written to %s%s%n", records - writer.skipped(), SafeText.escape(output.toString()),
                    writer.skipped() > 0 ? "; " + writer.skipped() + " too large for a page left out" : "");
        }
        return truncated;
    }

    /** {@code /proc/kallsyms} lines ({@code ADDR t NAME [MODULE]}) of the symbols described, by start address. */
    static String kallsyms(Map<Long, SymbolResolver.Symbol> symbols) {
        Map<Long, SymbolResolver.Symbol> byStart = new TreeMap<>(Long::compareUnsigned);
        symbols.values().forEach(s -> byStart.putIfAbsent(s.start(), s));
        StringBuilder sb = new StringBuilder();
        for (SymbolResolver.Symbol s : byStart.values()) {
            sb.append(String.format("%016x", s.start())).append(s.module() == null ? " T " : " t ").append(SafeText.escape(s.name()));
            if (s.module() != null) {
                sb.append("\t[").append(SafeText.escape(s.module())).append(']');
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** {@code printk_formats} lines ({@code 0xADDR : "TEXT"}, escaped as the kernel's {@code t_show()} does). */
    static String printk(Map<Long, String> strings) {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(strings).forEach((a, s) -> {
            sb.append("0x").append(Long.toHexString(a)).append(" : \"");
            for (int i = 0; i < s.length(); i++) {
                char ch = s.charAt(i);
                switch (ch) {
                    case '\n' -> sb.append("\\n");
                    case '\t' -> sb.append("\\t");
                    case '\\' -> sb.append("\\\\");
                    case '"' -> sb.append("\\\"");
                    default -> {
                        if (ch < 0x20 || ch == 0x7f) {
                            sb.append(String.format("\\%03o", (int) ch));
                        } else {
                            sb.append(ch);
                        }
                    }
                }
            }
            sb.append("\"\n");
        });
        return sb.toString();
    }

    /** {@code saved_cmdlines} lines ({@code PID COMM}) of the tasks described. */
    static String cmdlines(Map<Integer, WireContext.Task> tasks) {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(tasks).values().forEach(t -> sb.append(t.pid()).append(' ').append(SafeText.escape(t.comm())).append('\n'));
        return sb.toString();
    }

    /**
     * {@code --parquet DIR}: through the capture store ({@code org.tracewire.store}), which the
     * launcher puts on this command's class path (never on a capture process's).
     */
    private static final class ParquetExport {
        static int run(ExportCommand c) throws Exception {
            List<Path> files = new ArrayList<>();
            files.add(c.input);
            files.addAll(c.more);
            files.forEach(Main::requireFile);
            try {
                Class.forName("org.duckdb.DuckDBDriver");
            } catch (ClassNotFoundException | NoClassDefFoundError e) {
                c.spec.commandLine().getErr().println("export: the capture store (DuckDB) is not on the class path: run it as ./tracewire export");
                return Main.EXIT_FAILURE;
            }
            PrintWriter err = c.spec.commandLine().getErr();
            StoreCache cache = StoreCache.ofUser(System.getenv());
            CaptureStore store;
            try {
                store = CaptureStore.open(files, cache, line -> err.println("export: " + line));
            } catch (IllegalArgumentException e) {
                throw new Main.UsageException(e.getMessage());
            }
            try (store) {
                Map<String, Long> written = store.exportParquet(c.parquet);
                long tables = written.values().stream().filter(n -> n > 0).count();
                err.println("export: " + c.parquet + ": " + tables + " tables, " + written.getOrDefault("events", 0L) + " events");
            }
            return 0;
        }
    }
}
