package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.testing.Prerequisites;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.ContextMessages;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireDecoder;
import org.tracewire.wire.WireFormatException;
import org.tracewire.wire.WireHeader;
import org.tracewire.wire.description.EventDescription;

/**
 * Hostile input (seeded, about 16,000 frames): context frames and event frames of real records,
 * mutated: byte flips, cuts and extensions, fragment heads with huge or contradictory counts and
 * lengths, items running past their message, unknown kinds, FORMAT messages that contradict each
 * other, description trees that are corrupted, nested 200 deep, claim 2^31 entries or carry values of
 * the wrong types, symbol floods; interleaved with valid context so that events are decoded through the
 * mutated descriptions. Through tshark with the all-events plugin and with the runtime alone: no Lua
 * error ({@code _ws.lua.error}, {@code tracewire.expert.internal}) on any frame, every frame printed, and
 * every frame core's {@link WireDecoder} rejects carries the malformed or version expert info.
 */
@Tag("tshark")
class FuzzTest {
    static final int MIN_FRAMES = 16_000;
    static Path pcap;
    static final Set<Integer> REJECTED = new HashSet<>();
    static int contextFrames;
    static int eventFrames;
    static int mutated;

    @BeforeAll
    static void write() throws Exception {
        Prerequisites.requireTool("tshark");
        Random rnd = new Random(Long.getLong("tracewire.fuzz.seed", 0x7357_88b5L));
        List<EventRecord> records = Frames.fixtureRecords();
        List<byte[]> frames = new ArrayList<>();
        FrameEncoder enc = new FrameEncoder();
        ByteBuffer buf = ByteBuffer.allocate(FrameEncoder.MAX_FRAME);
        List<EventFormat> formats = new ArrayList<>();
        for (EventRecord r : records.subList(0, 3000)) {
            if (!formats.contains(r.format())) {
                formats.add(r.format());
            }
        }
        add(frames, enc.context(ContextMessages.capture(new ContextMessages.Capture("fuzz", "k", "b", "h", "mono", 0, 0,
                Tools.layout(), null, null, Map.of("HZ", 250L, "vmemmap_base", V2Capture.VMEMMAP_BASE, "sizeof(page)", 64L),
                "t", List.of())), WireHeader.NO_CPU, true, 1));
        while (frames.size() < MIN_FRAMES) {
            int what = rnd.nextInt(10);
            if (what < 4) {
                // an event frame, mutated or not
                EventRecord r = records.get(rnd.nextInt(records.size()));
                buf.clear();
                enc.event(r.layout().byteOrder(), r.payload(), r.cpu(), r.timestampNs(), false, buf);
                byte[] f = Arrays.copyOf(buf.array(), buf.position());
                if (rnd.nextInt(3) != 0) {
                    f = mutate(rnd, f);
                    mutated++;
                }
                frames.add(f);
                eventFrames++;
            } else if (what < 7) {
                // a FORMAT: valid, contradicting another event's, or with a mutated description tree
                EventFormat f = formats.get(rnd.nextInt(formats.size()));
                EventFormat as = rnd.nextInt(4) == 0 ? formats.get(rnd.nextInt(formats.size())) : f;
                byte[] tree = EventDescription.encode(as, 8, KernelEnums.empty());
                int m = rnd.nextInt(4);
                if (m == 1) {
                    tree = mutate(rnd, tree, 0);
                    mutated++;
                } else if (m == 2) {
                    tree = hostileTree(rnd, f.id());
                    mutated++;
                }
                ContextMessage msg = ContextMessage.builder(FrameKind.FORMAT).u16(ContextMessage.FORMAT_ID, f.id())
                        .text(ContextMessage.FORMAT_NAME, as.fullName()).bytes(ContextMessage.FORMAT_DESCRIPTION, tree)
                        .text(ContextMessage.FORMAT_ENUMS, rnd.nextBoolean() ? "A=1\nB=-2\nC=0x10\nD=zz\n=\n" : null).build();
                addMutated(frames, enc.context(msg, WireHeader.NO_CPU, true, 1), rnd);
            } else if (what < 8) {
                // SYMBOLS / PROCESS / LOST / CAPTURE, sometimes floods, items cut short
                ContextMessage.Builder b;
                int k = rnd.nextInt(5);
                if (k == 0) {
                    b = ContextMessage.builder(FrameKind.SYMBOLS);
                    int n = rnd.nextInt(40) == 0 ? 5_000 : 1 + rnd.nextInt(20);
                    for (int i = 0; i < n; i++) {
                        long a = 0xffffffff81000000L + rnd.nextInt(1 << 20);
                        b.symbol(a, a - rnd.nextInt(64), rnd.nextInt(256), "f" + i + (rnd.nextBoolean() ? " [m]" : ""));
                        if (rnd.nextInt(4) == 0) {
                            b.printk(a, "s%d");
                        }
                        if (rnd.nextInt(8) == 0) {
                            b.bytes(ContextMessage.SYMBOL_UNKNOWN, new byte[rnd.nextInt(12)]);
                        }
                    }
                } else if (k == 1) {
                    b = ContextMessage.builder(FrameKind.PROCESS);
                    for (int i = 0; i < 1 + rnd.nextInt(30); i++) {
                        b.task(rnd.nextInt(40_000) - 5, rnd.nextInt(), "c" + rnd.nextInt(100));
                    }
                    b.bytes(ContextMessage.PROCESS_TASK, new byte[rnd.nextInt(8)]);
                } else if (k == 2) {
                    b = ContextMessage.builder(FrameKind.LOST).u64(ContextMessage.LOST_EVENTS, rnd.nextLong());
                } else if (k == 3) {
                    b = ContextMessage.builder(FrameKind.CAPTURE).text(ContextMessage.CAPTURE_ID, rnd.nextInt(6) == 0 ? "fuzz2" : "fuzz")
                            .u8(ContextMessage.CAPTURE_LONG_SIZE, rnd.nextBoolean() ? 8 : rnd.nextInt(256))
                            .text(ContextMessage.CAPTURE_CONSTANTS, "HZ=" + rnd.nextInt(2000) + "\nvmemmap_base=0x"
                                    + Long.toHexString(rnd.nextLong()) + "\nsizeof(page)=" + rnd.nextInt(200)
                                    + "\nx=99999999999999999999999\n");
                } else {
                    b = ContextMessage.builder(FrameKind.CAPTURE);
                    for (int i = 0; i < 10; i++) {
                        byte[] v = new byte[rnd.nextInt(40)];
                        rnd.nextBytes(v);
                        b.bytes(rnd.nextInt(20), v);
                    }
                }
                addMutated(frames, enc.context(b.build(), k == 2 ? rnd.nextInt(4) : WireHeader.NO_CPU, true, 1), rnd);
            } else if (what == 8) {
                mutated++;
                // random bytes, sometimes behind a version-2 header of any kind
                byte[] f = new byte[rnd.nextInt(120)];
                rnd.nextBytes(f);
                if (f.length > 2 && rnd.nextBoolean()) {
                    f[0] = 2;
                    f[1] = (byte) rnd.nextInt(256);
                }
                frames.add(f);
                contextFrames++;
            } else {
                mutated++;
                // a fragment head lying about the message
                byte[] body = new byte[12 + rnd.nextInt(100)];
                rnd.nextBytes(body);
                ByteBuffer h = ByteBuffer.wrap(body);
                h.putInt(0, rnd.nextInt(4)).putShort(4, (short) rnd.nextInt(4)).putShort(6, (short) (rnd.nextBoolean()
                        ? rnd.nextInt(4) : 0xffff)).putInt(8, rnd.nextBoolean() ? body.length - 12 : rnd.nextInt());
                frames.add(bare(1 + rnd.nextInt(15), body));
                contextFrames++;
            }
        }
        pcap = Tools.tempDir().resolve("fuzz-v2.pcapng");
        try (PcapngWriter w = PcapngWriter.create(pcap, new SectionInfo("test", "Linux", "tracewire fuzz"))) {
            int ifc = w.addInterface(InterfaceInfo.tracewire("fuzz", "fuzz frames", 65535));
            for (int i = 0; i < frames.size(); i++) {
                byte[] f = frames.get(i);
                w.writePacket(ifc, 1_000_000_000L + i, ByteBuffer.wrap(f), f.length, 0);
                try {
                    WireDecoder.decodeBare(f);
                } catch (WireFormatException e) {
                    REJECTED.add(i + 1);
                }
            }
        }
    }

