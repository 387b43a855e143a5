package org.tracewire.printfmt;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.testing.Prerequisites;

/** Parses and compiles every print fmt of the linux-6.18 snapshot. */
class SnapshotPrintFmtTest {

    static Path snapshotEvents() {
        return Prerequisites.snapshot().resolve("events");
    }

    static List<EventFormat> snapshotFormats() throws IOException {
        List<EventFormat> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(snapshotEvents())) {
            for (Path f : s.filter(x -> x.getFileName().toString().equals("format")).sorted().toList()) {
                String system = f.getParent().getParent().getFileName().toString();
                out.add(FormatParser.parse(system, Files.readString(f, StandardCharsets.ISO_8859_1), f.toString()));
            }
        }
        return out;
    }

    @Test
    void atLeast99PercentOfSnapshotPrintFmtsParseAndAreSupported() throws IOException {
        List<EventFormat> formats = snapshotFormats();
        assertTrue(formats.size() > 2000, "snapshot has " + formats.size() + " formats");
        KernelLayout layout = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        int parsed = 0;
        int supported = 0;
        Map<String, String> fallbacks = new TreeMap<>();
        for (EventFormat f : formats) {
            try {
                PrintFmtParser.parse(f.printFmt(), f);
                parsed++;
            } catch (PrintFmtException e) {
                // counted below through the printer's reason
            }
            EventPrinter p = EventPrinter.compile(f, layout);
            if (!p.isFallback()) {
                supported++;
            } else {
                fallbacks.put(f.fullName(), p.fallbackReason());
            }
        }
        fallbacks.forEach((k, v) -> System.out.println("fallback " + k + ": " + v));
        System.out.printf("print fmt: %d events, %d parsed (%.2f%%), %d supported (%.2f%%)%n", formats.size(), parsed,
                100.0 * parsed / formats.size(), supported, 100.0 * supported / formats.size());
        assertTrue(parsed >= 0.99 * formats.size(), "parsed " + parsed + " of " + formats.size());
        assertTrue(supported >= 0.99 * formats.size(), "supported " + supported + " of " + formats.size());
    }
}
