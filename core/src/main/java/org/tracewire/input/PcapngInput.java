package org.tracewire.input;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatIdentity;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelContext;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.SavedCmdlines;
import org.tracewire.tracetext.TraceLinePrefix;
import org.tracewire.wire.WireDecoder;
import org.tracewire.wire.WireFormatException;
import org.tracewire.wire.WireFrame;
import org.tracewire.wire.WireHeader;
import org.tracewire.wire.WireRecords;

/**
 * {@link RecordInput} of a pcapng of tracewire frames ({@code docs/wire-format.md}), as
 * {@code tracewire capture --pcapng}, the extcap or Wireshark on the TAP interface write it. The
 * frames carry their event's id and the identity hash of the formats they were encoded with
 * ({@link FormatIdentity}), not the formats: the first frame's hash picks the catalog among
 * {@link FormatSources#candidates} (an explicit source, the live tracefs, the checked-in snapshot),
 * and each frame becomes a record again ({@link WireRecords}). Packets that are not tracewire frames
 * (another link type, another EtherType, a malformed header) and frames of event ids the catalog
 * lacks or of another identity are skipped and counted in {@link #summary()}. Streaming: the file
 * is read twice (the identity, then the events), never held in memory.
 */
public final class PcapngInput implements RecordInput {
    private final Path file;
    private final FormatSources.Source source;
    private final Map<Integer, EventFormat> byId;
    private final long hash;
    private final int longSize;
    private final KernelTextRenderer renderer;
    private final PcapngPacketReader reader;
    private long foreign;
    private long unknown;
    private long lost;
    private long lostUnknown;
    private boolean rawClock;

    private PcapngInput(Path file, FormatSources.Source source, long hash, Tracefs live) throws IOException {
        this.file = file;
        this.source = source;
        this.hash = hash;
        this.byId = source.catalog().byId();
        Tracefs t = source.tracefs();
        this.longSize = t != null ? t.layout().longSize() : source.dat() != null ? source.dat().kernelLayout().longSize() : 8;
        PrintContext context;
        if (live != null && live.isLive() && t != null && t.isLive()) {
            context = KernelContext.of(live);
        } else if (source.dat() != null) {
            context = source.dat().printContext();
        } else {
            PrintkFormats printk = PrintkFormats.empty();
            try {
                if (t != null && t.exists("printk_formats")) {
                    printk = PrintkFormats.parse(t.read("printk_formats"));
                }
            } catch (RuntimeException ignored) {
                // strings by address fall back
            }
            context = new PrintContext(null, printk, 0, null);
        }
        this.renderer = new KernelTextRenderer(new TraceLinePrefix(SavedCmdlines.empty(), "mono"),
                t != null ? t.layout() : new org.tracewire.format.KernelLayout(java.nio.ByteOrder.LITTLE_ENDIAN, longSize), context);
        this.reader = new PcapngPacketReader(file);
    }

    /**
     * True when the bytes start a pcapng file (a Section Header Block).
     *
     * @param head the file's first bytes (at least 4)
     */
    public static boolean hasMagic(byte[] head) {
        return head.length >= 4 && head[0] == 0x0A && head[1] == 0x0D && head[2] == 0x0D && head[3] == 0x0A;
    }

    /**
     * Opens a pcapng and finds the formats of its frames.
     *
     * @param file    the pcapng
     * @param live    the live tracefs for symbols, HZ and enums when the frames' formats are the
     *                live kernel's, or null for the formats' source alone (no kernel writes)
     * @param formats an explicit formats source (a trace.dat or a tracefs tree), or null
     * @return the open input, positioned before the first event
     * @throws IOException when the file cannot be read, holds no tracewire frame, or no candidate
     *                     has the frames' format identity (the message lists those tried)
     */
    public static PcapngInput open(Path file, Tracefs live, Path formats) throws IOException {
        long hash = firstFrame(file).header().formatHash();
        List<FormatSources.Source> candidates = FormatSources.candidates(formats, hash);
        FormatSources.Source chosen = FormatSources.matching(candidates, hash);
        if (chosen == null) {
            throw new IOException(file + ": no formats with the frames' identity " + FormatIdentity.hex(hash) + " (tried "
                    + candidates.stream().map(s -> s.label() + "=" + FormatIdentity.hex(s.hash())).toList()
                    + "); the frames were recorded on another kernel");
        }
        return new PcapngInput(file, chosen, hash, live);
    }

    /**
     * The file's first tracewire frame, whose header names the formats' identity and the kernel's byte
     * order for the whole capture.
     *
     * @param file a pcapng
     * @return the first packet that is a tracewire frame
     * @throws IOException when the file cannot be read or holds no tracewire frame
     */
    public static WireFrame firstFrame(Path file) throws IOException {
        try (PcapngPacketReader r = new PcapngPacketReader(file)) {
            for (PcapngPacketReader.Packet p = r.next(); p != null; p = r.next()) {
                WireFrame f = frame(p);
                if (f != null) {
                    return f;
                }
            }
        }
        throw new IOException(file + ": no tracewire frames");
    }

    /**
     * The frame in a packet.
     *
     * @param p a packet
     * @return its tracewire frame, or null when it is none (another link type or EtherType, malformed)
     */
    public static WireFrame frame(PcapngPacketReader.Packet p) {
        if (p.linkType() != PcapngWriter.LINKTYPE_ETHERNET) {
            return null;
        }
        try {
            return WireDecoder.decode(p.data());
        } catch (WireFormatException e) {
            return null;
        }
    }

    @Override
    public Iterator<Event> events() {
        return new Iterator<>() {
            private Event next;
            private long packet;
            private boolean done;

            @Override
            public boolean hasNext() {
                if (next == null && !done) {
                    next = read();
                    done = next == null;
                }
                return next != null;
            }

            @Override
            public Event next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Event e = next;
                next = null;
                return e;
            }

            private Event read() {
                try {
                    for (PcapngPacketReader.Packet p = reader.next(); p != null; p = reader.next()) {
                        packet++;
                        WireFrame f = frame(p);
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
                        rawClock |= h.rawClock();
                        long l = h.lostUnknown() ? -1 : h.lostEvents();
                        if (l > 0) {
                            lost += l;
                        } else if (l < 0) {
                            lostUnknown++;
                        }
                        try {
                            return new Event("", WireRecords.toRecord(f, fmt, longSize), l, packet);
                        } catch (WireFormatException ex) {
                            unknown++;
                        }
                    }
                    return null;
                } catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            }
        };
    }

    @Override
    public KernelTextRenderer renderer() {
        return renderer;
    }

    @Override
    public boolean severalBuffers() {
        return false;
    }

    @Override
    public List<String> summary() {
        List<String> lines = new ArrayList<>();
        if (lost > 0 || lostUnknown > 0) {
            lines.add(lost + " events lost" + (lostUnknown > 0 ? " (and an unknown number at " + lostUnknown + " frames)" : ""));
        }
        if (foreign > 0 || unknown > 0) {
            lines.add(foreign + " packets not tracewire frames, " + unknown + " frames of unknown events or identities skipped");
        }
        return lines;
    }

    @Override
    public FormatCatalog catalog() {
        return source.catalog();
    }

    @Override
    public SavedCmdlines cmdlines() {
        return SavedCmdlines.empty();
    }

    @Override
    public String formatsLabel() {
        return source.label();
    }

    @Override
    public boolean wallClock() {
        return !rawClock;
    }

    /** The file read. */
    public Path file() {
        return file;
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }
}
