package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.printfmt.EventPrinter;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.testing.Prerequisites;

/**
 * One installed plugin reads captures from any kernel: the runtime alone ({@code lua/runtime/*.lua} concatenated,
 * no event tables at all) decodes the fixture capture of {@link FixtureDecodeTest} from its FORMAT
 * context: Info equals the kernel text, fields are the generic {@code tracewire.field.name} /
 * {@code .value} items with the values name=value pairs print, no Lua errors.
 */
@Tag("tshark")
class ContextOnlyDecodeTest {
    static List<Map<String, List<String>>> events;

    @BeforeAll
    static void decode() throws Exception {
        Prerequisites.requireTool("tshark");
        FixtureDecodeTest.records = Frames.fixtureRecords();
        FixtureDecodeTest.context = V2Capture.context(FixtureDecodeTest.records, Tools.layout(), KernelEnums.empty());
        Path pcap = Tools.tempDir().resolve("fixture-v2-context-only.pcapng");
        try (V2Capture c = V2Capture.open(pcap)) {
            c.records(FixtureDecodeTest.records, FixtureDecodeTest.context, null);
        }
        events = new ArrayList<>();
        for (Map<String, List<String>> f : FixtureDecodeTest.json(Tools.runtimeOnly(), pcap)) {
            assertFalse(f.containsKey("_ws.lua.error") || f.containsKey("tracewire.expert.internal")
                    || f.containsKey("tracewire.expert.malformed") || f.containsKey("tracewire.expert.unknown_event"),
                    f.toString());
            if ("0".equals(FixtureDecodeTest.one(f, "tracewire.kind"))) {
                events.add(f);
            }
        }
    }

    @Test
    void infoFromTheFormatContextAloneEqualsTheKernelText() {
        List<String> mismatches = FixtureDecodeTest.compareInfo(events,
                FixtureDecodeTest.context.renderer(Tools.layout()), "info, runtime without tables");
        assertTrue(mismatches.isEmpty(), mismatches.size() + " differ; first:\n"
                + String.join("\n", mismatches.subList(0, Math.min(30, mismatches.size()))));
    }

    @Test
    void fieldsAreGenericItemsWithTheirNameValueText() {
        List<EventRecord> records = FixtureDecodeTest.records;
        assertEquals(records.size(), events.size());
        int checked = 0;
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            Map<String, List<String>> f = events.get(i);
            List<String> names = f.getOrDefault("tracewire.field.name", List.of());
            List<String> values = f.getOrDefault("tracewire.field.value", List.of());
            assertEquals(r.format().fields().size(), names.size(), "record " + i);
            StringBuilder pairs = new StringBuilder();
            for (int k = 0; k < names.size(); k++) {
                assertEquals(r.format().fields().get(k).name(), names.get(k));
                pairs.append(k == 0 ? "" : " ").append(names.get(k)).append('=').append(values.get(k));
            }
            // the values are exactly what name=value pairs print (EventPrinter.fallbackText)
            assertEquals(EventPrinter.compile(r.format(), Tools.layout()).fallbackText(r), pairs.toString(), "record " + i);
            checked += names.size();
            assertTrue(f.keySet().stream().noneMatch(k -> k.startsWith("tracewire." + r.format().system() + ".")),
                    "no typed fields without tables: " + f.keySet());
        }
        System.out.println("[generic fields] " + checked + " field values equal the Java name=value text");
    }
}
