package org.tracewire.cli;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatIdentity;
import org.tracewire.input.FormatSources;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.record.EventRecord;
import org.tracewire.tracedat.TraceDatEvent;
import org.tracewire.tracedat.TraceDatFile;
import org.tracewire.tracedat.TraceDatRecords;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.MacAddress;
import org.tracewire.wire.WireFrame;
import org.tracewire.wire.WireHeader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tracewire import FILE.dat -w FILE.pcapng}: a trace-cmd trace.dat as tracewire frames in a
 * pcapng file, as {@code capture -w} writes them: one frame per record ({@link FrameEncoder}), in
 * time order across CPUs, lost events as the frames' lost counts and the packets' drop counts.
 * The pcapng time is the wall clock when the file carries a {@code DATE} option (trace clock +
 * its offset), else the raw trace clock with {@link WireHeader#FLAG_RAW_CLOCK}. The frames'
 * format identity is that of the live tracefs or the snapshot when it holds every format of the
 * file unchanged (so the dissector generated from it applies), else that of the file's formats.
 */
@Command(name = "import", mixinStandardHelpOptions = true,
        description = {"Convert a trace-cmd trace.dat (v6/v7) into a pcapng of tracewire frames."})
final class ImportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE.dat", description = "The trace.dat to read.")
    Path input;

    @Option(names = "-w", required = true, paramLabel = "FILE.pcapng", description = "The pcapng file to write.")
    Path output;

    @Option(names = "--max-frame", paramLabel = "BYTES", defaultValue = "1514",
            description = "Largest frame in bytes (default ${DEFAULT-VALUE}); longer events are truncated.")
    int maxFrame;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (!Files.isRegularFile(input)) {
            throw new Main.UsageException(input + ": no such file");
        }
        if (maxFrame < WireFrame.MIN_MAX_FRAME || maxFrame > WireFrame.MAX_MAX_FRAME) {
            throw new Main.UsageException("--max-frame must be " + WireFrame.MIN_MAX_FRAME + ".." + WireFrame.MAX_MAX_FRAME);
        }
        PrintWriter err = spec.commandLine().getErr();
        try (TraceDatFile f = TraceDatFile.open(input)) {
            FormatCatalog own = f.catalog();
            long hash = FormatIdentity.of(own);
            String identity = "the file's own formats";
            for (FormatSources.Source s : FormatSources.candidates(null)) {
                if (FormatSources.contains(s.catalog(), own)) {
                    hash = s.hash();
                    identity = s.label();
                    break;
                }
            }
            Long date = f.options().date();
            int flags = date == null ? WireHeader.FLAG_RAW_CLOCK : 0;
            FrameEncoder encoder = new FrameEncoder(MacAddress.TRACEWIRE, MacAddress.localHost(), hash, maxFrame);
            encoder.prepare(own.formats());
            ByteBuffer frame = ByteBuffer.allocate(maxFrame);
            long frames = 0;
            String uname = f.options().uname();
            try (TraceDatRecords rs = f.records();
                 PcapngWriter w = PcapngWriter.create(output, SectionInfo.host())) {
                int iface = w.addInterface(InterfaceInfo.ethernet("tracewire",
                        "ftrace events imported from " + input.getFileName() + (uname == null ? "" : " (" + uname + ")"),
                        maxFrame));
                while (rs.hasNext()) {
                    TraceDatEvent e = rs.next();
                    EventRecord r = e.record();
                    long time = date == null ? r.timestampNs() : r.timestampNs() + date;
                    long lost = e.lostBefore();
                    frame.clear();
                    encoder.encode(r, r.cpu(), e.sequence(), lost, time,
                            flags | (lost < 0 ? WireHeader.FLAG_LOST_UNKNOWN : 0), frame);
                    frame.flip();
                    w.writePacket(iface, time, frame, frame.remaining(), Math.max(0, lost));
                    frames++;
                }
                err.printf("import: %d frames written to %s (format identity %s: %s; time %s)%n", frames, output,
                        FormatIdentity.hex(hash), identity, date == null ? "raw trace clock " + f.clock()
                                : "wall clock from the DATE option");
                for (Map.Entry<Integer, Long> l : rs.lostEvents().entrySet()) {
                    if (l.getValue() > 0) {
                        err.printf("import: cpu %d: %d events lost%n", l.getKey(), l.getValue());
                    }
                }
                if (rs.unknownRecords() > 0) {
                    err.printf("import: %d records of event ids without a format skipped%n", rs.unknownRecords());
                }
            }
        }
        return 0;
    }
}
