package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.Prerequisites;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.MacAddress;
import org.tracewire.wire.WireDecoder;
import org.tracewire.wire.WireFormatException;

/**
 * Bad input: 12,000 random and mutated frames (seeded) through tshark with the all-events plugin.
 * Zero Lua errors (a Lua error inside the dissector, e.g. an out-of-range tvb read, would show
 * as tracewire.expert.internal or _ws.lua.error); every frame the Java reference decoder rejects
 * carries the malformed-frame expert info.
 */
@Tag("tshark")
class FuzzTest {
    static final int FRAMES = 12_000;

    @Test
    void randomAndMutatedFramesNeverRaiseLuaErrors() throws Exception {
        Prerequisites.requireTool("tshark");
        Random rnd = new Random(0x7357_88b5L);
        List<EventRecord> records = Frames.fixtureRecords();
        FrameEncoder enc = new FrameEncoder(MacAddress.TRACEWIRE, Frames.SRC, Frames.hash());
        ByteBuffer buf = ByteBuffer.allocate(1 << 16);
        List<byte[]> frames = new ArrayList<>();
        while (frames.size() < FRAMES) {
            int kind = frames.size() % 6;
            byte[] f;
            if (kind == 0) {
                f = random(rnd);
            } else {
                EventRecord r = records.get(rnd.nextInt(records.size()));
                buf.clear();
                int n = enc.encode(r, r.cpu(), rnd.nextInt(1000), rnd.nextInt(3), r.timestampNs(), 0, buf);
                f = new byte[n];
                buf.flip();
                buf.get(f);
                f = mutate(rnd, f, kind);
            }
            frames.add(f);
        }
        Path pcap = Tools.tempDir().resolve("fuzz.pcapng");
        Set<Integer> rejected = new HashSet<>();
        try (PcapngWriter w = PcapngWriter.create(pcap, new SectionInfo("test", "Linux", "tracewire fuzz"))) {
            int ifc = w.addInterface(InterfaceInfo.ethernet("fuzz", "fuzz frames", 65535));
            for (int i = 0; i < frames.size(); i++) {
                byte[] f = frames.get(i);
                w.writePacket(ifc, 1_000_000_000L + i, f);
                try {
                    WireDecoder.decode(ByteBuffer.wrap(f));
                } catch (WireFormatException e) {
                    rejected.add(i + 1);
                }
            }
        }
        Path plugin = Tools.allPlugin();
        Tools.Run all = Tools.tshark(plugin, pcap, "-T", "fields", "-e", "frame.number");
        assertEquals(0, all.exit(), all.err());
        assertEquals(FRAMES, all.out().split("\n").length, "all frames decoded");
        assertTrue(!all.err().toLowerCase().contains("lua"), all.err());
        Set<Integer> errors = frameNumbers(plugin, pcap, "_ws.lua.error || tracewire.expert.internal");
        assertTrue(errors.isEmpty(), errors.size() + " frames with Lua errors or exceptions, e.g. " + first(errors));
        Set<Integer> malformed = frameNumbers(plugin, pcap, "tracewire.expert.malformed");
        Set<Integer> missing = new HashSet<>(rejected);
        missing.removeAll(malformed);
        assertTrue(missing.isEmpty(), missing.size() + " rejected frames lack the malformed expert, e.g. " + first(missing));
        Set<Integer> truncated = frameNumbers(plugin, pcap, "tracewire.expert.truncated");
        System.out.printf("[fuzz] %d frames: %d rejected by WireDecoder, %d with malformed expert, %d truncated, "
                + "0 Lua errors%n", FRAMES, rejected.size(), malformed.size(), truncated.size());
        assertTrue(rejected.size() > 1000, "the fuzzer should produce many bad frames: " + rejected.size());
    }

    static List<Integer> first(Set<Integer> s) {
        return s.stream().sorted().limit(10).toList();
    }

