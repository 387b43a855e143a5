package org.tracewire.dissector;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.format.KernelLayout;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.printfmt.KernelVariables;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.ContextMessages;
import org.tracewire.wire.Ethernet;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.MacAddress;
import org.tracewire.wire.WireHeader;
import org.tracewire.wire.description.EventDescription;

/**
 * Version-2 captures for the dissector's tests, written with core's codec ({@code org.tracewire.wire}) as
 * a capture writes them: a CAPTURE message first (layout, {@code HZ}, {@code vmemmap_base},
 * {@code sizeof(page)}), each event's FORMAT (format text and the {@link EventDescription} tree)
 * before its first EVENT frame, and, for the fixture records, the symbols, printk strings and tasks
 * they need, each before the first frame that uses it.
 *
 * <p>The fixture comes from a real kernel but not from a boot whose kallsyms we have: {@link #context}
 * makes up a consistent one (a symbol {@code fn_<addr>} for every address a symbol conversion asks for,
 * a string for every pointer value, a task for every pid), and the Java renderer and the Lua dissector
 * are both given it, so the Info column can be compared with the kernel text byte for byte.
 */
final class V2Capture implements AutoCloseable {
    static final long VMEMMAP_BASE = 0xffffea0000000000L;
    static final int PAGE_SIZE_OF = 64;
    static final int HZ = 250;
    static final long EPOCH_NS = 1_700_000_000_000_000_000L;

    private final PcapngWriter w;
    private final int iface;
    private final boolean ethernet;
    private final FrameEncoder enc = new FrameEncoder();
    private final KernelLayout layout;
    private final Set<Integer> described = new HashSet<>();
    private final KernelEnums enums;
    private final boolean descriptions;
    private final ByteBuffer buf = ByteBuffer.allocate(FrameEncoder.MAX_FRAME);
    private long lastTime = EPOCH_NS;
    private int written;

    /**
     * @param file         the pcapng to write (link type 162, or Ethernet when {@code ethernet})
     * @param descriptions whether FORMAT messages carry the description tree (item 4)
     */
    V2Capture(Path file, KernelLayout layout, KernelEnums enums, boolean descriptions, boolean ethernet)
            throws IOException {
        this.layout = layout;
        this.enums = enums == null ? KernelEnums.empty() : enums;
        this.descriptions = descriptions;
        this.ethernet = ethernet;
        w = PcapngWriter.create(file, new SectionInfo("test", "Linux", "tracewire dissector test"));
        iface = w.addInterface(ethernet ? InterfaceInfo.ethernet("tw0", "test", 65535)
                : InterfaceInfo.tracewire("tracewire", "test", FrameEncoder.MAX_FRAME));
    }

    /** A capture of the snapshot's layout with descriptions, pcapng encapsulation. */
    static V2Capture open(Path file) throws IOException {
        return new V2Capture(file, Tools.layout(), KernelEnums.empty(), true, false);
    }

    private boolean le() {
        return layout.byteOrder() == ByteOrder.LITTLE_ENDIAN;
    }

    /** Writes one bare frame (adding the Ethernet header in the Ethernet encapsulation). */
    void frame(ByteBuffer bare, long timeNs) throws IOException {
        ByteBuffer f = bare;
        if (ethernet) {
            f = Ethernet.wrap(bare, Frames.SRC, 65535);
        }
        w.writePacket(iface, timeNs, f, f.remaining(), 0);
        written++;
    }

    /** Writes any bytes as one packet (no Ethernet header added). */
    void raw(byte[] packet, long timeNs) throws IOException {
        w.writePacket(iface, timeNs, ByteBuffer.wrap(packet), packet.length, 0);
        written++;
    }

    /** Packets written so far: the frame number of the last one. */
    int written() {
        return written;
    }

    /** Writes a context message (fragmented as the encoder does). */
    void message(ContextMessage m, int cpu) throws IOException {
        for (ByteBuffer f : enc.context(m, cpu, le(), lastTime)) {
            frame(f, lastTime);
        }
    }

    /** The CAPTURE message with the test's constants. */
    void capture(String id) throws IOException {
        Map<String, Long> constants = new LinkedHashMap<>();
        constants.put("HZ", (long) HZ);
        constants.put("vmemmap_base", VMEMMAP_BASE);
        constants.put("sizeof(page)", (long) PAGE_SIZE_OF);
        message(ContextMessages.capture(new ContextMessages.Capture(id, "6.18.0-test", "boot", "testhost", "mono",
                EPOCH_NS, 100, layout, null, null, constants, "test", List.of())), WireHeader.NO_CPU);
    }

    /** The FORMAT message of an event (text synthesized from the parsed format when not given). */
    void format(EventFormat f) throws IOException {
        described.add(f.id());
        byte[] tree = descriptions ? EventDescription.encode(f, layout.longSize(), enums) : null;
        message(ContextMessages.format(f, formatText(f), tree, Map.of()), WireHeader.NO_CPU);
    }

    static String formatText(EventFormat f) {
        StringBuilder sb = new StringBuilder("name: ").append(f.name()).append("\nID: ").append(f.id()).append("\nformat:\n");
        for (Field x : f.allFields()) {
            sb.append("\tfield:").append(x.declaration()).append(";\toffset:").append(x.offset()).append(";\tsize:")
                    .append(x.size()).append(";\tsigned:").append(x.signed() ? 1 : 0).append(";\n");
        }
        return sb.append("\nprint fmt: ").append(f.printFmt()).append('\n').toString();
    }

