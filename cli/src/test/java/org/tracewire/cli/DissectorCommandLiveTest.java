package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.format.FormatCatalog;
import org.tracewire.pcapng.PcapngReader;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelContext;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireDecoder;
import org.tracewire.wire.WireFrame;

/**
 * Against the kernel: {@code tracewire capture} writes a pcapng of real events, {@code tracewire
 * dissector} generates the plugin from the live tracefs, tshark decodes the file with it. Every
 * generated field's value equals the Java decoder's ({@link WireRecords} rebuilds the record from
 * the frame) and the Info column equals {@link KernelTextRenderer}'s kernel text (with the live
 * kernel's symbols, printk formats and HZ given to the plugin as preferences) for ≥ 99 % of frames;
 * mismatches are listed; zero Lua errors.
 */
@Tag("live")
@Tag("concurrent")
@Tag("tshark")
class DissectorCommandLiveTest {
    static final String[] EVENTS = {"sched:sched_switch", "sched:sched_wakeup", "sched:sched_waking",
        "syscalls:sys_enter_openat", "syscalls:sys_exit_openat", "irq:*", "timer:*"};

    @Test
    void capturedEventsDecodeLikeTheJavaDecoderAndTheKernel(@TempDir Path dir) throws Exception {
        Tracefs live = Prerequisites.requireTracefs();
        Prerequisites.requireTool("tshark");
        Path pcap = dir.resolve("live.pcapng");
        Path plugin = dir.resolve("tracewire.lua");
        List<String> cap = new ArrayList<>(List.of("capture"));
        for (String e : EVENTS) {
            String[] se = e.split(":", 2);
            for (String name : se[1].equals("*") ? live.events(se[0]) : List.of(se[1])) {
                cap.add("-e");
                cap.add(se[0] + ":" + name);
            }
        }
        cap.addAll(List.of("-w", pcap.toString(), "--no-iface", "--duration", "2", "--count", "20000"));
        Process load = new ProcessBuilder("sh", "-c", "for i in $(seq 200); do cat /etc/hostname >/dev/null; "
                + "sleep 0.005; done").start();
        FormatsCommandTest.Result c = FormatsCommandTest.run(cap.toArray(String[]::new));
        load.waitFor(30, TimeUnit.SECONDS);
        assertEquals(0, c.code(), c.out() + c.err());
        FormatsCommandTest.Result g = FormatsCommandTest.run("dissector", "-w", plugin.toString());
        assertEquals(0, g.code(), g.err());
        System.out.println(g.out().strip());

        PrintContext ctx = KernelContext.of(live);
        List<String> cmd = new ArrayList<>(List.of("tshark", "-n", "-X", "lua_script:" + plugin,
                "-o", "tracewire.kallsyms:/proc/kallsyms",
                "-o", "tracewire.printk_formats:" + live.root().resolve("printk_formats"),
                "-o", "tracewire.hz:" + Math.max(0, ctx.hz()),
                "-r", pcap.toString(), "-T", "json", "--no-duplicate-keys"));
        Path out = dir.resolve("out.json");
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(dir.resolve("err").toFile()).start();
        assertTrue(p.waitFor(600, TimeUnit.SECONDS));
        System.out.printf("[live] tshark -T json: %.1f s%n", (System.nanoTime() - t0) / 1e9);
        assertEquals(0, p.exitValue(), Files.readString(dir.resolve("err")));
        JsonNode root = new ObjectMapper().readTree(out.toFile());

        FormatCatalog catalog = live.formats();
        Map<Integer, EventFormat> byId = catalog.byId();
        KernelTextRenderer kernel = new KernelTextRenderer(null, live.layout(), ctx);
        List<PcapngReader.Packet> packets = new PcapngReader(Files.readAllBytes(pcap)).packets();
        assertEquals(packets.size(), root.size());
        assertTrue(packets.size() > 100, "captured only " + packets.size() + " frames");
        int same = 0;
        int events = 0;
        int fieldsChecked = 0;
        int luaErrors = 0;
        List<String> fieldMismatches = new ArrayList<>();
        List<String> infoMismatches = new ArrayList<>();
        Map<String, int[]> perEvent = new TreeMap<>();
        for (int i = 0; i < packets.size(); i++) {
            Map<String, List<String>> f = new HashMap<>();
            flatten(root.get(i).path("_source").path("layers"), f);
            if (f.containsKey("_ws.lua.error") || f.containsKey("tracewire.expert.internal")) {
                luaErrors++;
            }
            WireFrame frame = WireDecoder.decodeBare(packets.get(i).frame());
            if (frame.kind() != FrameKind.EVENT) {
                continue; // context frames (CAPTURE, FORMAT, SYMBOLS, PROCESS, LOST) describe the events
            }
            events++;
            EventFormat fmt = byId.get(frame.eventId());
            EventRecord r = new EventRecord(fmt, live.layout(), frame.header().cpu(), frame.header().timeNs(), frame.body());
            String want = kernel.body(r);
            String got = one(f, "tracewire.text");
            int[] n = perEvent.computeIfAbsent(fmt.fullName(), k -> new int[2]);
            n[1]++;
            if (want.equals(got)) {
                same++;
                n[0]++;
            } else {
                infoMismatches.add("frame " + (i + 1) + "\n  lua:    " + got + "\n  kernel: " + want);
            }
            String prefix = "tracewire." + fmt.system() + "." + fmt.name() + ".";
            for (int k = 0; k < fmt.fields().size(); k++) {
                Field fl = fmt.fields().get(k);
                String abbrev = prefix + fl.name();
                String w = expected(r, fl, -1);
                if (w == null || !abbrev.matches("[a-z0-9_.]+")) {
                    continue;
                }
                fieldsChecked++;
                String v = one(f, abbrev);
                if (v == null || !normalize(fl, v).equals(normalize(fl, w))) {
                    fieldMismatches.add("frame " + (i + 1) + " " + abbrev + ": lua=" + v + " java=" + w);
                }
            }
        }
        assertTrue(events > 100, "captured only " + events + " events");
        double rate = 100.0 * same / events;
        perEvent.forEach((k, n) -> System.out.printf("[live] %-40s %6d/%-6d%s%n", k, n[0], n[1],
                n[0] == n[1] ? "" : "  <-- " + (n[1] - n[0]) + " differ"));
        infoMismatches.forEach(m -> System.out.println("[live info mismatch] " + m));
        System.out.printf("[live] %d event frames, Info = kernel text for %d (%.2f %%), %d field values checked, "
                + "%d differ, %d Lua errors%n", events, same, rate, fieldsChecked, fieldMismatches.size(), luaErrors);
        assertEquals(0, luaErrors, "Lua errors");
        assertTrue(fieldMismatches.isEmpty(), String.join("\n", fieldMismatches.subList(0, Math.min(30, fieldMismatches.size()))));
        assertTrue(rate >= 99.0, String.format("%.2f %%", rate));
    }