    static Set<Integer> frameNumbers(Path plugin, Path pcap, String filter) throws Exception {
        Tools.Run r = Tools.tshark(plugin, pcap, "-Y", filter, "-T", "fields", "-e", "frame.number");
        assertEquals(0, r.exit(), r.err());
        Set<Integer> s = new HashSet<>();
        for (String l : r.out().split("\n")) {
            if (!l.isBlank()) {
                s.add(Integer.parseInt(l.trim()));
            }
        }
        return s;
    }

    static byte[] header(byte[] f) {
        byte[] eth = {0x02, 0x74, 0x77, 0x69, 0x72, 0x65, 0x06, 0, 0, 0, 0, 1, (byte) 0x88, (byte) 0xb5};
        System.arraycopy(eth, 0, f, 0, 14);
        return f;
    }

    static byte[] random(Random rnd) {
        byte[] f = new byte[14 + rnd.nextInt(200)];
        rnd.nextBytes(f);
        header(f);
        if (f.length > 16 && rnd.nextBoolean()) {
            f[14] = 'T';
            f[15] = 'W';
            f[16] = (byte) (1 + rnd.nextInt(3));
            if (f.length > 19 && rnd.nextBoolean()) {
                f[18] = 0;
                f[19] = 48;
            }
        }
        return f;
    }

    static byte[] mutate(Random rnd, byte[] f, int kind) {
        switch (kind) {
            case 1 -> { // byte flips anywhere after the EtherType
                int n = 1 + rnd.nextInt(6);
                for (int i = 0; i < n; i++) {
                    int at = 14 + rnd.nextInt(f.length - 14);
                    f[at] ^= (byte) (1 << rnd.nextInt(8));
                }
                return f;
            }
            case 2 -> { // cut
                return java.util.Arrays.copyOf(f, 14 + rnd.nextInt(f.length - 13));
            }
            case 3 -> { // header length / TLV length words
                int at = rnd.nextBoolean() ? 18 : 52;
                int v = rnd.nextInt(4) == 0 ? rnd.nextInt(65536) : ((f[at] & 0xff) << 8 | (f[at + 1] & 0xff)) + rnd.nextInt(9) - 4;
                f[at] = (byte) (v >> 8);
                f[at + 1] = (byte) v;
                return f;
            }
            case 4 -> { // a TLV length word
                int off = 62;
                List<Integer> heads = new ArrayList<>();
                while (off + 4 <= f.length) {
                    heads.add(off);
                    off += 4 + ((f[off + 2] & 0xff) << 8 | (f[off + 3] & 0xff));
                }
                if (!heads.isEmpty()) {
                    int h = heads.get(rnd.nextInt(heads.size()));
                    int v = rnd.nextInt(3) == 0 ? rnd.nextInt(65536) : ((f[h + 2] & 0xff) << 8 | (f[h + 3] & 0xff)) + rnd.nextInt(5) - 2;
                    f[h + 2] = (byte) (v >> 8);
                    f[h + 3] = (byte) v;
                    if (rnd.nextBoolean()) {
                        f[h] = (byte) rnd.nextInt(256);
                        f[h + 1] = (byte) rnd.nextInt(256);
                    }
                }
                return f;
            }
            default -> { // random field bytes inside the TLV values, flags, event id, trailer
                for (int i = 0; i < 8; i++) {
                    int at = 62 + rnd.nextInt(Math.max(1, f.length - 62));
                    if (at < f.length) {
                        f[at] = (byte) rnd.nextInt(256);
                    }
                }
                f[17] = (byte) rnd.nextInt(256);
                if (rnd.nextInt(4) == 0) {
                    f[22] = (byte) rnd.nextInt(256);
                    f[23] = (byte) rnd.nextInt(256);
                }
                if (rnd.nextBoolean()) {
                    byte[] g = java.util.Arrays.copyOf(f, f.length + rnd.nextInt(16));
                    return g;
                }
                return f;
            }
        }
    }

    static Map<String, Integer> unused() {
        return new HashMap<>();
    }
}
