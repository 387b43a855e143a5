package org.tracewire.printfmt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.format.FormatParser;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.testing.Prerequisites;

/**
 * Captures fresh samples from the running kernel with {@code capture_kernel_samples.py} (its own
 * instance {@code tracewire-printfmt-<pid>}, nohash-ptr, removed afterwards) and renders them
 * against the live format files, with the enum constants of the kernel's BTF: every non-fallback
 * rendering must equal the kernel's text.
 * Needs root and tracefs (skipped otherwise, failed on CI).
 */
@Tag("live")
class LiveKernelSamplesTest {

    @Test
    void freshSamplesRenderLikeTheKernel(@TempDir Path tmp) throws Exception {
        Prerequisites.requireRoot();
        Prerequisites.requireTracefs();
        Path python = Prerequisites.requireTool("python3");
        Path script = tmp.resolve("capture.py");
        try (InputStream in = getClass().getResourceAsStream("capture_kernel_samples.py")) {
            Files.copy(in, script);
        }
        Path out = tmp.resolve("samples.jsonl");
        Process p = new ProcessBuilder(python.toString(), script.toString(), out.toString(), "3")
                .redirectErrorStream(true).redirectOutput(tmp.resolve("capture.log").toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "capture timed out");
        assertEquals(0, p.exitValue(), Files.readString(tmp.resolve("capture.log")));
        KernelSamplesTest.Samples loaded = KernelSamplesTest.load(Files.newBufferedReader(out, StandardCharsets.UTF_8));
        KernelEnums enums = KernelEnums.load(Path.of("/sys/kernel/btf/vmlinux"));
        KernelSamplesTest.Samples s = new KernelSamplesTest.Samples(loaded.samples(), loaded.context().withEnums(enums));
        Path events = Path.of("/sys/kernel/tracing/events");
        List<String> wrong = new ArrayList<>();
        int[] r = KernelSamplesTest.compare(s, ByteOrder.nativeOrder(), wrong, event -> {
            try {
                return FormatParser.parse(event.substring(0, event.indexOf('/')),
                        Files.readString(events.resolve(event).resolve("format"), StandardCharsets.ISO_8859_1), event);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        wrong.forEach(w -> System.out.println("MISMATCH " + w));
        System.out.printf("live samples: %d, identical %d, fallback %d, mismatched %d%n", s.samples().size(), r[0], r[1],
                wrong.size());
        assertEquals(List.of(), wrong);
        assertTrue(s.samples().size() > 50, "only " + s.samples().size() + " samples");
    }
}
