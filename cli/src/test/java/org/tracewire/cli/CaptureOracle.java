package org.tracewire.cli;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.TestInstances;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsInstance;
import org.tracewire.tracetext.LatencyFormat;

/**
 * The kernel as the oracle of a capture: a second instance of our own ({@code nohash-ptr}, a large
 * buffer) records the same events while {@code tracewire capture -w FILE} runs in another JVM (so
 * the workload this JVM starts is not one of the capture's own, excluded, processes); afterwards its
 * non-consuming {@code trace} text is the reference. Each event of the file, rendered from the
 * file's own context ({@link PcapngInput}: no tracefs), must be one of the kernel's lines: matched on
 * CPU, pid, flags and text (the two instances stamp their own times).
 */
final class CaptureOracle {
    static final Pattern LINE = Pattern.compile("^\\s*(.*)-(\\d+)\\s+\\[(\\d{3})\\] (\\S{5})\\s+\\d+\\.\\d+: (.*)$");

    /**
     * What a run gave.
     *
     * @param stdout    the capture's standard output (empty with -w FILE: it carries only data)
     * @param stderr    its standard error (progress, the summary)
     * @param exit      its exit code
     * @param kernel    the kernel's lines as "cpu|pid|flags|event: text" → count
     * @param kernelText the kernel's whole {@code trace} text
     */
    record Run(String stdout, String stderr, int exit, Map<String, Integer> kernel, String kernelText) {
    }

    /**
     * The outcome of a comparison.
     *
     * @param frames   event frames in the file
     * @param matched  of them, equal to one of the kernel's lines
     * @param perEvent "system:event" → {frames, matched}
     * @param misses   the first misses, for the report
     */
    record Comparison(long frames, long matched, Map<String, long[]> perEvent, List<String> misses) {
        double rate() {
            return frames == 0 ? 0 : (double) matched / frames;
        }

        String report() {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                    "file vs kernel text: %d/%d event frames match (%.3f%%)%n", matched, frames, rate() * 100));
            perEvent.forEach((e, a) -> sb.append(String.format(Locale.ROOT, "  %-36s %7d/%-7d%s%n", e, a[1],
                    a[0], a[1] < a[0] ? "  <--" : "")));
            misses.forEach(m -> sb.append("  not in the kernel's text: ").append(m).append('\n'));
            return sb.toString();
        }
    }

    private CaptureOracle() {
    }

    /**
     * Runs {@code tracewire capture ARGS} in a JVM of its own while an oracle instance records the
     * same events and {@code workload} runs here.
     *
     * @param events   the events (system:event)
     * @param args     the capture's arguments after {@code capture}
     * @param workload runs while the capture traces (started once the capture's instance traces)
     */
    static Run run(Tracefs top, String purpose, List<String> events, List<String> args, Runnable workload)
            throws Exception {
        return run(top, purpose, events, args, workload, oracle -> { });
    }

    /**
     * As {@link #run(Tracefs, String, List, List, Runnable)}, with {@code setup} applied to the oracle
     * instance after its events are enabled, before it traces (filters, triggers, options).
     */
    static Run run(Tracefs top, String purpose, List<String> events, List<String> args, Runnable workload,
                   Consumer<TracefsInstance> setup) throws Exception {
        try (TracefsInstance oracle = TestInstances.create(top, purpose)) {
            oracle.setOption("nohash-ptr");
            oracle.setBufferSizeKb(65536);
            for (String e : events) {
                String[] se = e.split(":");
                oracle.setEnabled(se[0], se[1], true);
            }
            setup.accept(oracle);
            oracle.setTracingOn(true);
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"),
                    "-Dtracewire.snapshot=" + System.getProperty("tracewire.snapshot", ""),
                    "org.tracewire.cli.Main", "capture"));
            cmd.addAll(args);
            File out = File.createTempFile("tracewire-capture", ".out");
            File err = File.createTempFile("tracewire-capture", ".err");
            Process p = new ProcessBuilder(cmd).redirectOutput(out).redirectError(err).start();
            try {
                Path inst = top.root().resolve("instances/tracewire-" + p.pid());
                long until = System.nanoTime() + 60_000_000_000L;
                while (!TestInstances.isTracing(inst) && p.isAlive() && System.nanoTime() < until) {
                    Thread.sleep(20);
                }
                if (p.isAlive()) {
                    workload.run();
                }
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroy();
                    p.waitFor(20, TimeUnit.SECONDS);
                }
            } finally {
                oracle.setTracingOn(false);
            }
            String text = oracle.read("trace");
            Map<String, Integer> kernel = records(text);
            String o = Files.readString(out.toPath(), StandardCharsets.UTF_8);
            String e = Files.readString(err.toPath(), StandardCharsets.UTF_8);
            out.delete();
            err.delete();
            return new Run(o, e, p.exitValue(), kernel, text);
        }
    }

    /**
     * The records of a text trace ({@code trace}, or {@code report}'s output) as "cpu|pid|flags|text"
     * → count: the task name and the time left out; a stack trace's {@code " => "} lines joined to
     * the record they belong to with newlines.
     */
    static Map<String, Integer> records(String text) {
        Map<String, Integer> out = new HashMap<>();
        String key = null;
        for (String line : text.split("\n")) {
            if (key != null && line.startsWith(" => ")) {
                key = key + "\n" + line;
                continue;
            }
            if (key != null) {
                out.merge(key, 1, Integer::sum);
                key = null;
            }
            Matcher m = LINE.matcher(line);
            if (!line.startsWith("#") && m.matches()) {
                key = m.group(3) + "|" + m.group(2) + "|" + m.group(4) + "|" + m.group(5);
            }
        }
        if (key != null) {
            out.merge(key, 1, Integer::sum);
        }
        return out;
    }

    /** Renders every event of {@code file} from its own context and looks it up in the kernel's lines. */
    static Comparison compare(Path file, Map<String, Integer> kernelLines) throws IOException {
        Map<String, Integer> kernel = new HashMap<>(kernelLines);
        Map<String, long[]> perEvent = new TreeMap<>();
        List<String> misses = new ArrayList<>();
        long frames = 0;
        long matched = 0;
        try (PcapngInput in = PcapngInput.open(file)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                EventRecord r = it.next().record();
                String key = String.format("%03d|%d|%s|%s", r.cpu(), r.pid(),
                        LatencyFormat.format(r.flags(), r.preemptCount()), in.renderer().body(r));
                long[] a = perEvent.computeIfAbsent(r.format().fullName(), k -> new long[2]);
                a[0]++;
                frames++;
                Integer n = kernel.get(key);
                if (n != null && n > 0) {
                    kernel.put(key, n - 1);
                    matched++;
                    a[1]++;
                } else if (misses.size() < 40) {
                    misses.add(key);
                }
            }
        }
        return new Comparison(frames, matched, perEvent, misses);
    }

    /** Runs a command to its end; its output. */
    static String sh(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        p.getInputStream().transferTo(b);
        p.waitFor(60, TimeUnit.SECONDS);
        return b.toString(StandardCharsets.UTF_8);
    }
}
