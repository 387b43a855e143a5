package org.tracewire.input;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.tracewire.format.EventFormat;
import org.tracewire.format.KernelLayout;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.record.EventRecord;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.TraceLinePrefix;
import org.tracewire.wire.ContextAssembler;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.Ethernet;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireContext;
import org.tracewire.wire.WireDecoder;
import org.tracewire.wire.WireFormatException;
import org.tracewire.wire.WireFrame;
import org.tracewire.wire.WireHeader;

/**
 * Turns tracewire version-2 frames ({@code docs/wire-format.md}), taken in stream order, into
 * events: the one decoder of frames behind {@link PcapngInput} (a file) and the desktop app's live
 * capture (frames the backend streams). Context frames are reassembled ({@link ContextAssembler})
 * and applied to their scope's {@link WireContext} (§4: the pcapng interface id, the Ethernet source,
 * or what the caller names); an EVENT frame becomes a {@link RecordInput.Event} with its scope's
 * format, the record's time in the trace clock (header time − the CAPTURE clock offset; a frame
 * with the raw-clock flag keeps its time), the events its CPU lost just before it (LOST context),
 * and its scope's renderer. Nothing here throws on bad input: frames that are not tracewire's,
 * malformed frames, contradictory fragments, events before their scope's CAPTURE message (a stream
 * joined late: layout and clock unknown), events whose format the stream has not described and
 * reserved kinds are skipped and counted ({@link #summary()}). Memory: bounded by the assembler's
 * and {@link WireContext}'s caps per scope, and {@link #MAX_SCOPES} scopes. Not thread-safe.
 */
public final class FrameStream {
    /** Most scopes followed (a stream of frames from more hosts than this is refused frame by frame). */
    public static final int MAX_SCOPES = 4096;

    /** What one scope said and what renders its events. */
    private static final class Scope {
        final WireContext context;
        final Map<Integer, Long> pendingLost = new HashMap<>();
        KernelTextRenderer renderer;
        int generation = -1;
        /** The context's clock offset and its records' layouts (by byte order), as of {@link #cachedGeneration}. */
        long clockOffset;
        KernelLayout little;
        KernelLayout big;
        int cachedGeneration = -1;

        Scope(WireContext context) {
            this.context = context;
        }

        /** Brings the clock offset and layouts up to date with the context (read once per CAPTURE or FORMAT). */
        void refresh() {
            if (cachedGeneration != context.generation()) {
                cachedGeneration = context.generation();
                clockOffset = context.clockOffset();
                int longSize = context.layout().longSize();
                little = new KernelLayout(ByteOrder.LITTLE_ENDIAN, longSize);
                big = new KernelLayout(ByteOrder.BIG_ENDIAN, longSize);
            }
        }

        KernelTextRenderer renderer() {
            if (renderer == null || generation != context.generation()) {
                generation = context.generation();
                renderer = new KernelTextRenderer(new TraceLinePrefix(context.cmdlines(), context.clock()),
                        context.layout(), context.printContext()).userSymbols(context.userSymbols());
            }
            return renderer;
        }
    }

    private final boolean applyContext;
    private final Map<Object, Scope> scopes = new LinkedHashMap<>();
    private final ContextAssembler assembler = new ContextAssembler();
    private long foreign;
    private long malformed;
    private long unknown;
    private long truncated;
    private long reserved;
    private long beforeCapture;
    private long badContext;
    private long events;
    private boolean rawClock;
    private String firstError;
    private Object lastScope;
    /** The last event frame's scope key and what {@link #scopes} gave for it (null: none). */
    private Object lastKey;
    private Scope lastKeyScope;

    /** A stream that learns its context from its own context frames (a live capture). */
    public FrameStream() {
        this.applyContext = true;
    }

    /**
     * A stream whose context was read beforehand ({@link PcapngInput}'s first pass): context frames
     * are not applied again, LOST messages still give the next event's {@code lostBefore}.
     *
     * @param known the context of every scope
     */
    FrameStream(Map<Object, WireContext> known) {
        this.applyContext = false;
        known.forEach((k, v) -> scopes.put(k, new Scope(v)));
    }

