package org.tracewire.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.tracewire.format.Field;
import org.tracewire.input.RecordInput;
import org.tracewire.input.TraceDatInput;
import org.tracewire.record.EventRecord;
import org.tracewire.text.SafeText;
import org.tracewire.tracedat.TraceDatFile;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.LatencyFormat;
import org.tracewire.tracetext.StackText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tracewire report FILE}: the events of a recorded trace, one line each, in the kernel's
 * {@code trace} text format ({@code comm-pid [cpu] flags time: event: text}, as
 * {@link KernelTextRenderer} renders live captures), or with {@code --json} one JSON object per
 * line with each event's fields. Lines of a file with several buffers start with {@code NAME: }.
 * Lost events and skipped records are summarised on stderr. Control characters of the file's text
 * (task names, strings, print fmts) are shown escaped ({@link SafeText}); JSON escapes them as
 * {@code \\uNNNN}. A file that is cut short or malformed at a block is reported up to that block,
 * then the error (file offset, block or CPU) and exit code 1. The input is opened by
 * {@link RecordInput} by its content: trace-cmd's trace.dat v6/v7, or a pcapng of tracewire
 * version-2 frames, which describes itself (formats, symbols, printk strings, constants and task
 * names from its context frames): a pcapng is reported from the file alone, without tracefs. Each
 * event is rendered with the context of its own capture (a merged file holds several hosts).
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Print the events of a trace file (trace-cmd trace.dat v6/v7, or a pcapng of tracewire frames) as the kernel's trace text.",
                "--json: one JSON object per line per event: cpu, time (trace clock, ns), wall (ns since the epoch, when known), event, id, pid, comm, flags, lost, truncated, fields, text."},
        footerHeading = Main.EXAMPLES,
        footer = {"  Print a capture as the kernel's trace text:",
                "    tracewire report sched.pcapng",
                "  One JSON object per event, from a trace-cmd recording:",
                "    tracewire report --json trace.dat"})
