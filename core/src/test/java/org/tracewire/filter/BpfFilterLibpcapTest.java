package org.tracewire.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.testing.Prerequisites;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.MacAddress;
import org.tracewire.wire.Ethernet;

/**
 * libpcap's compiler ({@code tcpdump -d}) accepts every capture filter, and over frames made by
 * tracewire's own {@link FrameEncoder} from kernel-layout records, the capture filter passes every frame whose record the filter
 * matches (never narrower), and exactly those when it reports itself exact.
 */
@Tag("tshark")
class BpfFilterLibpcapTest {

    @Test
    void libpcapCompilesEveryCaptureFilter() {
        Path tcpdump = Prerequisites.requireTool("tcpdump");
        assertNotEquals(0, compile(tcpdump, "ether[22:2] = = 1").code(), "the harness sees errors");
        RandomFilters gen = new RandomFilters(31);
        List<String> refused = new ArrayList<>();
        int n = 0;
        for (String event : Events.NAMES) {
            EventFormat f = Events.get(event);
            for (int i = 0; i < 80; i++) {
                ByteOrder order = i % 2 == 0 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
                Filter filter = gen.valid(f, 1 + i % 4);
                String bpf = BpfFilterCompiler.compile(filter, f, order).filter();
                Tools.Run r = compile(tcpdump, bpf);
                n++;
                if (r.code() != 0 && !(r.output().contains("expression rejects all packets") && neverMatches(filter, f, gen))) {
                    refused.add(bpf + "\n" + r.output());
                }
            }
        }
        assertEquals(List.of(), refused);
        assertEquals(400, n);
    }

    /**
     * libpcap refuses a filter it can prove false ("expression rejects all packets"), as a
     * contradiction like {@code common_flags == 1 && common_flags == 2} compiles to. Accepted only
     * when no record of a large sample (values from the generator's edge-heavy pool) matches.
     */
    private static boolean neverMatches(Filter filter, EventFormat f, RandomFilters gen) {
        List<FilterField> fields = RandomFilters.filterable(f);
        for (int k = 0; k < 20000; k++) {
            Map<String, Object> rec = new HashMap<>();
            for (FilterField ff : fields) {
                rec.put(Evaluator.canonical(ff), ff.type() == FilterField.Type.NUMBER ? gen.number(ff) : gen.string(3));
            }
            if (Evaluator.eval(filter, f, rec)) {
                return false;
            }
        }
        return true;
    }

    private static Tools.Run compile(Path tcpdump, String expr) {
        return Tools.run(List.of(tcpdump.toString(), "-d", "-y", "EN10MB", expr));
    }

    @Test
    void captureFilterNeverNarrowsOverRealFrames(@TempDir Path dir) throws Exception {
        Path tcpdump = Prerequisites.requireTool("tcpdump");
        for (String event : List.of("kmem:kmalloc", "sched:sched_switch", "irq:irq_handler_entry")) {
            for (ByteOrder order : List.of(ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN)) {
                checkEvent(tcpdump, dir, Events.get(event), order);
            }
        }
    }

