package org.tracewire.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.tracewire.format.EventFormat;
import org.tracewire.input.FormatSources;
import org.tracewire.input.PcapngInput;
import org.tracewire.format.FormatIdentity;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.record.EventRecord;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.tracedat.TraceDatFile;
import org.tracewire.tracedat.TraceDatWriter;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.WireFrame;
import org.tracewire.wire.WireHeader;
import org.tracewire.wire.WireRecords;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tracewire export FILE.pcapng -o FILE.dat}: tracewire frames back into a trace-cmd
 * trace.dat (version 6) that {@code trace-cmd report} reads. The formats come from the source
 * whose {@link FormatIdentity} equals the frames' ({@code --formats}: a trace.dat or a tracefs
 * tree; else the live tracefs; else the snapshot); kallsyms, printk formats and saved cmdlines
 * from a {@code --formats} trace.dat, or from the live kernel. Each frame becomes a record again
 * ({@link WireRecords}) in its CPU's pages ({@link TraceDatWriter}); the frame's time is the
 * record's time stamp (frames with {@link WireHeader#FLAG_RAW_CLOCK} give back the trace clock);
 * lost counts become the pages' missed-events marks.
 */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = {"Convert a pcapng of tracewire frames into a trace-cmd trace.dat (version 6)."})
final class ExportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE.pcapng", description = "The pcapng of tracewire frames.")
    Path input;

    @Option(names = "-o", required = true, paramLabel = "FILE.dat", description = "The trace.dat to write.")
    Path output;

    @Option(names = "--formats", paramLabel = "SOURCE",
            description = "Formats (and kallsyms, cmdlines) from a trace.dat or a tracefs tree matching the frames.")
    Path formats;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (!Files.isRegularFile(input)) {
            throw new Main.UsageException(input + ": no such file");
        }
        PrintWriter err = spec.commandLine().getErr();
        // pass 1: the frames' identity and byte order
        WireHeader first = PcapngInput.firstFrame(input).header();
        long hash = first.formatHash();
        boolean little = first.littleEndian();
        List<FormatSources.Source> candidates = FormatSources.candidates(formats);
        FormatSources.Source chosen = FormatSources.matching(candidates, hash);
        TraceDatFile dat = formats != null && !candidates.isEmpty() ? candidates.get(0).dat() : null;
        if (chosen == null && dat != null) {
            chosen = candidates.get(0);
            err.println("export: note: --formats " + formats + " has format identity " + FormatIdentity.hex(chosen.hash())
                    + ", the frames " + FormatIdentity.hex(hash) + "; using its formats by event id");
        }
        if (chosen == null) {
            throw new IllegalStateException("no formats with the frames' identity " + FormatIdentity.hex(hash)
                    + " (tried " + candidates.stream().map(s -> s.label() + "=" + FormatIdentity.hex(s.hash())).toList()
                    + "); pass --formats SOURCE");
        }
        Map<Integer, EventFormat> byId = chosen.catalog().byId();
        if (dat != null && !FormatSources.contains(chosen.catalog(), dat.catalog())) {
            dat = null;
        }
        TraceDatWriter.Metadata meta;
        SubBufferLayout layout;
        KernelLayout kernel;
        String clock;
        Map<Integer, String> texts = new HashMap<>();
        if (dat != null) {
            kernel = dat.kernelLayout();
            layout = dat.subBufferLayout(dat.buffersWithData().isEmpty() ? dat.buffers().get(0) : dat.buffersWithData().get(0));
            clock = dat.clock();
            meta = new TraceDatWriter.Metadata(dat.headerPageText(), dat.headerEventText(), dat.kallsymsText(),
                    dat.printkText(), dat.cmdlinesText(), clock, dat.options().uname());
            for (EventFormat f : dat.catalog().formats()) {
                texts.put(f.id(), dat.formatText(f.fullName()));
            }
        } else {
            Tracefs t = chosen.tracefs();
            if (t == null) {
                throw new IllegalStateException("formats of " + chosen.label() + " have no header_page");
            }
            String hp = t.read("events/header_page");
            String he = t.read("events/header_event");
            kernel = KernelLayout.fromHeaderPage(FormatParser.parseHeaderPage(hp, "header_page"),
                    little ? java.nio.ByteOrder.LITTLE_ENDIAN : java.nio.ByteOrder.BIG_ENDIAN);
            layout = SubBufferLayout.of(FormatParser.parseHeaderPage(hp, "header_page"),
                    FormatParser.parseHeaderEvent(he, "header_event"), kernel);
            clock = "local";
            boolean live = t.isLive();
            meta = new TraceDatWriter.Metadata(hp, he,
                    live ? readOr(Path.of("/proc/kallsyms")) : "", t.exists("printk_formats") ? t.read("printk_formats") : "",
                    t.exists("saved_cmdlines") ? t.read("saved_cmdlines") : "", clock, null);
            for (EventFormat f : chosen.catalog().formats()) {
                texts.put(f.id(), t.read("events/" + f.system() + "/" + f.name() + "/format"));
            }
        }
        // pass 2: records
        long frames = 0;
        long foreign = 0;
        long unknown = 0;
        Map<String, List<String>> used = new TreeMap<>();
        Map<Integer, Boolean> seen = new HashMap<>();
        int maxCpu = -1;
        try (PcapngPacketReader r = new PcapngPacketReader(input);
             TraceDatWriter writer = new TraceDatWriter(meta, layout)) {
            {
                for (PcapngPacketReader.Packet p = r.next(); p != null; p = r.next()) {
                    WireFrame f = PcapngInput.frame(p);
                    if (f == null) {
                        foreign++;
                        continue;
                    }
                    WireHeader h = f.header();
                    EventFormat fmt = byId.get(h.eventId());
                    if (fmt == null || h.formatHash() != hash) {
                        unknown++;
                        continue;
                    }
                    if (seen.putIfAbsent(fmt.id(), true) == null && texts.get(fmt.id()) != null) {
                        used.computeIfAbsent(fmt.system(), k -> new ArrayList<>()).add(texts.get(fmt.id()));
                    }
                    EventRecord rec = WireRecords.toRecord(f, fmt, kernel.longSize());
                    long lost = h.lostUnknown() ? -1 : h.lostEvents();
                    writer.add(h.cpu(), h.timeNs(), rec.payload(), lost);
                    maxCpu = Math.max(maxCpu, h.cpu());
                    frames++;
                }
                writer.write(output, dat != null ? dat.cpuCount() : maxCpu + 1, used);
                err.printf("export: %d records written to %s (formats of %s)%s%n", frames - writer.skipped(), output,
                        chosen.label(), writer.skipped() > 0 ? "; " + writer.skipped() + " too large for a page left out" : "");
            }
        }
        if (foreign > 0 || unknown > 0) {
            err.printf("export: %d packets not tracewire frames, %d frames of unknown events or identities skipped%n",
                    foreign, unknown);
        }
        return 0;
    }

    private static String readOr(Path p) {
        try {
            return Files.readString(p);
        } catch (Exception e) {
            return "";
        }
    }
}