final class ReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "A trace.dat (trace-cmd record) or a pcapng of tracewire frames.")
    Path file;

    @Option(names = "--json", description = "One JSON object per event (JSON lines) with its fields.")
    boolean json;

    @Option(names = "--stat", description = "Instead of the events: per buffer and CPU, the events the file holds "
            + "and the events lost before them (and, for a trace.dat, the kernel's per-CPU stats it stored), as "
            + "trace-cmd report --stat.")
    boolean stat;

    @Option(names = "--no-live-kernel",
            description = "trace.dat: use only what the file stores, even when it was recorded on this kernel "
                    + "(by default HZ and enum constants then come from the live kernel). A pcapng always uses only the file.")
    boolean noLiveKernel;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Main.requireFile(file);
        Tracefs live = noLiveKernel || !isTraceDat(file) ? null : liveTracefs();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (RecordInput in = RecordInput.open(file, live)) {
            if (stat) {
                return stat(in, out, err);
            }
            boolean prefix = in.severalBuffers();
            boolean wall = in.wallClock();
            Iterator<RecordInput.Event> it = in.events();
            if (json) {
                JsonGenerator g = new JsonFactory().disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET).createGenerator(out);
                g.setCharacterEscapes(JsonControls.INSTANCE);
                g.setRootValueSeparator(new SerializedString("\n"));
                for (long n = 1; it.hasNext(); n++) {
                    writeJson(g, it.next(), wall);
                    if (n % READER_CHECK == 0) {
                        g.flush();
                        if (out.checkError()) {
                            return 0; // the reader went away (report FILE | head): stop, as trace-cmd report does
                        }
                    }
                }
                g.flush();
                out.println();
            } else {
                StringBuilder sb = new StringBuilder(256);
                for (long n = 1; it.hasNext(); n++) {
                    if (n % READER_CHECK == 0 && out.checkError()) {
                        return 0; // the reader went away (report FILE | head): stop, as trace-cmd report does
                    }
                    RecordInput.Event e = it.next();
                    sb.setLength(0);
                    if (prefix) {
                        sb.append(e.buffer().isEmpty() ? "top" : e.buffer()).append(": ");
                    }
                    sb.append(e.renderer().line(e.record()));
                    out.println(SafeText.escapeKeepingLines(sb)); // the file's strings and print fmts are untrusted
                }
            }
            out.flush();
            return finish(in, err);
        }
    }

    /** The input's summary and failure on stderr; exit 1 when it failed (a damaged or cut file). */
    private static int finish(RecordInput in, PrintWriter err) {
        for (String line : in.summary()) {
            err.println("report: " + SafeText.escape(line));
        }
        if (in.failure() != null) {
            err.println("report: " + SafeText.escape(in.failure()));
            return Main.EXIT_FAILURE;
        }
        return 0;
    }

    /** {@code --stat}: one pass over the events, counted per buffer and CPU; exit 1 when the file is damaged. */
    private static int stat(RecordInput in, PrintWriter out, PrintWriter err) {
        TreeMap<String, long[]> counts = new TreeMap<>();
        for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
            RecordInput.Event e = it.next();
            String key = (e.buffer().isEmpty() ? "top" : e.buffer()) + "\u0000" + e.record().cpu();
            long[] c = counts.computeIfAbsent(key, k -> new long[2]);
            c[0]++;
            c[1] += e.lostBefore();
        }
        out.printf(Locale.ROOT, "%-16s %4s %12s %12s%n", "buffer", "cpu", "events", "lost before");
        long events = 0;
        long lost = 0;
        for (var c : counts.entrySet()) {
            String[] k = c.getKey().split("\u0000");
            out.printf(Locale.ROOT, "%-16s %4s %12d %12d%n", SafeText.escape(k[0]), k[1], c.getValue()[0],
                    c.getValue()[1]);
            events += c.getValue()[0];
            lost += c.getValue()[1];
        }
        out.printf(Locale.ROOT, "%-16s %4s %12d %12d%n", "all", "", events, lost);
        if (in instanceof TraceDatInput t) {
            List<String> stats = t.file().options().cpuStats();
            for (String cpu : stats) {
                out.println();
                out.println(SafeText.escapeKeepingLines(cpu.strip()));
            }
        }
        return finish(in, err);
    }

    /** Lines between checks whether standard output's reader is still there. */
    static final int READER_CHECK = 256;

    /** True when the file starts like a trace.dat (the only input for which the live kernel is consulted). */
    private static boolean isTraceDat(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return TraceDatFile.hasMagic(in.readNBytes(16));
        }
    }

    static Tracefs liveTracefs() {
        try {
            return Tracefs.isRoot() ? Tracefs.live() : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static void writeJson(JsonGenerator g, RecordInput.Event e, boolean wall) throws Exception {
        EventRecord r = e.record();
        KernelTextRenderer renderer = e.renderer();
        g.writeStartObject();
        if (!e.buffer().isEmpty()) {
            g.writeStringField("buffer", e.buffer());
        }
        g.writeNumberField("cpu", r.cpu());
        g.writeNumberField("time", r.timestampNs());
        if (wall) {
            g.writeNumberField("wall", e.timeNs());
        }
        g.writeStringField("event", r.format().fullName());
        g.writeNumberField("id", r.format().id());
        g.writeNumberField("pid", r.pid());
        g.writeStringField("comm", renderer.comm(r.pid()));
        g.writeStringField("flags", LatencyFormat.format(r.flags(), r.preemptCount()));
        if (e.lostBefore() != 0) {
            g.writeNumberField("lost", e.lostBefore());
        }
        if (e.truncated()) {
            g.writeBooleanField("truncated", true);
        }
        g.writeObjectFieldStart("fields");
        for (Field f : r.format().fields()) {
            g.writeFieldName(f.name());
            try {
                writeValue(g, r, f);
            } catch (RuntimeException ex) {
                g.writeNull();
            }
        }
        g.writeEndObject();
        g.writeStringField("text", renderer.body(r));
        g.writeEndObject();
    }

    private static void writeValue(JsonGenerator g, EventRecord r, Field f) throws Exception {
        switch (f.kind()) {
            case INTEGER -> {
                long v = r.integer(f);
                if (!f.signed() && v < 0) {
                    g.writeNumber(new BigInteger(Long.toUnsignedString(v)));
                } else {
                    g.writeNumber(v);
                }
            }
            case POINTER -> g.writeString("0x" + Long.toHexString(r.integer(f)));
            case CHAR_ARRAY, DYNAMIC_STRING -> g.writeString(r.string(f));
            case ARRAY, DYNAMIC_ARRAY -> {
                if (f.name().equals("caller") && StackText.kind(r.format()) != null) {
                    // a stack's frames as its text prints them: a kernel stack's run past the format's 8
                    g.writeStartArray();
                    for (long a : StackText.addresses(r)) {
                        g.writeNumber(new BigInteger(Long.toUnsignedString(a)));
                    }
                    g.writeEndArray();
                    return;
                }
                int n = r.arrayLength(f);
                g.writeStartArray();
                for (int i = 0; i < n; i++) {
                    g.writeNumber(r.arrayElement(f, i));
                }
                g.writeEndArray();
            }
            default -> g.writeString(HexFormat.of().formatHex(r.bytes(f)));
        }
    }

    /**
     * JSON string escapes for what Jackson writes raw by default: C1 controls and the invisible
     * layout characters {@link SafeText} escapes, as {@code \\uNNNN} (C0 controls Jackson escapes itself).
     */
    static final class JsonControls extends CharacterEscapes {
        static final JsonControls INSTANCE = new JsonControls();
        private final int[] ascii = standardAsciiEscapesForJSON();

        private JsonControls() {
            ascii[0x7f] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return SafeText.escape(String.valueOf((char) ch)).length() > 1
                    ? new SerializedString(String.format("\\u%04x", ch)) : null;
        }
    }
}
