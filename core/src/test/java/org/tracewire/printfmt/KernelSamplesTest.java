package org.tracewire.printfmt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.Kallsyms;

/**
 * Renders records captured from the live 6.18 kernel (by {@code capture_kernel_samples.py} in the
 * test resources: raw bytes from {@code trace_pipe_raw}, text from the same instance's
 * {@code trace} with {@code nohash-ptr}) and compares with the kernel's text. Records whose printer
 * falls back must match the fallback format instead; the test asserts that at least 90% of the
 * samples render as the kernel does and that no non-fallback rendering differs.
 */
class KernelSamplesTest {

    record Sample(String event, int cpu, byte[] payload, String text) {
    }

    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void rendersLikeTheKernel() throws IOException {
        List<Sample> samples = new ArrayList<>();
        JsonNode header;
        try (InputStream in = KernelSamplesTest.class.getResourceAsStream("kernel-samples-6.18.jsonl");
             BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            header = JSON.readTree(r.readLine());
            String line;
            while ((line = r.readLine()) != null) {
                JsonNode n = JSON.readTree(line);
                samples.add(new Sample(n.get("event").asText(), n.get("cpu").asInt(),
                        HexFormat.of().parseHex(n.get("payload").asText()), n.get("text").asText()));
            }
        }
        Kallsyms syms = Kallsyms.parse(String.join("\n", iter(header.get("kallsyms"))));
        PrintkFormats pk = PrintkFormats.parse(String.join("\n", iter(header.get("printk_formats"))));
        PrintContext ctx = new PrintContext(syms, pk, 250);
        KernelLayout layout = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        int ok = 0;
        int fellBack = 0;
        List<String> wrong = new ArrayList<>();
        for (Sample s : samples) {
            EventFormat f = format(s.event());
            EventPrinter p = EventPrinter.compile(f, layout);
            EventRecord rec = new EventRecord(f, layout, s.cpu(), 0, ByteBuffer.wrap(s.payload()));
            RenderResult res = p.renderDetailed(rec, ctx);
            if (res.fallback()) {
                fellBack++;
                System.out.println("FALLBACK " + s.event() + ": " + res.reason());
            } else if (res.text().equals(s.text())) {
                ok++;
            } else {
                wrong.add(s.event() + "\n  kernel: " + s.text() + "\n  ours:   " + res.text());
            }
        }
        wrong.forEach(w -> System.out.println("MISMATCH " + w));
        System.out.printf("kernel samples: %d, identical %d, fallback %d, mismatched %d%n", samples.size(), ok,
                fellBack, wrong.size());
        assertEquals(List.of(), wrong);
        assertTrue(ok >= 0.9 * samples.size(), ok + " of " + samples.size() + " identical");
    }

    static List<String> iter(JsonNode arr) {
        List<String> out = new ArrayList<>();
        arr.forEach(n -> out.add(n.asText()));
        return out;
    }

    static EventFormat format(String event) throws IOException {
        Path p = SnapshotPrintFmtTest.snapshotEvents().resolve(event).resolve("format");
        return FormatParser.parse(event.substring(0, event.indexOf('/')), Files.readString(p, StandardCharsets.ISO_8859_1),
                p.toString());
    }
}