    private void checkEvent(Path tcpdump, Path dir, EventFormat f, ByteOrder order) throws Exception {
        RandomFilters gen = new RandomFilters(41 + f.id());
        List<FilterField> fields = RandomFilters.filterable(f);
        List<Map<String, Object>> records = new ArrayList<>();
        List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            Map<String, Object> rec = new HashMap<>();
            for (FilterField ff : fields) {
                Object v;
                if (ff.type() == FilterField.Type.NUMBER) {
                    BigInteger n = gen.number(ff);
                    if (ff.source() == FilterField.Source.CPU) {
                        n = n.abs().mod(BigInteger.valueOf(65535)); // the wire's cpu is a u16, 0xFFFF never an event's
                    }
                    v = n;
                } else {
                    v = gen.string(ff.maxLength() < 0 ? 8 : Math.min(8, ff.maxLength())).replace("é", "e");
                }
                rec.put(Evaluator.canonical(ff), v);
            }
            records.add(rec);
            frames.add(frame(f, rec, order));
        }
        Path pcap = dir.resolve(f.name() + "-" + order + ".pcap");
        Pcap.write(pcap, frames);
        int exactSeen = 0;
        int excluded = 0;
        for (int i = 0; i < 40; i++) {
            Filter filter = gen.valid(f, 1 + i % 3);
            BpfFilterCompiler.Result bpf = BpfFilterCompiler.compile(filter, f, order);
            Tools.Run probe = compile(tcpdump, bpf.filter());
            if (probe.code() != 0 && probe.output().contains("expression rejects all packets")) {
                assertTrue(neverMatches(filter, f, gen), "libpcap calls it empty but it matches: " + filter);
                continue;
            }
            Set<Integer> passed = matching(tcpdump, pcap, bpf.filter());
            for (int k = 0; k < records.size(); k++) {
                boolean want = Evaluator.eval(filter, f, records.get(k));
                if (want) {
                    assertTrue(passed.contains(k), "narrower than the filter: " + filter + " -> " + bpf.filter() + " on " + records.get(k));
                } else if (bpf.exact()) {
                    assertTrue(!passed.contains(k), "exact but wider: " + filter + " -> " + bpf.filter() + " on " + records.get(k));
                }
            }
            exactSeen += bpf.exact() ? 1 : 0;
            excluded += records.size() - passed.size();
        }
        if (f.name().equals("kmalloc")) {
            assertTrue(exactSeen > 20, "most kmalloc filters are exact: " + exactSeen);
            assertTrue(excluded > 3000, "the capture filters do exclude frames: " + excluded);
        }
    }

    /** 0-based indexes of the frames the capture filter passes (frame i has time stamp 1700000000 + i s). */
    private static Set<Integer> matching(Path tcpdump, Path pcap, String expr) {
        Tools.Run r = Tools.run(List.of(tcpdump.toString(), "-n", "-tt", "-r", pcap.toString(), expr));
        assertEquals(0, r.code(), expr + "\n" + r.output());
        Set<Integer> out = new TreeSet<>();
        Pattern numbered = Pattern.compile("^(\\d{10})\\.\\d{6} ");
        for (String line : r.output().split("\n")) {
            Matcher m = numbered.matcher(line);
            if (m.find()) {
                out.add(Integer.parseInt(m.group(1)) - 1_700_000_000);
            }
        }
        return out;
    }

    /**
     * The Ethernet frame tracewire's own encoder ({@link FrameEncoder}, {@link Ethernet#wrap}) makes of
     * a kernel record holding these values.
     */
    static byte[] frame(EventFormat f, Map<String, Object> rec, ByteOrder order) {
        FrameEncoder encoder = new FrameEncoder();
        ByteBuffer out = ByteBuffer.allocate(FrameEncoder.MAX_FRAME);
        encoder.event(order, payload(f, rec, order), ((BigInteger) rec.get("CPU")).intValue(), 0, false, out);
        ByteBuffer eth = Ethernet.wrap(out.flip(), MacAddress.forHost("filter-test"), Ethernet.DEFAULT_MAX_FRAME);
        byte[] frame = new byte[eth.remaining()];
        eth.get(frame);
        return frame;
    }

    /** A record payload (from common_type) with the values at the format's offsets, in the kernel's byte order. */
    private static ByteBuffer payload(EventFormat f, Map<String, Object> rec, ByteOrder order) {
        int fixed = f.fixedSize();
        ByteBuffer b = ByteBuffer.allocate(fixed + 512).order(order);
        int dyn = fixed;
        for (Field x : f.allFields()) {
            Object v = x.name().equals("common_type") ? BigInteger.valueOf(f.id()) : rec.get(x.name());
            FilterField ff = FilterField.resolve(f, x.name());
            if (v instanceof BigInteger n && (ff == null || ff.type() != FilterField.Type.STRING)) {
                b.put(x.offset(), bytes(n, x.size(), order));
            } else if (v instanceof String str && x.kind() == FieldKind.CHAR_ARRAY) {
                byte[] s = str.getBytes(StandardCharsets.UTF_8);
                b.put(x.offset(), s, 0, Math.min(s.length, x.size() - 1));
            } else if (v instanceof String str && x.kind() == FieldKind.DYNAMIC_STRING) {
                byte[] s = str.getBytes(StandardCharsets.UTF_8);
                b.put(dyn, s);
                b.put(dyn + s.length, (byte) 0);
                b.putInt(x.offset(), dyn | ((s.length + 1) << 16));
                dyn += s.length + 1;
            }
        }
        b.position(0);
        b.limit((dyn + 3) & ~3);
        return b;
    }

    private static byte[] bytes(BigInteger v, int size, ByteOrder order) {
        byte[] out = new byte[size];
        for (int i = 0; i < size; i++) {
            byte x = v.shiftRight(8 * i).byteValue();
            out[order == ByteOrder.LITTLE_ENDIAN ? i : size - 1 - i] = x;
        }
        return out;
    }
}
