package org.tracewire.pcapng;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.ringbuffer.PageFixture;
import org.tracewire.ringbuffer.RawRecord;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.FrameEncoder;

/**
 * Frames encoded from the real pages fixture, written with {@link PcapngWriter}, read by
 * Wireshark's {@code capinfos} and {@code tshark}. Skipped when the tools are missing, failed then
 * when {@code CI=true}.
 */
@Tag("tshark")
class PcapngTsharkTest {
    static final long EPOCH_BASE = 1_763_800_000_000_000_000L; // 2025-11-22, plus the trace clock

    @TempDir
    static Path dir;
    static Path file;
    static List<Long> times = new ArrayList<>();
    static List<Long> drops = new ArrayList<>();
    static long totalDrops;

    @BeforeAll
    static void writeCapture() throws IOException {
        FormatCatalog catalog = Tracefs.open(Prerequisites.snapshot()).formats();
        Map<Integer, EventFormat> byId = catalog.byId();
        KernelLayout kernel = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        SubBufferLayout layout = new SubBufferLayout(kernel, 0, 8, 8, 16, 4096, HeaderEvent.standard());
        FrameEncoder enc = new FrameEncoder();
        ByteBuffer frame = ByteBuffer.allocate(FrameEncoder.MAX_FRAME);
        file = dir.resolve("events.pcapng");
        try (PcapngWriter w = PcapngWriter.create(file, SectionInfo.host("test"))) {
            int ifId = w.addInterface(InterfaceInfo.tracewire("tracewire0", "ftrace events (test fixture)", FrameEncoder.MAX_FRAME));
            int n = 0;
            for (PageFixture.Page p : PageFixture.load()) {
                SubBuffer sb = SubBuffer.decode(PageFixture.buffer(p), layout, p.cpu());
                for (RawRecord raw : sb.records()) {
                    if (n >= 2000) {
                        break;
                    }
                    EventRecord r = new EventRecord(byId.get(raw.eventId()), kernel, p.cpu(), raw.timestamp(),
                            raw.payload());
                    long lost = n % 97 == 5 ? n : 0; // synthetic losses so drop counts show
                    long time = EPOCH_BASE + raw.timestamp() + n; // strictly increasing
                    frame.clear();
                    enc.event(kernel.byteOrder(), r.payload(), p.cpu(), time, false, frame);
                    frame.flip();
                    w.writePacket(ifId, time, frame, frame.remaining(), lost);
                    times.add(time);
                    drops.add(lost);
                    totalDrops += lost;
                    n++;
                }
            }
        }
    }

    static String run(String... cmd) throws Exception {
        Path tool = Path.of("/usr/bin", cmd[0]);
        if (!Files.isExecutable(tool)) {
            String why = cmd[0] + " is not installed (apt-get install tshark)";
            if ("true".equals(System.getenv("CI"))) {
                Assertions.fail("CI=true: " + why);
            }
            org.junit.jupiter.api.Assumptions.abort(why);
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(false);
        pb.environment().put("LC_ALL", "C");
        Process proc = pb.start();
        proc.getOutputStream().close();
        byte[] out = proc.getInputStream().readAllBytes();
        String err = new String(proc.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(proc.waitFor(120, TimeUnit.SECONDS), cmd[0] + " timed out");
        assertEquals(0, proc.exitValue(), String.join(" ", cmd) + " failed: " + err);
        return new String(out, StandardCharsets.UTF_8);
    }

    @Test
    void capinfosSeesPacketsNanosecondsAndTheLinkType() throws Exception {
        String info = run("capinfos", "-M", file.toString());
        assertTrue(info.matches("(?s).*File type:\\s+pcapng\\n.*"), info);
        assertTrue(info.matches("(?s).*File timestamp precision:\\s+nanoseconds \\(9\\).*"), info);
        assertTrue(info.matches("(?s).*Number of packets:\\s+" + times.size() + "\\n.*"), info);
        assertTrue(info.matches("(?s).*Capture application:\\s+tracewire test.*"), info);
        assertTrue(info.matches("(?s).*Number of interfaces in file: 1.*"), info);
        assertTrue(info.matches("(?s).*Interface #0 info:.*Name = tracewire0.*"), info);
        assertTrue(info.matches("(?s).*Time precision = nanoseconds \\(9\\).*"), info);
        assertTrue(info.matches("(?s).*Encapsulation = USER 15 \\(.*"), info);
        assertTrue(info.matches("(?s).*Capture length = 65535\\n.*"), info);
        assertTrue(info.matches("(?s).*Strict time order:\\s+True.*"), info);
        assertTrue(info.matches("(?s).*Number of stat entries = 1\\n.*"), info);
    }

    @Test
    void tsharkFieldsShowTimesAndDrops() throws Exception {
        String out = run("tshark", "-r", file.toString(), "-T", "fields", "-e", "frame.time_epoch",
                "-e", "frame.drop_count", "-e", "frame.len", "-e", "frame.interface_id");
        String[] lines = out.split("\n");
        assertEquals(times.size(), lines.length);
        long dropSum = 0;
        for (int i = 0; i < lines.length; i++) {
            String[] f = lines[i].split("\t", -1);
            assertEquals(4, f.length, lines[i]);
            long t = times.get(i);
            assertEquals(String.format("%d.%09d", t / 1_000_000_000L, t % 1_000_000_000L), f[0], "frame " + (i + 1));
            if (drops.get(i) != 0) {
                assertEquals(Long.toString(drops.get(i)), f[1], "frame " + (i + 1));
                dropSum += Long.parseLong(f[1]);
            } else {
                assertTrue(f[1].isEmpty() || f[1].equals("0"), f[1]);
            }
            assertTrue(Integer.parseInt(f[2]) >= 16 + 8, lines[i]);
            assertEquals("0", f[3]);
        }
        assertEquals(totalDrops, dropSum);
        assertTrue(totalDrops > 0);
    }
}
