package org.tracewire.input;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.record.EventRecord;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.SavedCmdlines;
import org.tracewire.tracetext.TraceLinePrefix;
import org.tracewire.wire.ContextAssembler;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireContext;
import org.tracewire.wire.WireDecoder;
import org.tracewire.wire.WireFormatException;
import org.tracewire.wire.WireFrame;
import org.tracewire.wire.WireHeader;

/**
 * {@link RecordInput} of a pcapng of tracewire version-2 frames ({@code docs/wire-format.md}), as
 * {@code tracewire capture -w}, the extcap, {@code import} and {@code merge} write them (link type
 * 162) or Wireshark captures them on a TAP interface (Ethernet). The file describes itself: a first
 * pass reads its context messages (formats, kernel layout, constants, symbols, tasks) per scope (the
 * pcapng interface, or the Ethernet source); the second pass turns each EVENT frame back into a
 * record with the format its scope described. No tracefs is needed. Packets that are not tracewire
 * frames, malformed frames and events whose format the file lacks are skipped and counted in
 * {@link #summary()}. Streaming: the file is read twice, events never held in memory.
 */
public final class PcapngInput implements RecordInput {
    private final Path file;
    private final Map<Object, WireContext> contexts;
    private final WireContext main;
    private final KernelTextRenderer renderer;
    private final PcapngPacketReader reader;
    private long foreign;
    private long malformed;
    private long unknown;
    private long lost;
    private boolean rawClock;
    private final Map<Object, Map<Integer, Long>> lostSeen = new HashMap<>();

    private PcapngInput(Path file, Map<Object, WireContext> contexts, WireContext main) throws IOException {
        this.file = file;
        this.contexts = contexts;
        this.main = main;
        this.renderer = new KernelTextRenderer(new TraceLinePrefix(main.cmdlines(), "mono"), main.layout(),
                main.printContext());
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
     * Opens a pcapng and reads its context.
     *
     * @param file the pcapng
     * @return the open input, positioned before the first event
     * @throws IOException when the file cannot be read, or holds no tracewire version-2 context
     *                     (then the message says whether it holds version-1 frames)
     */
    public static PcapngInput open(Path file) throws IOException {
        Map<Object, WireContext> contexts = readContext(file);
        WireContext main = null;
        for (WireContext c : contexts.values()) {
            if (c.hasCapture()) {
                main = c;
                break;
            }
        }
        if (main == null) {
            throw new IOException(file + ": no tracewire capture context (CAPTURE frame) in the file"
                    + (hasVersion1(file) ? ": it holds tracewire wire format version 1 frames, not read by this version" : ""));
        }
        return new PcapngInput(file, contexts, main);
    }

    /**
     * The context of every scope of a file (the pcapng interface id, or the Ethernet source address).
     *
     * @throws IOException when the file cannot be read
     */
    public static Map<Object, WireContext> readContext(Path file) throws IOException {
        Map<Object, WireContext> contexts = new java.util.LinkedHashMap<>();
        ContextAssembler assembler = new ContextAssembler();
        try (PcapngPacketReader r = new PcapngPacketReader(file)) {
            for (PcapngPacketReader.Packet p = r.next(); p != null; p = r.next()) {
                WireFrame f;
                try {
                    f = frame(p);
                } catch (WireFormatException e) {
                    continue;
                }
                if (f == null || f.fragment() == null) {
                    continue;
                }
                Object scope = scope(p, f);
                try {
                    ContextMessage.Parsed m = assembler.add(scope, f);
                    if (m != null) {
                        contexts.computeIfAbsent(scope, k -> new WireContext()).apply(m.message(), f.header().cpu());
                    }
                } catch (WireFormatException ignored) {
                    // a contradictory fragment: that message is lost, the rest stands
                }
            }
        }
        return contexts;
    }

    private static boolean hasVersion1(Path file) throws IOException {
        try (PcapngPacketReader r = new PcapngPacketReader(file)) {
            for (PcapngPacketReader.Packet p = r.next(); p != null; p = r.next()) {
                byte[] d = p.data();
                if (p.linkType() == PcapngWriter.LINKTYPE_ETHERNET && d.length > 16 && (d[12] & 0xff) == 0x88
                        && (d[13] & 0xff) == 0xb5) {
                    return (d[14] & 0xff) == WireHeader.VERSION_1_MARK;
                }
            }
        }
        return false;
    }

    /** The context scope of a packet: the Ethernet source address, else the interface id. */
    public static Object scope(PcapngPacketReader.Packet p, WireFrame f) {
        return f.source() != null ? f.source() : Integer.valueOf(p.interfaceId());
    }

    /**
     * The frame in a packet.
     *
     * @param p a packet
     * @return its tracewire frame, or null when it is none (another link type or EtherType)
     * @throws WireFormatException when it is a malformed tracewire frame (or of version 1)
     */
    public static WireFrame frame(PcapngPacketReader.Packet p) {
        ByteBuffer b = ByteBuffer.wrap(p.data());
        if (p.linkType() == PcapngWriter.LINKTYPE_TRACEWIRE) {
            return WireDecoder.decodeBare(b);
        }
        if (p.linkType() == PcapngWriter.LINKTYPE_ETHERNET && p.data().length >= 14
                && (p.data()[12] & 0xff) == 0x88 && (p.data()[13] & 0xff) == 0xb5) {
            return WireDecoder.decodeEthernet(b);
        }
        return null;
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
                        WireFrame f;
                        try {
                            f = frame(p);
                        } catch (WireFormatException e) {
                            malformed++;
                            continue;
                        }
                        if (f == null) {
                            foreign++;
                            continue;
                        }
                        Object scope = scope(p, f);
                        WireContext c = contexts.get(scope);
                        if (f.kind() == FrameKind.LOST) {
                            // the lost count goes with the CPU's next event
                            continue;
                        }
                        if (f.kind() != FrameKind.EVENT || f.body() == null) {
                            continue;
                        }
                        EventFormat fmt = c == null ? null : c.format(f.eventId());
                        if (fmt == null) {
                            unknown++;
                            continue;
                        }
                        WireHeader h = f.header();
                        rawClock |= h.has(WireHeader.FLAG_RAW_CLOCK);
                        return new Event("", new EventRecord(fmt, new org.tracewire.format.KernelLayout(h.byteOrder(), c.layout().longSize()), h.cpu(),
                                h.timeNs(), f.body()), 0, packet);
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
        long lostTotal = 0;
        for (WireContext c : contexts.values()) {
            for (long l : c.lost().values()) {
                lostTotal += l;
            }
        }
        if (lostTotal > 0) {
            lines.add(lostTotal + " events lost");
        }
        if (foreign > 0 || unknown > 0 || malformed > 0) {
            lines.add(foreign + " packets not tracewire frames, " + malformed + " malformed frames, " + unknown
                    + " frames of events without a format in the file skipped");
        }
        return lines;
    }

    @Override
    public FormatCatalog catalog() {
        return main.catalog();
    }

    @Override
    public SavedCmdlines cmdlines() {
        return main.cmdlines();
    }

    @Override
    public String formatsLabel() {
        return "the file";
    }

    @Override
    public boolean wallClock() {
        return !rawClock;
    }

    /** The file read. */
    public Path file() {
        return file;
    }

    /** The context of the file's first capture. */
    public WireContext context() {
        return main;
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }
}