    /**
     * One pcapng packet: a bare frame (link type {@value FrameEncoder#LINKTYPE}, scope =
     * interface id) or an Ethernet frame of EtherType 0x88B5 (scope = source address); anything else
     * is counted as foreign.
     *
     * @param p      the packet
     * @param number its 1-based packet number in the file (Wireshark's {@code frame.number})
     * @return the event, or null when the packet is no event to show
     */
    public RecordInput.Event packet(PcapngPacketReader.Packet p, long number) {
        WireFrame f;
        try {
            f = PcapngInput.frame(p);
        } catch (WireFormatException e) {
            malformed(number, e);
            return null;
        }
        if (f == null) {
            foreign++;
            return null;
        }
        return frame(PcapngInput.scope(p, f), f, number);
    }

    /**
     * One bare frame (header + body, position to limit; not changed).
     *
     * @param scope  its context scope (e.g. the capture it comes from)
     * @param frame  the frame bytes
     * @param number a number for the event ({@link RecordInput.Event#frame()}), e.g. a running count
     * @return the event, or null when the frame is no event to show
     */
    public RecordInput.Event bare(Object scope, ByteBuffer frame, long number) {
        WireFrame f;
        try {
            f = WireDecoder.decodeBare(frame);
        } catch (WireFormatException e) {
            malformed(number, e);
            return null;
        }
        return frame(scope, f, number);
    }

    /** One Ethernet frame (position to limit); the scope is its source address. As {@link #bare}. */
    public RecordInput.Event ethernet(ByteBuffer frame, long number) {
        if (frame.remaining() >= Ethernet.HEADER && Ethernet.etherType(frame) != Ethernet.ETHERTYPE) {
            foreign++;
            return null;
        }
        WireFrame f;
        try {
            f = WireDecoder.decodeEthernet(frame);
        } catch (WireFormatException e) {
            malformed(number, e);
            return null;
        }
        return frame(f.source(), f, number);
    }

    private void malformed(long number, WireFormatException e) {
        malformed++;
        if (firstError == null) {
            firstError = "frame " + number + ": " + e.getMessage();
        }
    }

    /**
     * One decoded frame.
     *
     * @return the event for an EVENT frame whose format its scope described, else null
     */
    public RecordInput.Event frame(Object scope, WireFrame f, long number) {
        FrameKind kind = f.kind();
        if (kind == null) {
            reserved++;
            return null;
        }
        if (kind != FrameKind.EVENT) {
            context(scope, f);
            return null;
        }
        Scope s;
        if (scope == lastKey) { // the frame before's scope (the same Integer or source object): no lookup
            s = lastKeyScope;
        } else {
            s = scopes.get(scope);
            lastKey = scope;
            lastKeyScope = s;
        }
        WireContext c = s == null ? null : s.context;
        if (c == null || !c.hasCapture()) {
            // a stream joined late: without CAPTURE the layout and the clock offset are unknown
            beforeCapture++;
            return null;
        }
        EventFormat fmt = c.format(f.eventId());
        if (fmt == null) {
            unknown++;
            return null;
        }
        WireHeader h = f.header();
        boolean raw = h.has(WireHeader.FLAG_RAW_CLOCK);
        rawClock |= raw;
        boolean cut = h.has(WireHeader.FLAG_TRUNCATED);
        if (cut) {
            truncated++;
        }
        s.refresh();
        long traceTime = raw ? h.timeNs() : h.timeNs() - s.clockOffset;
        Long lost = s.pendingLost.isEmpty() ? null : s.pendingLost.remove(h.cpu());
        EventRecord r = new EventRecord(fmt, h.byteOrder() == ByteOrder.LITTLE_ENDIAN ? s.little : s.big, h.cpu(),
                traceTime, f.body());
        events++;
        lastScope = scope;
        return new RecordInput.Event("", r, lost == null ? 0 : lost, number, h.timeNs(), cut, s.renderer());
    }

