package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.Prerequisites;

/**
 * The all-events plugin in tshark: {@code -G fields} lists every generated field (no clash with
 * Wireshark's own), and loading it stays fast (measured against tshark without the plugin).
 */
@Tag("tshark")
class TsharkLoadTest {

    @Test
    void everyGeneratedFieldIsRegistered() throws Exception {
        Prerequisites.requireTool("tshark");
        Path plugin = Tools.allPlugin();
        Tools.Run r = Tools.run("tshark", "-G", "fields", "-X", "lua_script:" + plugin);
        assertEquals(0, r.exit(), r.err());
        Set<String> registered = new HashSet<>();
        for (String line : r.out().split("\n")) {
            String[] p = line.split("\t");
            if (p.length > 2 && p[0].equals("F")) {
                assertTrue(registered.add(p[2]) || !p[2].startsWith("tracewire."), "registered twice: " + p[2]);
            }
        }
        int n = 0;
        for (List<String> abbrevs : Tools.all().abbreviations().values()) {
            for (String a : abbrevs) {
                assertTrue(registered.contains(a), a + " not registered");
                n++;
            }
        }
        long ours = registered.stream().filter(a -> a.startsWith("tracewire.")).count();
        Tools.Run rt = Tools.run("tshark", "-G", "fields", "-X", "lua_script:" + Tools.runtimeOnly());
        long runtime = rt.out().lines().filter(l -> l.startsWith("F\t") && l.split("\t")[2].startsWith("tracewire.")).count();
        assertTrue(runtime > 60, "runtime fields " + runtime);
        assertEquals(Tools.all().fields() + runtime, ours,
                "the runtime's fields (header, context, generic, latency analysis) + generated fields (event fields and flag bits)");
        for (String a : List.of("tracewire.comm", "tracewire.tgid", "tracewire.lost", "tracewire.field.name",
                "tracewire.field.value", "tracewire.kind")) {
            assertTrue(registered.contains(a), a + " not registered");
        }
        for (String a : List.of("tracewire.analysis", "tracewire.analysis.kind", "tracewire.analysis.latency",
                "tracewire.analysis.latency_ns", "tracewire.analysis.start_frame", "tracewire.analysis.end_frame")) {
            assertTrue(registered.contains(a), a + " not registered");
        }
        assertTrue(!r.err().toLowerCase().contains("lua"), r.err());
        System.out.println("[fields] " + n + " event fields, " + ours + " tracewire fields registered");
    }

    @Test
    void loadTimeOfTheAllEventsPlugin() throws Exception {
        Prerequisites.requireTool("tshark");
        Path plugin = Tools.allPlugin();
        List<EventRecord> recs = Frames.fixtureRecords().subList(0, 100);
        Path small = Tools.tempDir().resolve("small.pcapng");
        try (V2Capture c = V2Capture.open(small)) {
            c.capture("small");
            for (EventRecord r : recs) {
                c.event(r);
            }
        }
        Tools.Run count = Tools.run("capinfos", "-c", "-M", small.toString());
        int frames = Integer.parseInt(count.out().replaceAll("(?s).*Number of packets:\\s*(\\d+).*", "$1").trim());
        long best = Long.MAX_VALUE;
        long bestBare = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            long t0 = System.nanoTime();
            Tools.Run r = Tools.tshark(plugin, small);
            best = Math.min(best, System.nanoTime() - t0);
            assertEquals(0, r.exit(), r.err());
            assertEquals(frames, r.out().strip().split("\n").length);
            t0 = System.nanoTime();
            Tools.run("tshark", "-n", "-r", small.toString());
            bestBare = Math.min(bestBare, System.nanoTime() - t0);
        }
        System.out.printf("[load] tshark -X lua_script:all-events -r small.pcapng (100 frames): %.2f s; without the "
                + "plugin %.2f s; plugin cost %.2f s%n", best / 1e9, bestBare / 1e9, (best - bestBare) / 1e9);
        assertTrue(best - bestBare < 2_000_000_000L, "plugin load " + (best - bestBare) / 1e9 + " s");
    }
}