    /** One EVENT frame of a record (its FORMAT first when not yet sent); time = epoch + the record's. */
    void event(EventRecord r) throws IOException {
        if (!described.contains(r.format().id())) {
            format(r.format());
        }
        lastTime = EPOCH_NS + r.timestampNs();
        buf.clear();
        enc.event(r.layout().byteOrder(), r.payload(), r.cpu(), lastTime, false, buf);
        buf.flip();
        frame(buf, lastTime);
    }

    @Override
    public void close() throws IOException {
        w.close();
    }

    // ------------------------------------------------------------------ a made-up context for the fixture

    /**
     * The context of the fixture records: symbols, printk strings and tasks, and the Java print
     * context that says the same.
     *
     * @param symbols address → symbol (name {@code fn_<hex>}, start 16 bytes below, size 0x40)
     * @param strings address → printk string
     * @param tasks   pid → comm
     */
    record Context(Map<Long, SymbolResolver.Symbol> symbols, Map<Long, String> strings, Map<Integer, String> tasks,
                   PrintContext print) {
        KernelTextRenderer renderer(KernelLayout layout) {
            return new KernelTextRenderer(null, layout, print);
        }
    }

    static PrintContext printContext(Map<Long, SymbolResolver.Symbol> symbols, Map<Long, String> strings,
                                     KernelEnums enums) {
        return new PrintContext(symbols::get, new PrintkFormats(strings), HZ, enums,
                new KernelVariables(Map.of("vmemmap_base", VMEMMAP_BASE), Map.of("page", PAGE_SIZE_OF)));
    }

    /** Makes up the context for records (see the class comment). */
    static Context context(List<EventRecord> records, KernelLayout layout, KernelEnums enums) {
        Map<Long, SymbolResolver.Symbol> symbols = new HashMap<>();
        Map<Long, String> strings = new HashMap<>();
        Map<Integer, String> tasks = new TreeMap<>();
        for (EventRecord r : records) {
            tasks.putIfAbsent(r.pid(), "task" + r.pid());
            for (Field f : r.format().fields()) {
                if (f.kind() == FieldKind.POINTER && (f.size() == 8 || f.size() == 4)) {
                    long v = r.integer(f);
                    if (v != 0) {
                        strings.putIfAbsent(v, "str_" + Long.toHexString(v));
                    }
                }
            }
        }
        // every address a symbol conversion looks up gets a symbol: ask the renderer
        SymbolResolver recorder = address -> {
            long start = address - 16;
            return symbols.computeIfAbsent(address, a -> new SymbolResolver.Symbol("fn_" + Long.toHexString(a), start,
                    0x40, (a & 0x100) != 0 ? "mod" + (a & 0xf) : null));
        };
        PrintContext probe = new PrintContext(recorder, new PrintkFormats(strings), HZ, enums,
                new KernelVariables(Map.of("vmemmap_base", VMEMMAP_BASE), Map.of("page", PAGE_SIZE_OF)));
        KernelTextRenderer k = new KernelTextRenderer(null, layout, probe);
        for (EventRecord r : records) {
            k.body(r);
        }
        Map<Long, SymbolResolver.Symbol> fixed = Map.copyOf(symbols);
        return new Context(fixed, Map.copyOf(strings), tasks, printContext(fixed, strings, enums));
    }

    /**
     * Writes records with the context they need: CAPTURE, then before each record the SYMBOLS
     * (symbols and strings of its pointer values) and PROCESS (its pid) not yet sent.
     */
    void records(List<EventRecord> records, Context cx, Map<Integer, Long> lostBefore) throws IOException {
        capture("test-capture");
        Set<Long> sentAddr = new HashSet<>();
        Set<Long> sentStr = new HashSet<>();
        Set<Integer> sentPid = new HashSet<>();
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            ContextMessage.Builder sym = ContextMessage.builder(FrameKind.SYMBOLS);
            for (Field f : r.format().fields()) {
                if (f.kind() != FieldKind.POINTER && !(f.kind() == FieldKind.INTEGER && f.size() == 8)) {
                    continue;
                }
                long v;
                try {
                    v = r.integer(f);
                } catch (RuntimeException e) {
                    continue;
                }
                for (long a : new long[] {v, v - 1}) {
                    if (!sentAddr.contains(a)) {
                        SymbolResolver.Symbol s = cx.symbols().get(a);
                        if (s != null) {
                            sentAddr.add(a);
                            sym.symbol(a, s.start(), s.size(), s.module() == null ? s.name() : s.name() + " [" + s.module() + "]");
                        }
                    }
                }
                if (cx.strings().containsKey(v) && sentStr.add(v)) {
                    sym.printk(v, cx.strings().get(v));
                }
            }
            if (!sym.isEmpty()) {
                message(sym.build(), WireHeader.NO_CPU);
            }
            if (sentPid.add(r.pid())) {
                message(ContextMessage.builder(FrameKind.PROCESS).task(r.pid(), r.pid(), cx.tasks().get(r.pid())).build(),
                        WireHeader.NO_CPU);
            }
            Long lost = lostBefore == null ? null : lostBefore.get(i);
            if (lost != null) {
                message(ContextMessages.lost(lost), r.cpu());
            }
            event(r);
        }
    }

    /** Frame numbers (1-based) of the EVENT frames of {@link #records}, in record order, from a tshark listing. */
    static List<Integer> eventFrames(List<String> kinds) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < kinds.size(); i++) {
            if (kinds.get(i).equals("0")) {
                out.add(i + 1);
            }
        }
        return out;
    }

    static MacAddress source() {
        return Frames.SRC;
    }
}