    static byte[] bare(int kind, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(16 + body.length);
        b.put((byte) 2).put((byte) (kind | WireHeader.FLAG_LITTLE_ENDIAN)).putShort((short) 0xffff).putInt(0).putLong(1)
                .put(body);
        return b.array();
    }

    static void add(List<byte[]> frames, List<ByteBuffer> fs) {
        for (ByteBuffer f : fs) {
            byte[] b = new byte[f.remaining()];
            f.get(b);
            frames.add(b);
        }
    }

    /** The frames of a message, some of them mutated, dropped, repeated or reordered. */
    static void addMutated(List<byte[]> frames, List<ByteBuffer> fs, Random rnd) {
        List<byte[]> list = new ArrayList<>();
        add(list, fs);
        if (list.size() > 1 && rnd.nextInt(5) == 0) {
            list.remove(rnd.nextInt(list.size()));
        }
        if (list.size() > 1 && rnd.nextInt(5) == 0) {
            Collections.swap(list, 0, list.size() - 1);
        }
        for (byte[] f : list) {
            if (rnd.nextInt(2) == 0) {
                f = mutate(rnd, f);
                mutated++;
            }
            frames.add(f);
            contextFrames++;
            if (rnd.nextInt(10) == 0) {
                frames.add(f);
                contextFrames++;
            }
        }
    }

