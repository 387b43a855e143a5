package org.tracewire.input;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.tracewire.format.FormatCatalog;
import org.tracewire.io.GrowingFile;
import org.tracewire.pcapng.PcapngFormatException;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.SavedCmdlines;
import org.tracewire.wire.ContextAssembler;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.Ethernet;
import org.tracewire.wire.FrameEncoder;
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
 * record with the format its scope described ({@link FrameStream}, the decoder the app's live capture
 * uses too), rendered with its own scope's context. No tracefs is needed. Task names are those the
 * file's PROCESS context gave last (as the kernel's {@code saved_cmdlines} when its text is read).
 * Packets that are not tracewire frames, malformed frames and events whose format the file lacks
 * are skipped and counted in {@link #summary()}. A block that is malformed or that the file ends
 * inside (a capture killed while writing) ends the file there: the events before it are read and
 * {@link #failure()} says where it stopped. Streaming: the file is read twice (its context first),
 * events never held in memory; one whose scope holds two captures one after the other is read once,
 * each event with the context in force where it lies.
 */
public final class PcapngInput implements RecordInput {
    private final Path file;
    private WireContext main;
    private Object mainScope;
    private final FrameStream stream;
    private final PcapngPacketReader reader;
    private LongConsumer blocksWithoutEvent;

    private PcapngInput(Path file, Map<Object, WireContext> contexts, Object mainScope) throws IOException {
        this.file = file;
        this.main = contexts.get(mainScope);
        this.mainScope = mainScope;
        this.stream = new FrameStream(contexts);
        this.reader = new PcapngPacketReader(file);
    }

    /** One pass over a file still written: the context is learnt as it comes, before the events that need it. */
    private PcapngInput(Path file, GrowingFile in) {
        this.file = file;
        this.stream = new FrameStream();
        this.reader = new PcapngPacketReader(in, true);
    }

    /**
     * Opens a pcapng that a capture may still be writing ({@code capture -w}), read in one pass as it
     * grows ({@link GrowingFile}): its events come as they are written, and the iteration ends once
     * no process holds the file open for writing and its last block is read. A capture sends every
     * context message before the first event that needs it (docs/wire-format.md §6), so one pass
     * suffices; task names are those given so far. {@link #catalog()} holds the formats seen so far.
     *
     * @param file the pcapng
     * @return the input, positioned before the first event
     * @throws IOException when the file cannot be opened
     */
    public static PcapngInput follow(Path file) throws IOException {
        return new PcapngInput(file, GrowingFile.open(file));
    }

    /**
     * Like {@link #follow(Path)}, the file being written while {@code written} says so (a reader
     * that cannot see the writer's descriptors: the app, whose backend runs as root).
     *
     * @param file    the pcapng (not followed if a symbolic link)
     * @param written true while the writer may add bytes
     * @return the input, positioned before the first event
     * @throws IOException when the file cannot be opened
     */
    public static PcapngInput follow(Path file, BooleanSupplier written) throws IOException {
        return new PcapngInput(file, GrowingFile.open(file, written));
    }

    /** The first capture's scope, once its context is known (a followed file learns it as it goes). */
    private Object mainScope() {
        if (mainScope == null) {
            for (Object s : stream.scopes()) {
                if (stream.context(s).hasCapture()) {
                    mainScope = s;
                    main = stream.context(s);
                    break;
                }
            }
        }
        return mainScope;
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
        PcapngFormatException[] failure = new PcapngFormatException[1];
        boolean[] severalCaptures = new boolean[1];
        Map<Object, WireContext> contexts = readContext(file, failure, severalCaptures);
        for (Map.Entry<Object, WireContext> c : contexts.entrySet()) {
            if (c.getValue().hasCapture()) {
                if (severalCaptures[0]) {
                    // a scope holds two captures one after the other (one interface recorded over
                    // two runs): the last one's context would misjudge the first one's events, so
                    // each event is read with the context in force where it lies, in one pass
                    return new PcapngInput(file, GrowingFile.open(file, () -> false));
                }
                return new PcapngInput(file, contexts, c.getKey());
            }
        }
        if (failure[0] != null && contexts.isEmpty()) {
            throw new IOException(file + ": " + failure[0].getMessage() + ", before any tracewire capture context");
        }
        throw new IOException(file + ": no tracewire capture context (CAPTURE frame) in the file"
                + (failure[0] != null ? " (reading stopped at " + failure[0].getMessage() + ")" : "")
                + (hasVersion1(file) ? ": it holds tracewire wire format version 1 frames, not read by this version" : ""));
    }

    /**
     * The context of every scope of a file (the pcapng interface id, or the Ethernet source
     * address), at most {@link FrameStream#MAX_SCOPES}. Bad frames and messages are skipped.
     *
     * @throws IOException when the file cannot be read
     */
    public static Map<Object, WireContext> readContext(Path file) throws IOException {
        return readContext(file, new PcapngFormatException[1], new boolean[1]);
    }

    /**
     * {@link #readContext(Path)}, up to a block it cannot read past, which it puts in {@code failure[0]};
     * {@code severalCaptures[0]} set when a scope's context starts another capture.
     */
    private static Map<Object, WireContext> readContext(Path file, PcapngFormatException[] failure,
            boolean[] severalCaptures) throws IOException {
        Map<Object, WireContext> contexts = new LinkedHashMap<>();
        ContextAssembler assembler = new ContextAssembler();
        try (PcapngPacketReader r = new PcapngPacketReader(file)) {
            // EVENT frames hold no context: passed over unread (not copied out of the reader)
            for (PcapngPacketReader.Packet p = nextPacket(r, EVENT_FRAMES); p != null;
                    p = nextPacket(r, EVENT_FRAMES)) {
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
                    if (m != null && (contexts.containsKey(scope) || contexts.size() < FrameStream.MAX_SCOPES)) {
                        if (contexts.computeIfAbsent(scope, k -> new WireContext()).apply(m.message(), f.header().cpu())) {
                            assembler.reset(scope); // another capture: its message ids start afresh
                            severalCaptures[0] = true;
                        }
                    }
                } catch (WireFormatException ignored) {
                    // a contradictory fragment: that message is lost, the rest stands
                }
            }
            failure[0] = r.failure();
        }
        return contexts;
    }

    /**
     * Passes over the packets that hold a version-2 EVENT frame ({@link #isEventFrame}): for a
     * reader that wants a file's context messages only ({@link PcapngPacketReader#next(PcapngPacketReader.Skip)}).
     */
    public static final PcapngPacketReader.Skip EVENT_FRAMES = PcapngInput::isEventFrame;

    /**
     * True when a packet's bytes ({@code length} of them at {@code at} in {@code d}) hold a
     * version-2 EVENT frame, bare or in Ethernet, seen from its header's version and kind bytes
     * alone (nothing decoded): such a frame carries no context.
     */
    private static boolean isEventFrame(int linkType, byte[] d, int at, int length) {
        if (linkType == PcapngWriter.LINKTYPE_ETHERNET && Ethernet.carriesTracewire(d, at, length)) {
            return WireDecoder.isEvent(d, at + Ethernet.HEADER, length - Ethernet.HEADER);
        }
        return linkType == FrameEncoder.LINKTYPE && WireDecoder.isEvent(d, at, length);
    }

    /**
     * The next packet, or null at the end of the file or at a block it cannot read past (the reader
     * keeps that {@link PcapngPacketReader#failure()}): the packets before a damaged block are used.
     */
    private static PcapngPacketReader.Packet nextPacket(PcapngPacketReader r) throws IOException {
        return nextPacket(r, null);
    }

    /** As {@link #nextPacket(PcapngPacketReader)}, passing over the packets {@code skip} says to. */
    private static PcapngPacketReader.Packet nextPacket(PcapngPacketReader r, PcapngPacketReader.Skip skip)
            throws IOException {
        try {
            return r.next(skip);
        } catch (PcapngFormatException e) {
            return null;
        }
    }

    private static boolean hasVersion1(Path file) throws IOException {
        try (PcapngPacketReader r = new PcapngPacketReader(file)) {
            for (PcapngPacketReader.Packet p = nextPacket(r); p != null; p = nextPacket(r)) {
                byte[] d = p.data();
                if (p.linkType() == PcapngWriter.LINKTYPE_ETHERNET && d.length > 16
                        && Ethernet.carriesTracewire(d, 0, d.length)) {
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
        if (p.linkType() == FrameEncoder.LINKTYPE) {
            return WireDecoder.decodeBare(p.data());
        }
        ByteBuffer b = ByteBuffer.wrap(p.data());
        if (p.linkType() == PcapngWriter.LINKTYPE_ETHERNET && Ethernet.carriesTracewire(p.data(), 0, p.data().length)) {
            return WireDecoder.decodeEthernet(b);
        }
        return null;
    }

    /**
     * Tells {@code offsets}, while {@link #events()} reads, the file offset in bytes of each packet
     * block that gives no event (its context messages' fragments, a packet of no tracewire frame, a
     * malformed one), in file order, before the event after it is returned: what a reader of single
     * blocks replays to learn the file's context without a pass over every block (the store keeps
     * them as {@code context_offsets}).
     *
     * @param offsets told each such block's offset (null: none told)
     */
    public void onBlockWithoutEvent(LongConsumer offsets) {
        blocksWithoutEvent = offsets;
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
                    for (PcapngPacketReader.Packet p = nextPacket(reader); p != null; p = nextPacket(reader)) {
                        Event e = stream.packet(p, ++packet);
                        if (e != null) {
                            return e;
                        }
                        if (blocksWithoutEvent != null) {
                            blocksWithoutEvent.accept(reader.packetOffset());
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
        return stream.renderer(mainScope());
    }

    @Override
    public boolean severalBuffers() {
        return false;
    }

    @Override
    public List<String> summary() {
        return stream.summary();
    }

    @Override
    public String failure() {
        long cut = reader.truncatedAt();
        if (cut >= 0) {
            return file + ": pcapng offset " + cut + ": the file ends inside a block (a killed capture, or a full "
                    + "disk): the events of the blocks before it were read; `tracewire recover " + file
                    + "` finishes a killed capture's file";
        }
        PcapngFormatException e = reader.failure();
        return e == null ? null : file + ": " + e.getMessage() + (e.truncated()
                ? ": the file is cut short; the events of the blocks before it were read"
                : ": the events of the blocks before it were read, nothing after it");
    }

    @Override
    public FormatCatalog catalog() {
        return mainScope() == null ? new WireContext().catalog() : main.catalog();
    }

    @Override
    public SavedCmdlines cmdlines() {
        return mainScope() == null ? SavedCmdlines.empty() : main.cmdlines();
    }

    @Override
    public String formatsLabel() {
        return "the file";
    }

    @Override
    public boolean wallClock() {
        return !stream.rawClock();
    }

    /**
     * The file offset in bytes of the packet block of the event {@link #events()} returned last
     * (see {@link PcapngPacketReader#packetOffset()}), or -1 before the first.
     */
    public long lastOffset() {
        return reader.packetOffset();
    }

    /** The context scope ({@link #scope}) of the event {@link #events()} returned last, or null before the first. */
    public Object lastScope() {
        return stream.lastScope();
    }

    /** The file read. */
    public Path file() {
        return file;
    }

    /** The context of the file's first capture (null while a followed file has sent none). */
    public WireContext context() {
        mainScope();
        return main;
    }

    /** The scopes of the file that hold a capture (CAPTURE context), in file order. */
    public List<Object> captureScopes() {
        List<Object> r = new ArrayList<>();
        for (Object s : stream.scopes()) {
            if (stream.context(s).hasCapture()) {
                r.add(s);
            }
        }
        return r;
    }

    /** The context of a scope ({@link #scope}), or null. */
    public WireContext context(Object scope) {
        return stream.context(scope);
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }
}
