package org.tracewire.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.tracewire.format.EventFormat;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.tracedat.TraceDatContext;
import org.tracewire.tracedat.TraceDatEvent;
import org.tracewire.tracedat.TraceDatFile;
import org.tracewire.tracedat.TraceDatRecords;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.RecordFrames;
import org.tracewire.wire.ContextMessages;
import org.tracewire.wire.ContextPlanner;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.WireHeader;
import org.tracewire.text.SafeText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tracewire import FILE.dat -w FILE.pcapng}: a trace-cmd trace.dat as a pcapng of tracewire
 * version-2 frames ({@code docs/wire-format.md}; link type 162, one interface), a file that
 * describes itself as a capture's does: a CAPTURE frame first (the file's kernel release and host
 * from its {@code UNAME} option, its clock, byte order, long size, {@code header_page} and
 * {@code header_event}, and the constants HZ and kernel variables when known), then, before each
 * EVENT frame, what it needs and was not sent yet ({@link ContextPlanner}): the event's FORMAT (the
 * file's {@code format} text), SYMBOLS for the addresses and printk strings its text uses (from the
 * file's kallsyms and printk formats), PROCESS for its tasks (the file's saved cmdlines; tgid −1:
 * a trace.dat does not store it), and LOST when the kernel lost events on its CPU just before it.
 * One EVENT frame per record, in time order across CPUs (and buffers), its payload copied as the
 * file holds it. Frame times are the wall clock when the file has a {@code DATE} option (trace
 * clock + its offset, the CAPTURE clock offset), else the raw trace clock
 * ({@link WireHeader#FLAG_RAW_CLOCK}). When the file was recorded on this kernel, HZ, enum
 * constants and kernel variables come from it as for {@code report} ({@code --no-live-kernel}
 * turns that off).
 */
@Command(name = "import", mixinStandardHelpOptions = true,
        description = {"Convert a trace-cmd trace.dat (v6/v7) into a pcapng of tracewire frames (wire format v2, self-describing)."},
        footerHeading = Main.EXAMPLES,
        footer = {"  Open a trace-cmd recording in Wireshark:",
                "    tracewire import trace.dat -w trace.pcapng"})
final class ImportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE.dat", description = "The trace.dat to read.")
    Path input;

    @Option(names = "-w", required = true, paramLabel = "FILE.pcapng", description = "The pcapng file to write.")
    Path output;

    @Option(names = "--max-frame", paramLabel = "BYTES", defaultValue = "65535",
            description = "Largest frame in bytes, tracewire header included (default ${DEFAULT-VALUE}); longer events are truncated.")
    int maxFrame;

    @Option(names = "--no-live-kernel",
            description = "Use only what the file stores, even when it was recorded on this kernel.")
    boolean noLiveKernel;

    @Spec
    CommandSpec spec;

    /** Trace clocks that count from boot, as the kernel's {@code trace_clock} names them. */
    static final Set<String> BOOT_CLOCKS = Set.of("local", "global", "mono", "mono_raw", "boot",
            "perf");

    /**
     * The offset (ns) from a boot-relative trace clock to wall time, when the file was recorded on
     * this host since it last booted: same host name and kernel release, a boot-relative clock, and
     * written after this boot began. This boot's start is wall time minus {@code /proc/uptime}
     * (centisecond precision; the trace clock and the uptime clock differ by suspended time and,
     * for {@code local}, by sched_clock's drift: milliseconds).
     *
     * @return the offset, or null when the file may be from another host or boot
     */
    static Long thisBootOffset(String host, String release, String clock, long mtimeMillis) {
        try {
            String here = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
            String kernel = Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
            double uptime = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split("\\s+")[0]);
            long bootMillis = System.currentTimeMillis() - (long) (uptime * 1000);
            if (!here.equals(host) || !kernel.equals(release) || clock == null || !BOOT_CLOCKS.contains(clock)
                    || mtimeMillis < bootMillis) {
                return null;
            }
            return bootMillis * 1_000_000L;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * How the frames are dated.
     *
     * @param offsetNs the wall clock at trace time 0 (ns since the epoch), or null for the raw trace clock
     * @param how      says so, for the summary line
     */
    private record Dating(Long offsetNs, String how) {
    }

    /**
     * The file's DATE option, else this boot's wall clock when the file was recorded here since it
     * booted, else the raw (boot-relative) trace clock.
     */
    private Dating dating(TraceDatFile f, String host, String release) throws IOException {
        Long date = f.options().date();
        if (date != null) {
            return new Dating(date, "wall clock from the DATE option");
        }
        date = thisBootOffset(host, release, f.clock(), Files.getLastModifiedTime(input).toMillis());
        return new Dating(date, date != null ? "wall clock of this boot (recorded here since it booted; no DATE option)"
                : "raw trace clock " + SafeText.escape(f.clock()) + ": boot-relative, no DATE option (frames "
                        + "are dated 1970-01-01 plus the time since that machine booted)");
    }

    /** The import's CAPTURE message: the file (path, size, time) as its id, the recording's kernel and clock. */
    private ContextMessage captureMessage(TraceDatFile f, PrintContext context, String host, String release, long offset)
            throws IOException {
        return ContextMessages.capture(new ContextMessages.Capture(
                "import " + input.toAbsolutePath().normalize() + " " + Files.size(input) + " "
                        + Files.getLastModifiedTime(input).toMillis(),
                release, null, host, f.clock(), offset, 0, f.kernelLayout(), f.headerPageText(), f.headerEventText(),
                ContextMessages.constants(context.hz(), context.variables()), new Main.Version().getVersion()[0],
                f.catalog().formats().stream().map(EventFormat::fullName).toList()));
    }

    /** Says what the file lost (per CPU) and which records were skipped. */
    private static void reportLosses(TraceDatRecords rs, PrintWriter err) {
        for (Map.Entry<Integer, Long> l : rs.lostEvents().entrySet()) {
            long uncounted = rs.pagesLostUncounted().getOrDefault(l.getKey(), 0L);
            if (l.getValue() > 0 || uncounted > 0) {
                err.printf("import: cpu %d: %d events lost%s%n", l.getKey(), l.getValue(), uncounted == 0 ? ""
                        : " (and an unknown number before " + uncounted + " pages: wire format v2 carries exact counts only)");
            }
        }
        if (rs.unknownRecords() > 0) {
            err.printf("import: %d records of event ids without a format skipped%n", rs.unknownRecords());
        }
        if (rs.shortRecords() > 0) {
            err.printf("import: %d records shorter than their event's common fields skipped%n", rs.shortRecords());
        }
    }

    @Override
    public Integer call() throws Exception {
        Main.requireFile(input);
        int min = WireHeader.SIZE + 8;
        if (maxFrame < min || maxFrame > FrameEncoder.MAX_FRAME) {
            throw new Main.UsageException("--max-frame must be " + min + ".." + FrameEncoder.MAX_FRAME);
        }
        PrintWriter err = spec.commandLine().getErr();
        Tracefs live = noLiveKernel ? null : ReportCommand.liveTracefs();
        try (TraceDatFile f = TraceDatFile.open(input)) {
            PrintContext context = TraceDatContext.printContext(f, live);
            boolean little = f.kernelLayout().byteOrder() == ByteOrder.LITTLE_ENDIAN;
            String[] uname = f.options().uname() == null ? new String[0] : f.options().uname().strip().split("\\s+");
            String host = uname.length > 1 ? uname[1] : null;
            String release = uname.length > 2 ? uname[2] : null;
            Dating d = dating(f, host, release);
            Long date = d.offsetNs();
            String dating = d.how();
            boolean raw = date == null;
            long offset = raw ? 0 : date;
            ContextMessage capture = captureMessage(f, context, host, release, offset);
            ContextPlanner sight = ContextPlanner.forRecords(ContextPlanner.Sources.ofFile(f.kernelLayout(), context,
                    f.cmdlines(), null, fmt -> f.formatText(fmt.fullName()), null));
            try (TraceDatRecords rs = f.records();
                 PcapngWriter w = PcapngWriter.create(output, SectionInfo.host())) {
                int iface = w.addInterface(InterfaceInfo.tracewire("tracewire",
                        "ftrace events imported from " + input.getFileName() + (host == null ? "" : " (" + host
                                + (release == null ? "" : ", Linux " + release) + ")"), maxFrame));
                RecordFrames frames = new RecordFrames(new FrameEncoder(maxFrame), capture, sight, offset, raw, little,
                        (frame, time, length, lost) -> w.writePacket(iface, time, frame, length, lost));
                long last = offset;
                while (rs.hasNext()) {
                    TraceDatEvent e = rs.next();
                    frames.event(e.record(), e.lostBefore());
                    last = e.record().timestampNs() + offset;
                }
                frames.finish(Map.of(), last);
                err.printf("import: %d event frames and %d context frames (%d symbols and strings, %d tasks) written to %s"
                                + " (time: %s)%n", frames.events(), frames.contextFrames(), sight.symbolItems(), sight.tasks(),
                        SafeText.escape(output.toString()),
                        dating);
                if (frames.truncated() > 0) {
                    err.printf("import: %d events longer than --max-frame %d truncated%n", frames.truncated(), maxFrame);
                }
                reportLosses(rs, err);
                if (f.truncation() != null) {
                    err.println("import: " + SafeText.escape(f.truncation()));
                    return Main.EXIT_FAILURE;
                }
            }
        }
        return 0;
    }
}
