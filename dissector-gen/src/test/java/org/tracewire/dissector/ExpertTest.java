package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.Prerequisites;
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
 * Expert infos, context handling and the generic fallback, one frame per case (a plugin generated for
 * {@code sched:sched_switch} only, and the runtime alone): unknown events, events known only from
 * their FORMAT, frames of wire format version 1 and of unknown versions, reserved kinds, every
 * malformed case of docs/wire-format.md §8, truncation, LOST, fragmented and incomplete context
 * messages, a capture id change, broken description trees, scopes (Ethernet source MACs, pcapng
 * interfaces), a comm change seen again on a second pass, and the caps on context memory.
 */
@Tag("tshark")
class ExpertTest {
    static Path plugin;
    static Path pcap;
    /** What each case expects: frame number (1-based) → case name. */
    static final Map<String, Integer> AT = new LinkedHashMap<>();
    static EventRecord switchRec;
    static EventRecord wakeupRec;
    static EventRecord wakingRec;
    static EventRecord otherRec;

    /** A bare frame: the 16-byte header (big-endian) and a body. */
    static byte[] bare(int version, int kind, int flags, int cpu, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(16 + body.length);
        b.put((byte) version).put((byte) (kind | flags)).putShort((short) cpu).putInt(0).putLong(V2Capture.EPOCH_NS)
                .put(body);
        return b.array();
    }

    static byte[] fragment(int id, int index, int count, int length, byte[] bytes) {
        return ByteBuffer.allocate(12 + bytes.length).putInt(id).putShort((short) index).putShort((short) count)
                .putInt(length).put(bytes).array();
    }

    /** A PROCESS message naming tasks 1000..1199 "RUN-task-PID" (the same length for every run name of one letter). */
    static byte[] tasks(String run) {
        ContextMessage.Builder b = ContextMessage.builder(FrameKind.PROCESS);
        for (int pid = 1000; pid < 1200; pid++) {
            b.task(pid, pid, run + "-task-" + pid);
        }
        return b.build().toBytes();
    }

    static byte[] payload(EventRecord r) {
        byte[] p = new byte[r.payload().remaining()];
        r.payload().duplicate().get(p);
        return p;
    }