    /** Byte flips, a cut, an extension, or new header bytes. */
    static byte[] mutate(Random rnd, byte[] f) {
        return mutate(rnd, f, 16);
    }

    static byte[] mutate(Random rnd, byte[] f, int from) {
        switch (rnd.nextInt(5)) {
            case 0 -> {
                for (int i = 0; i < 1 + rnd.nextInt(6); i++) {
                    int at = rnd.nextInt(f.length);
                    f[at] ^= (byte) (1 << rnd.nextInt(8));
                }
                return f;
            }
            case 1 -> {
                return Arrays.copyOf(f, rnd.nextInt(f.length + 1));
            }
            case 2 -> {
                return Arrays.copyOf(f, f.length + 1 + rnd.nextInt(64));
            }
            case 3 -> {
                if (f.length > from + 12) {
                    // a 32-bit word (counts, lengths, fragment head) set to something large
                    int at = from + rnd.nextInt(f.length - from - 4);
                    int v = switch (rnd.nextInt(3)) {
                        case 0 -> Integer.MAX_VALUE;
                        case 1 -> -1;
                        default -> rnd.nextInt(1 << 20);
                    };
                    ByteBuffer.wrap(f).putInt(at, v);
                }
                return f;
            }
            default -> {
                if (f.length >= 2) {
                    f[1] = (byte) rnd.nextInt(256);
                }
                return f;
            }
        }
    }

