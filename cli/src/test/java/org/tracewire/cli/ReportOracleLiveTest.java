package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.printfmt.EventPrinter;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelContext;
import org.tracewire.tracetext.KernelOracle;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.SavedCmdlines;
import org.tracewire.tracetext.TraceLinePrefix;

/**
 * The kernel as the oracle for {@code report FILE.pcapng} on a machine without tracefs: the
 * foundation's event mix is recorded in an instance of our own ({@code nohash-ptr}), the kernel's
 * text {@code trace} read, the same buffer drained through {@code trace_pipe_raw}; the records are
 * written as a self-describing v2 pcapng with the context a capture sends (formats, constants from
 * the live kernel, symbols and printk strings on first sight, tasks from {@code saved_cmdlines});
 * then {@code tracewire report} runs in a child JVM in a mount namespace where {@code
 * /sys/kernel/tracing}, {@code /sys/kernel/debug}, {@code /proc/kallsyms}, the kernel's BTF and
 * config and the checked-in snapshot are all hidden. At least 99.5% of its lines must equal the
 * kernel's (records whose print fmt reads {@code jiffies} when printed are not comparable, as in
 * {@code KernelTextOracleTest}).
 */
@Tag("live")
class ReportOracleLiveTest {
    @TempDir
    Path dir;

    @Test
    void reportOfTheFileAloneEqualsTheKernelsText() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireTool("unshare");
        HostState before = HostState.of(top);
        KernelOracle.Capture c = KernelOracle.run(top, "report", KernelOracle.SYSTEMS, 8192);
        assertEquals(c.kernelLines().size(), c.records().size(), "records in the text vs through trace_pipe_raw");
        assertTrue(c.records().size() > 1000, "the workload produced only " + c.records().size() + " records");
        assertEquals(List.of(), HostState.of(top).leftSince(before), "host tracing state restored");

        long offset = System.currentTimeMillis() * 1_000_000L - c.records().get(0).timestampNs();
        ContextPcapng.Source src = new ContextPcapng.Source("oracle", "oracle " + ProcessHandle.current().pid(),
                top.layout(), KernelContext.of(top), c.cmdlines(),
                f -> top.read("events/" + f.system() + "/" + f.name() + "/format"), top.read("events/header_page"),
                top.read("events/header_event"), c.clock(), offset);
        Path pcap = ContextPcapng.write(dir.resolve("oracle.pcapng"), c.records(), src, Map.of());

        List<String> report = reportWithoutTracefs(pcap);
        assertEquals(c.records().size(), report.size(), "one line per event");
        KernelTextRenderer printers = new KernelTextRenderer(new TraceLinePrefix(SavedCmdlines.empty(), c.clock()),
                top.layout(), KernelContext.of(top));
        Map<String, int[]> perEvent = new TreeMap<>();
        int compared = 0;
        int matched = 0;
        int notComparable = 0;
        StringBuilder misses = new StringBuilder();
        for (int i = 0; i < c.records().size(); i++) {
            EventRecord r = c.records().get(i);
            EventPrinter p = printers.printer(r.format());
            if (p.printFmt() != null && p.printFmt().readsPrintTimeState()) {
                notComparable++;
                continue;
            }
            compared++;
            int[] n = perEvent.computeIfAbsent(r.format().fullName(), k -> new int[2]);
            n[1]++;
            if (report.get(i).equals(c.kernelLines().get(i))) {
                matched++;
                n[0]++;
            } else {
                misses.append("  kernel: ").append(c.kernelLines().get(i)).append("\n  report: ").append(report.get(i))
                        .append(c.commChanged(r.pid()) ? "   (the kernel's comm of this pid changed while reading)" : "")
                        .append('\n');
            }
        }
        perEvent.forEach((name, n) -> {
            if (n[0] != n[1]) {
                System.out.printf("  %-45s %6d/%-6d%n", name, n[0], n[1]);
            }
        });
        if (misses.length() > 0) {
            System.out.println("mismatches:\n" + misses);
        }
        double rate = (double) matched / compared;
        long raw = 0;
        for (EventRecord r : c.records()) {
            int payload = r.payload().remaining();
            raw += payload + (payload > 112 ? 8 : 4);
        }
        System.out.printf("report of a v2 pcapng without tracefs: %d/%d lines equal the kernel's text (%.3f%%) over %d "
                + "event types; %d records not comparable by design%n", matched, compared, rate * 100,
                perEvent.size(), notComparable);
        System.out.printf("file: %d bytes for %d events = %.1f B per event, context and pcapng blocks included; raw "
                + "records %.1f B per event (%.3f x)%n", Files.size(pcap), c.records().size(),
                (double) Files.size(pcap) / c.records().size(), (double) raw / c.records().size(),
                (double) Files.size(pcap) / raw);
        assertTrue(rate >= 0.995, "match rate " + rate);
    }

    /**
     * Runs {@code tracewire report FILE} in a child JVM in a new mount namespace where tracefs,
     * debugfs, kallsyms, BTF, the kernel config and the repository's snapshot are covered by empty
     * file systems; checks first that they are hidden there.
     */
    private List<String> reportWithoutTracefs(Path pcap) throws Exception {
        Path snapshot = Prerequisites.snapshot().toAbsolutePath().normalize();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String hide = String.join("\n",
                "set -e",
                "mount -t tmpfs none /sys/kernel/tracing",
                "[ ! -d /sys/kernel/debug ] || mount -t tmpfs none /sys/kernel/debug",
                "mount --bind /dev/null /proc/kallsyms",
                "[ ! -e /sys/kernel/btf/vmlinux ] || mount --bind /dev/null /sys/kernel/btf/vmlinux",
                "[ ! -e /proc/config.gz ] || mount --bind /dev/null /proc/config.gz",
                "mount -t tmpfs none \"$SNAP\"",
                "[ ! -e /sys/kernel/tracing/events/header_page ] || { echo 'tracefs still visible' >&2; exit 3; }",
                "[ ! -e \"$SNAP/events/header_page\" ] || { echo 'snapshot still visible' >&2; exit 3; }",
                "[ ! -s /proc/kallsyms ] || { echo 'kallsyms still visible' >&2; exit 3; }",
                "exec \"$JAVA\" -cp \"$CP\" -Dtracewire.snapshot=\"$SNAP\" org.tracewire.cli.Main report \"$FILE\"");
        Path out = dir.resolve("report.txt");
        Path err = dir.resolve("report.err");
        ProcessBuilder pb = new ProcessBuilder("unshare", "--mount", "--propagation", "private", "sh", "-c", hide)
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("SNAP", snapshot.toString());
        pb.environment().put("JAVA", java);
        pb.environment().put("CP", System.getProperty("java.class.path"));
        pb.environment().put("FILE", pcap.toString());
        Process p = pb.start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "report timed out");
        String errText = Files.readString(err, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), errText);
        assertEquals("", errText, "no note, no lost or skipped frames");
        List<String> lines = new ArrayList<>(Files.readAllLines(out, StandardCharsets.UTF_8));
        return lines;
    }
}