    static String expected(EventRecord r, Field f, int tlvLength) {
        try {
            switch (f.kind()) {
                case CHAR_ARRAY, DYNAMIC_STRING -> {
                    return r.string(f);
                }
                case POINTER -> {
                    return f.size() == 4 || f.size() == 8 ? "0x" + Long.toHexString(r.integer(f)) : null;
                }
                case INTEGER -> {
                    if (f.size() != 1 && f.size() != 2 && f.size() != 4 && f.size() != 8) {
                        return null;
                    }
                    long v = r.integer(f);
                    return f.signed() ? Long.toString(v) : Long.toUnsignedString(v);
                }
                default -> {
                    if (tlvLength < 0 || (f.kind() != FieldKind.DYNAMIC_ARRAY && f.kind() != FieldKind.DYNAMIC_CPUMASK
                            && f.size() > 0 && tlvLength != f.size())) {
                        return null;
                    }
                    StringBuilder sb = new StringBuilder();
                    for (byte b : r.bytes(f)) {
                        sb.append(String.format("%02x", b & 0xff));
                    }
                    return sb.toString();
                }
            }
        } catch (RuntimeException e) {
            return null;
        }
    }

    static String normalize(Field f, String v) {
        if (f.kind() == FieldKind.POINTER && v.startsWith("0x")) {
            return new BigInteger(v.substring(2), 16).toString();
        }
        if (f.kind() == FieldKind.ARRAY || f.kind() == FieldKind.OPAQUE || f.kind().isDynamic() && !f.kind().isString()) {
            return v.replace(":", "").toLowerCase();
        }
        return v;
    }

    static String one(Map<String, List<String>> f, String key) {
        List<String> v = f.get(key);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    static void flatten(JsonNode n, Map<String, List<String>> out) {
        Iterator<Map.Entry<String, JsonNode>> it = n.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            if (v.isObject()) {
                flatten(v, out);
            } else if (v.isArray()) {
                for (JsonNode x : v) {
                    if (x.isObject()) {
                        flatten(x, out);
                    } else {
                        out.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(x.asText());
                    }
                }
            } else {
                out.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(v.asText());
            }
        }
    }
}