    /** A description tree built to hurt: deep, huge claims, wrong types, bad nodes. */
    static byte[] hostileTree(Random rnd, int id) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream o = new DataOutputStream(bytes);
        switch (rnd.nextInt(6)) {
            case 0 -> { // 200 nested tables
                for (int i = 0; i < 200; i++) {
                    o.writeByte(5);
                    o.writeInt(1);
                }
                o.writeByte(3);
            }
            case 1 -> { // a table claiming 2^31 - 1 values
                o.writeByte(5);
                o.writeInt(Integer.MAX_VALUE);
                o.writeByte(2);
                o.writeLong(1);
            }
            case 2 -> { // fields of the wrong types, print a number
                table(o, Map.of("id", (long) id, "system", "s", "name", "n", "fields", "notatable", "print", 5L));
            }
            case 3 -> { // a field with huge offset/size, bad kind; print with bad nodes
                o.writeByte(5);
                o.writeInt(0);
                o.writeInt(5);
                key(o, "id");
                o.writeByte(2);
                o.writeLong(id);
                key(o, "system");
                str(o, "s");
                key(o, "name");
                str(o, "n");
                key(o, "fields");
                o.writeByte(5);
                o.writeInt(2);
                table(o, Map.of("name", "a", "kind", "int", "offset", 1L << 40, "size", 8L));
                table(o, Map.of("name", "b", "kind", rnd.nextBoolean() ? "int" : "bogus", "offset", 8L, "size", 4L,
                        "ftype", "u32", "fallback", "nonsense"));
                o.writeInt(0);
                key(o, "print");
                o.writeByte(5);
                o.writeInt(0);
                o.writeInt(2);
                key(o, "format");
                o.writeByte(5);
                o.writeInt(3);
                str(o, "x=");
                table(o, Map.of("conv", "d", "width", (long) rnd.nextInt(100000), "size", 8L));
                table(o, Map.of("conv", rnd.nextBoolean() ? "p" : "q", "ext", "S"));
                o.writeInt(0);
                key(o, "args");
                o.writeByte(5);
                o.writeInt(2);
                table(o, Map.of("op", rnd.nextBoolean() ? "+" : "@", "int", "0xZZ"));
                table(o, Map.of("call", "__print_flags", "ident", "vmemmap_base"));
                o.writeInt(0);
            }
            case 4 -> { // an unknown tag
                o.writeByte(9);
            }
            default -> { // a valid tree with trailing junk
                o.write(EventDescription.encode(Tools.catalog().byId().get(id), 8, null));
                o.writeByte(1);
            }
        }
        return bytes.toByteArray();
    }

    static void key(DataOutputStream o, String k) throws IOException {
        o.writeInt(k.length());
        o.writeBytes(k);
    }

    static void str(DataOutputStream o, String s) throws IOException {
        o.writeByte(1);
        o.writeInt(s.length());
        o.writeBytes(s);
    }

    static void table(DataOutputStream o, Map<String, Object> m) throws IOException {
        o.writeByte(5);
        o.writeInt(0);
        o.writeInt(m.size());
        for (var e : m.entrySet()) {
            key(o, e.getKey());
            if (e.getValue() instanceof Long l) {
                o.writeByte(2);
                o.writeLong(l);
            } else {
                str(o, (String) e.getValue());
            }
        }
    }

    static void check(Path plugin, String label) throws Exception {
        // every frame with the whole tree visible (fields printed), its Lua errors in the same pass
        Tools.Run all = Tools.tshark(plugin, pcap, "-T", "fields", "-e", "frame.number", "-e", "_ws.lua.error",
                "-e", "tracewire.expert.internal");
        assertEquals(0, all.exit(), all.err());
        List<String> rows = all.out().lines().toList();
        int n = rows.size();
        assertTrue(n >= MIN_FRAMES, "all frames decoded: " + n);
        assertTrue(!all.err().toLowerCase().contains("lua"), all.err());
        Set<Integer> errors = new HashSet<>();
        for (String row : rows) {
            String[] c = row.split("\t", -1);
            if (!c[1].isEmpty() || !c[2].isEmpty()) {
                errors.add(Integer.parseInt(c[0]));
            }
        }
        assertTrue(errors.isEmpty(), errors.size() + " frames with Lua errors, e.g. " + errors.stream().sorted().limit(10).toList());
        // the same frames filtered as Wireshark's packet list filters them (the tree not visible)
        errors = Tools.listed(plugin, pcap, "_ws.lua.error || tracewire.expert.internal");
        assertTrue(errors.isEmpty(), errors.size() + " frames with Lua errors without a visible tree, e.g. "
                + errors.stream().sorted().limit(10).toList());
        Set<Integer> flagged = Tools.listed(plugin, pcap, "tracewire.expert.malformed || tracewire.expert.version");
        Set<Integer> missing = new HashSet<>(REJECTED);
        missing.removeAll(flagged);
        assertTrue(missing.isEmpty(), missing.size() + " rejected frames lack the malformed expert, e.g. "
                + missing.stream().sorted().limit(10).toList());
        int decoded = Tools.listed(plugin, pcap, "tracewire.kind == 0 && tracewire.text").size();
        int caps = Tools.listed(plugin, pcap, "tracewire.expert.context_cap || tracewire.expert.fragment").size();
        System.out.printf("[fuzz %s] %d frames (%d event, %d context or random; %d mutated): %d rejected by WireDecoder, "
                + "%d flagged malformed/version, %d events decoded, %d cap/fragment notes, 0 Lua errors%n", label, n,
                eventFrames, contextFrames, mutated, REJECTED.size(), flagged.size(), decoded, caps);
        assertTrue(mutated >= 10_000, "mutated frames and trees: " + mutated);
        assertTrue(REJECTED.size() > 1000, "the fuzzer should produce many bad frames: " + REJECTED.size());
        assertTrue(decoded > 1000, "events decoded among the mutations: " + decoded);
    }

    @Test
    void theAllEventsPlugin() throws Exception {
        check(Tools.allPlugin(), "all-events plugin");
    }

    @Test
    void theRuntimeAlone() throws Exception {
        check(Tools.runtimeOnly(), "runtime alone");
    }
}