    @BeforeAll
    static void setUp() throws Exception {
        Prerequisites.requireTool("tshark");
        DissectorGenerator.Result r = new DissectorGenerator(Tools.catalog(), Tools.layout(), "snapshots/linux-6.18")
                .generate(List.of(Tools.catalog().byName("sched:sched_switch")));
        plugin = Tools.tempDir().resolve("switch-only.lua");
        Files.writeString(plugin, r.lua());
        for (EventRecord rec : Frames.fixtureRecords()) {
            String n = rec.format().fullName();
            if (switchRec == null && n.equals("sched:sched_switch")) {
                switchRec = rec;
            } else if (wakeupRec == null && n.equals("sched:sched_wakeup")) {
                wakeupRec = rec;
            } else if (wakingRec == null && n.equals("sched:sched_waking")) {
                wakingRec = rec;
            } else if (otherRec == null && n.equals("kmem:kmem_cache_free")) {
                otherRec = rec;
            }
        }
        pcap = Tools.tempDir().resolve("experts.pcapng");
        try (V2Capture c = V2Capture.open(pcap)) {
            c.capture("a");
            c.format(switchRec.format());
            c.event(switchRec);
            AT.put("switch known", c.written());
            // sched_wakeup: no FORMAT yet and not in the tables
            c.raw(bare(2, 0, WireHeader.FLAG_LITTLE_ENDIAN, 0, payload(wakeupRec)), 1);
            AT.put("unknown, no context", c.written());
            c.format(wakeupRec.format());
            c.event(wakeupRec);
            AT.put("wakeup from context", c.written());
            byte[] p = payload(otherRec);
            p[0] = 0x0f;
            p[1] = 0x27; // id 9999
            c.raw(bare(2, 0, WireHeader.FLAG_LITTLE_ENDIAN, 0, p), 1);
            AT.put("unknown id", c.written());
            c.raw(new byte[] {'T', 'W', 1, 0, 0, 48, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 1);
            AT.put("version 1", c.written());
            c.raw(bare(3, 0, 0, 0, new byte[8]), 1);
            AT.put("version 3", c.written());
            c.raw(bare(2, 7, 0, 0, new byte[20]), 1);
            AT.put("reserved kind", c.written());
            c.raw(new byte[] {2, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 1);
            AT.put("short header", c.written());
            c.raw(bare(2, 0, WireHeader.FLAG_LITTLE_ENDIAN, 0, new byte[4]), 1);
            AT.put("short event", c.written());
            c.raw(bare(2, 2, 0, WireHeader.NO_CPU, new byte[8]), 1);
            AT.put("short context", c.written());
            c.raw(bare(2, 2, 0, WireHeader.NO_CPU, fragment(77, 3, 3, 4, new byte[4])), 1);
            AT.put("fragment index", c.written());
            c.raw(bare(2, 2, 0, WireHeader.NO_CPU, fragment(78, 0, 1, 2, new byte[4])), 1);
            AT.put("fragment longer than message", c.written());
            byte[] sw = payload(switchRec);
            c.raw(bare(2, 0, WireHeader.FLAG_LITTLE_ENDIAN | WireHeader.FLAG_TRUNCATED, 0,
                    Arrays.copyOf(sw, 30)), 1);
            AT.put("truncated", c.written());
            c.message(ContextMessages.lost(42), 1);
            AT.put("lost", c.written());
            // a FORMAT in three fragments (a long enum item)
            ContextMessage big = ContextMessages.format(wakingRec.format(), V2Capture.formatText(wakingRec.format()),
                    EventDescription.encode(wakingRec.format(), 8, null), Map.of("PAD_" + "X".repeat(3000), 1L));
            c.message(big, WireHeader.NO_CPU);
            c.event(wakingRec);
            AT.put("waking from fragments", c.written());
            // a FORMAT message missing its second fragment: the event stays unknown
            byte[] msg = ContextMessages.format(otherRec.format(), "x".repeat(2000),
                    EventDescription.encode(otherRec.format(), 8, null), Map.of()).toBytes();
            c.raw(bare(2, 2, 0, WireHeader.NO_CPU, fragment(500, 0, 2, msg.length,
                    Arrays.copyOf(msg, FrameEncoder.FRAGMENT_BYTES))), 1);
            c.raw(bare(2, 0, WireHeader.FLAG_LITTLE_ENDIAN, 0, payload(otherRec)), 1);
            AT.put("incomplete format", c.written());
            // a FORMAT whose description tree is garbage: unknown, said why
            EventFormat stat = Tools.catalog().byName("sched:sched_stat_runtime");
            c.message(ContextMessages.format(stat, "x", new byte[] {5, 0, 0, 0, 9}, Map.of()), WireHeader.NO_CPU);
            byte[] sp = new byte[48];
            sp[0] = (byte) stat.id();
            sp[1] = (byte) (stat.id() >> 8);
            c.raw(bare(2, 0, WireHeader.FLAG_LITTLE_ENDIAN, 0, sp), 1);
            AT.put("bad description", c.written());
            // capture "a" ends in the middle of a PROCESS message of several fragments (id 600) ...
            byte[] oldTasks = tasks("a");
            int nf = (oldTasks.length + FrameEncoder.FRAGMENT_BYTES - 1) / FrameEncoder.FRAGMENT_BYTES;
            c.raw(bare(2, 4, 0, WireHeader.NO_CPU, fragment(600, 0, nf, oldTasks.length,
                    Arrays.copyOf(oldTasks, FrameEncoder.FRAGMENT_BYTES))), 1);
            // another capture id: the context is forgotten
            c.capture("b");
            c.event(switchRec);
            AT.put("switch after reset", c.written());
            c.raw(bare(2, 0, WireHeader.FLAG_LITTLE_ENDIAN, 0, payload(wakeupRec)), 1);
            AT.put("wakeup after reset", c.written());
            // ... and capture "b" numbers its messages afresh: its own PROCESS message 600, the same length
            byte[] newTasks = tasks("b");
            for (int i = 0; i < nf; i++) {
                int from = i * FrameEncoder.FRAGMENT_BYTES;
                c.raw(bare(2, 4, 0, WireHeader.NO_CPU, fragment(600, i, nf, newTasks.length, Arrays.copyOfRange(
                        newTasks, from, Math.min(newTasks.length, from + FrameEncoder.FRAGMENT_BYTES)))), 1);
            }
            byte[] ev = payload(switchRec);
            ByteBuffer.wrap(ev).order(ByteOrder.LITTLE_ENDIAN).putInt(4, 1005); // common_pid
            c.raw(bare(2, 0, WireHeader.FLAG_LITTLE_ENDIAN, 0, ev), 1);
            AT.put("task of the new capture", c.written());
            // comm of a pid changes between two of its events
            int pid = switchRec.pid();
            c.message(ContextMessage.builder(FrameKind.PROCESS).task(pid, 4000, "before").build(), WireHeader.NO_CPU);
            c.raw(bare(2, 0, WireHeader.FLAG_LITTLE_ENDIAN, 0, payload(switchRec)), 1);
            AT.put("comm before", c.written());
            c.message(ContextMessage.builder(FrameKind.PROCESS).task(pid, 4000, "after").build(), WireHeader.NO_CPU);
            c.raw(bare(2, 0, WireHeader.FLAG_LITTLE_ENDIAN, 0, payload(switchRec)), 1);
            AT.put("comm after", c.written());
        }
    }

    static List<String> frames(Path plugin, Path pcap, String filter, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of(extra));
        args.addAll(List.of("-Y", filter, "-T", "fields", "-e", "frame.number"));
        Tools.Run r = Tools.tshark(plugin, pcap, args.toArray(String[]::new));
        assertEquals(0, r.exit(), r.err());
        return r.out().lines().filter(l -> !l.isBlank()).toList();
    }

    static List<String> at(String... cases) {
        List<String> out = new ArrayList<>();
        for (String c : cases) {
            out.add(String.valueOf(AT.get(c)));
        }
        return out.stream().sorted(Comparator.comparingInt(Integer::parseInt)).toList();
    }

    @Test
    void expertsAreSetOnTheRightFrames() throws Exception {
        assertEquals(at("unknown, no context", "unknown id", "incomplete format", "bad description", "wakeup after reset"),
                frames(plugin, pcap, "tracewire.expert.unknown_event"));
        assertEquals(at("version 1", "version 3"), frames(plugin, pcap, "tracewire.expert.version"));
        assertEquals(at("reserved kind"), frames(plugin, pcap, "tracewire.expert.reserved_kind"));
        assertEquals(at("short header", "short event", "short context", "fragment index", "fragment longer than message"),
                frames(plugin, pcap, "tracewire.expert.malformed"));
        assertEquals(at("truncated"), frames(plugin, pcap, "tracewire.expert.truncated"));
        assertEquals(at("lost"), frames(plugin, pcap, "tracewire.expert.lost"));
        assertEquals(at("lost"), frames(plugin, pcap, "tracewire.lost == 42"));
        assertEquals(at("switch after reset", "task of the new capture", "comm before", "comm after"),
                frames(plugin, pcap, "tracewire.expert.no_context"));
        assertEquals(List.of(), frames(plugin, pcap, "_ws.lua.error || tracewire.expert.internal"));
        assertEquals(at("switch known", "wakeup from context", "truncated", "waking from fragments", "switch after reset",
                "task of the new capture", "comm before", "comm after"),
                frames(plugin, pcap, "tracewire.kind == 0 && tracewire.event"));
    }

    @Test
    void textsOfTheCases() throws Exception {
        Tools.Run r = Tools.tshark(plugin, pcap, "-T", "fields", "-e", "frame.number", "-e", "_ws.col.Info",
                "-e", "tracewire.comm");
        Map<Integer, String[]> rows = new LinkedHashMap<>();
        r.out().lines().forEach(l -> rows.put(Integer.parseInt(l.split("\t")[0]), l.split("\t", -1)));
        var kernel = new KernelTextRenderer(null, Tools.layout(),
                PrintContext.empty());
        assertEquals(kernel.body(wakeupRec), rows.get(AT.get("wakeup from context"))[1]);
        assertEquals(kernel.body(wakingRec), rows.get(AT.get("waking from fragments"))[1]);
        assertEquals(kernel.body(switchRec), rows.get(AT.get("switch after reset"))[1]);
        assertTrue(rows.get(AT.get("unknown id"))[1].startsWith("event 9999: ARRAY["), rows.get(AT.get("unknown id"))[1]);
        assertTrue(rows.get(AT.get("version 1"))[1].contains("version 1"));
        assertEquals("LOST 42 events on CPU 1", rows.get(AT.get("lost"))[1]);
        assertEquals("before", rows.get(AT.get("comm before"))[2]);
        assertEquals("after", rows.get(AT.get("comm after"))[2]);
        // the new capture's PROCESS message, although capture "a" left a fragment of its message of that id
        assertEquals("b-task-1005", rows.get(AT.get("task of the new capture"))[2]);
        // a second pass sees the comm each frame had when it was first dissected
        Tools.Run two = Tools.tshark(plugin, pcap, "-2", "-Y", "tracewire.kind == 0", "-T", "fields", "-e",
                "frame.number", "-e", "tracewire.comm");
        Map<String, String> comms = new LinkedHashMap<>();
        two.out().lines().forEach(l -> comms.put(l.split("\t")[0], l.split("\t", -1)[1]));
        assertEquals("before", comms.get(String.valueOf(AT.get("comm before"))));
        assertEquals("after", comms.get(String.valueOf(AT.get("comm after"))));
    }

    @Test
    void scopesKeepTheirOwnContext() throws Exception {
        // two hosts on one network (Ethernet sources) and two interfaces of a merged pcapng each describe
        // event id 372 differently: every frame decodes with its own host's FORMAT
        EventFormat sw = switchRec.format();
        EventFormat wk = wakeupRec.format();
        EventFormat wkAs372 = new EventFormat(wk.system(), wk.name(), sw.id(), wk.commonFields(), wk.fields(), wk.printFmt());
        byte[] wakeAs372 = payload(wakeupRec);
        wakeAs372[0] = (byte) sw.id();
        wakeAs372[1] = (byte) (sw.id() >> 8);
        MacAddress other = MacAddress.forHost("another host");
        Path eth = Tools.tempDir().resolve("scopes-ethernet.pcapng");
        Path two = Tools.tempDir().resolve("scopes-interfaces.pcapng");
        try (PcapngWriter e = PcapngWriter.create(eth, new SectionInfo("t", "Linux", "t"));
             PcapngWriter p = PcapngWriter.create(two, new SectionInfo("t", "Linux", "t"))) {
            int ie = e.addInterface(InterfaceInfo.ethernet("tw0", "t", 65535));
            int i0 = p.addInterface(InterfaceInfo.tracewire("a", "t", 65535));
            int i1 = p.addInterface(InterfaceInfo.tracewire("b", "t", 65535));
            FrameEncoder enc = new FrameEncoder();
            List<ByteBuffer> fa = enc.context(ContextMessages.format(sw, "x", EventDescription.encode(sw, 8, null), Map.of()),
                    WireHeader.NO_CPU, true, 1);
            List<ByteBuffer> fb = enc.context(ContextMessages.format(wkAs372, "x", EventDescription.encode(wkAs372, 8, null),
                    Map.of()), WireHeader.NO_CPU, true, 1);
            for (ByteBuffer f : fa) {
                write(e, ie, Ethernet.wrap(f.duplicate(), Frames.SRC, 65535));
                write(p, i0, f.duplicate());
            }
            for (ByteBuffer f : fb) {
                write(e, ie, Ethernet.wrap(f.duplicate(), other, 65535));
                write(p, i1, f.duplicate());
            }
            for (int k = 0; k < 2; k++) {
                ByteBuffer a = ByteBuffer.wrap(bare(2, 0, WireHeader.FLAG_LITTLE_ENDIAN, 0, payload(switchRec)));
                ByteBuffer b = ByteBuffer.wrap(bare(2, 0, WireHeader.FLAG_LITTLE_ENDIAN, 0, wakeAs372));
                write(e, ie, Ethernet.wrap(a.duplicate(), Frames.SRC, 65535));
                write(e, ie, Ethernet.wrap(b.duplicate(), other, 65535));
                write(p, i0, a.duplicate());
                write(p, i1, b.duplicate());
            }
        }
        var kernel = new KernelTextRenderer(null, Tools.layout(),
                PrintContext.empty());
        String a = kernel.body(switchRec);
        String b = kernel.body(wakeupRec);
        for (Path f : List.of(eth, two)) {
            for (Path pl : List.of(plugin, Tools.runtimeOnly())) {
                Tools.Run r = Tools.tshark(pl, f, "-Y", "tracewire.kind == 0", "-T", "fields", "-e", "_ws.col.Info");
                assertEquals(List.of(a, b, a, b), r.out().lines().toList(), f + " with " + pl);
            }
        }
    }

    @Test
    void etherTypeIsAPreference() throws Exception {
        Path eth = Tools.tempDir().resolve("ethertype.pcapng");
        try (PcapngWriter w = PcapngWriter.create(eth, new SectionInfo("t", "Linux", "t"))) {
            int i = w.addInterface(InterfaceInfo.ethernet("t", "t", 65535));
            ByteBuffer f = Ethernet.wrap(ByteBuffer.wrap(bare(2, 0, WireHeader.FLAG_LITTLE_ENDIAN, 0, payload(switchRec))),
                    Frames.SRC, 65535);
            f.put(13, (byte) 0xb6);
            w.writePacket(i, 1, f, f.remaining(), 0);
        }
        assertEquals(List.of(), frames(plugin, eth, "tracewire"));
        assertEquals(List.of("1"), frames(plugin, eth, "tracewire", "-o", "tracewire.ethertype:34998")); // 0x88B6
    }

    @Test
    void contextMemoryIsCapped() throws Exception {
        // 8,300 FORMAT messages (the cap is 8,192 per scope) and 300,000 symbols (cap 262,144)
        Path caps = Tools.tempDir().resolve("caps.pcapng");
        int[] swFormat = {0};
        EventFormat sw = switchRec.format();
        try (V2Capture c = V2Capture.open(caps)) {
            c.capture("caps");
            for (int id = 1; id <= 8300; id++) {
                c.message(ContextMessage.builder(FrameKind.FORMAT).u16(ContextMessage.FORMAT_ID, id)
                        .text(ContextMessage.FORMAT_NAME, "flood:e" + id).build(), WireHeader.NO_CPU);
            }
            for (int m = 0; m < 3; m++) {
                ContextMessage.Builder b = ContextMessage.builder(FrameKind.SYMBOLS);
                for (int i = 0; i < 100_000; i++) {
                    long a = 0xffffffff81000000L + (m * 100_000L + i) * 16;
                    b.symbol(a, a, 16, "f" + i);
                }
                c.message(b.build(), WireHeader.NO_CPU);
            }
            c.format(sw);
            swFormat[0] = c.written();
            c.event(switchRec);
        }
        // one tshark pass (300,000 symbols take ~9 s of CPU to read each time): the frames with any
        // of the experts looked for, each expert in its own column ("1" where it is set)
        Tools.Run r = Tools.tshark(Tools.runtimeOnly(), caps, "-Y", "tracewire.expert.context_cap || "
                + "tracewire.expert.format_changed || _ws.lua.error || tracewire.expert.internal", "-T", "fields",
                "-e", "frame.number", "-e", "tracewire.kind", "-e", "tracewire.expert.context_cap",
                "-e", "tracewire.expert.format_changed", "-e", "_ws.lua.error", "-e", "tracewire.expert.internal");
        assertEquals(0, r.exit(), r.err());
        List<String> kinds = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (String line : r.out().lines().toList()) {
            String[] c = line.split("\t", -1);
            if (!c[2].isEmpty()) {
                kinds.add(c[1]);
            }
            if (!c[3].isEmpty()) {
                changed.add(c[0]);
            }
            if (!c[4].isEmpty() || !c[5].isEmpty()) {
                errors.add(c[0]);
            }
        }
        assertEquals(8300 - 8192 + 1, kinds.size(), "each FORMAT beyond the cap (the event's own too) and the third SYMBOLS "
                + "message: " + kinds.size());
        assertEquals(1, kinds.stream().filter(k -> k.equals("3")).count());
        assertEquals(List.of(String.valueOf(swFormat[0])), changed,
                "the FORMAT of the real event replaces a flood FORMAT of its id");
        assertEquals(List.of(), errors);
    }

    static void write(PcapngWriter w, int iface, ByteBuffer frame) throws IOException {
        w.writePacket(iface, V2Capture.EPOCH_NS, frame, frame.remaining(), 0);
    }
}