    private void context(Object scope, WireFrame f) {
        ContextMessage.Parsed m;
        try {
            m = assembler.add(scope, f);
        } catch (WireFormatException e) {
            badContext++;
            return;
        }
        if (m == null) {
            return;
        }
        if (m.truncated()) {
            badContext++;
        }
        Scope s = scopes.get(scope);
        if (s == null) {
            if (!applyContext || scopes.size() >= MAX_SCOPES) {
                return;
            }
            s = new Scope(new WireContext());
            scopes.put(scope, s);
            lastKey = null; // a new scope: the remembered lookup may have found none for this key
            lastKeyScope = null;
        }
        int cpu = f.header().cpu();
        if (applyContext && s.context.apply(m.message(), cpu)) {
            // another capture in this scope: fragments still pending belong to the old one, and the new
            // one numbers its messages afresh (their ids would meet the old fragments)
            assembler.reset(scope);
        }
        if (m.message().kind() == FrameKind.LOST) {
            ContextMessage.Item i = m.message().first(ContextMessage.LOST_EVENTS);
            if (i != null && i.value().length == 8 && s.pendingLost.size() < 0x10000) {
                s.pendingLost.merge(cpu, i.number(), Long::sum);
            }
        }
    }

    /** The context of a scope, or null when the stream has none for it. */
    public WireContext context(Object scope) {
        Scope s = scopes.get(scope);
        return s == null ? null : s.context;
    }

    /** The renderer of a scope's events, or null when the stream has no context for it. */
    public KernelTextRenderer renderer(Object scope) {
        Scope s = scopes.get(scope);
        return s == null ? null : s.renderer();
    }

    /** The scopes seen, in order of their first context. */
    public List<Object> scopes() {
        return new ArrayList<>(scopes.keySet());
    }

    /** The scope of the event returned last (its capture: {@link #context(Object)}), or null before the first. */
    public Object lastScope() {
        return lastScope;
    }

    /** Events returned so far. */
    public long events() {
        return events;
    }

    /** True once an event frame had the raw-clock flag (its time is the trace clock, not the epoch). */
    public boolean rawClock() {
        return rawClock;
    }

    /** Frames that were not decodable tracewire frames (too short, version 1, bad fragment head). */
    public long malformed() {
        return malformed;
    }

    /** Packets that were not tracewire frames. */
    public long foreign() {
        return foreign;
    }

    /** Event frames skipped because their scope described no format for their id. */
    public long unknown() {
        return unknown;
    }

    /**
     * Lines that say what the stream lost and skipped: events the kernel lost per CPU (LOST context;
     * scopes named when there are several), truncated events, frames skipped and why, context that
     * could not be used.
     */
    public List<String> summary() {
        List<String> lines = new ArrayList<>();
        boolean several = scopes.size() > 1;
        for (Map.Entry<Object, Scope> e : scopes.entrySet()) {
            WireContext c = e.getValue().context;
            for (Map.Entry<Integer, Long> l : new TreeMap<>(c.lost()).entrySet()) {
                if (l.getValue() != 0) {
                    lines.add((several ? "interface " + e.getKey() + ": " : "") + "cpu " + l.getKey() + ": "
                            + Long.toUnsignedString(l.getValue()) + " events lost");
                }
            }
            if (c.problemCount() > 0) {
                lines.add((several ? "interface " + e.getKey() + ": " : "") + c.problemCount()
                        + " context problems, e.g. " + c.problems().get(0));
            }
        }
        if (truncated > 0) {
            lines.add(truncated + " events truncated to the maximum frame size (their last fields are missing)");
        }
        if (foreign > 0 || unknown > 0 || malformed > 0) {
            lines.add(foreign + " packets not tracewire frames, " + malformed + " malformed frames, " + unknown
                    + " frames of events without a format in the file skipped"
                    + (firstError == null ? "" : " (first: " + firstError + ")"));
        }
        if (beforeCapture > 0) {
            lines.add(beforeCapture + " event frames before their capture's CAPTURE context skipped (the stream was joined late)");
        }
        if (reserved > 0) {
            lines.add(reserved + " frames of reserved kinds skipped");
        }
        if (badContext > 0 || assembler.dropped() > 0) {
            lines.add((badContext + assembler.dropped()) + " context messages unusable (contradictory, cut or incomplete fragments)");
        }
        return lines;
    }
}
