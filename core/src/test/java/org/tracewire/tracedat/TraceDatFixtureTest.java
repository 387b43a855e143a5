package org.tracewire.tracedat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.format.EventFormat;
import org.tracewire.tracetext.KernelTextRenderer;

/**
 * The checked-in trace.dat (v7, zstd): metadata, records in time order, the rendered text as
 * first rendered and checked against the kernel; and the v6 file {@link TraceDatWriter} makes of
 * its records reads back to the same lines.
 */
class TraceDatFixtureTest {
    @TempDir
    Path dir;

    static byte[] fixture() throws Exception {
        try (InputStream in = TraceDatFixtureTest.class.getResourceAsStream("/tracedat/sched-v7-zstd.dat")) {
            return in.readAllBytes();
        }
    }

    static List<String> lines(Path file) throws Exception {
        List<String> out = new ArrayList<>();
        try (TraceDatFile f = TraceDatFile.open(file); TraceDatRecords rs = f.records()) {
            KernelTextRenderer r = TraceDatContext.renderer(f, f.printContext());
            rs.forEachRemaining(e -> out.add(r.line(e.record())));
        }
        return out;
    }

    @Test
    void readsMetadataAndRecords() throws Exception {
        Path p = Files.write(dir.resolve("t.dat"), fixture());
        try (TraceDatFile f = TraceDatFile.open(p)) {
            assertEquals(7, f.version());
            assertEquals("zstd", f.compression());
            assertEquals(ByteOrder.LITTLE_ENDIAN, f.byteOrder());
            assertEquals(8, f.kernelLayout().longSize());
            assertEquals(4096, f.pageSize());
            assertEquals("local", f.clock());
            assertNotNull(f.catalog().byName("sched:sched_switch"));
            assertNotNull(f.kallsyms());
            assertEquals(2, f.cpuCount());
            assertTrue(f.options().uname().startsWith("Linux "));
            long last = Long.MIN_VALUE;
            int lastCpu = -1;
            int n = 0;
            try (TraceDatRecords rs = f.records()) {
                while (rs.hasNext()) {
                    TraceDatEvent e = rs.next();
                    long t = e.record().timestampNs();
                    assertTrue(t > last || (t == last && e.record().cpu() >= lastCpu), "time order at " + n);
                    last = t;
                    lastCpu = e.record().cpu();
                    n++;
                }
                assertEquals(Map.of(0, 0L, 1, 0L), rs.lostEvents());
            }
            assertEquals(701, n);
        }
        List<String> expected = Files.readAllLines(Path.of(getClass()
                .getResource("/tracedat/sched-v7-zstd.report.txt").toURI()), StandardCharsets.UTF_8);
        assertEquals(expected, lines(p));
    }

    @Test
    void writerOutputReadsBackToTheSameLines() throws Exception {
        Path p = Files.write(dir.resolve("t.dat"), fixture());
        Path v6 = dir.resolve("v6.dat");
        writeV6(p, v6);
        try (TraceDatFile f = TraceDatFile.open(v6)) {
            assertEquals(6, f.version());
        }
        assertEquals(lines(p), lines(v6));
    }

    /** Rewrites a trace.dat as v6 through {@link TraceDatWriter}. */
    static void writeV6(Path in, Path out) throws Exception {
        try (TraceDatFile f = TraceDatFile.open(in);
             TraceDatWriter w = new TraceDatWriter(new TraceDatWriter.Metadata(f.headerPageText(), f.headerEventText(),
                     f.kallsymsText(), f.printkText(), f.cmdlinesText(), f.clock(), f.options().uname()),
                     f.subBufferLayout(f.buffersWithData().get(0)));
             TraceDatRecords rs = f.records()) {
            Map<String, List<String>> formats = new TreeMap<>();
            for (EventFormat e : f.catalog().formats()) {
                formats.computeIfAbsent(e.system(), k -> new ArrayList<>()).add(f.formatText(e.fullName()));
            }
            while (rs.hasNext()) {
                TraceDatEvent e = rs.next();
                w.add(e.record().cpu(), e.rawTimestamp(), e.record().payload(), e.lostBefore());
            }
            w.write(out, f.cpuCount(), formats);
        }
    }

    /**
     * A v6 file cut inside its last CPU's data: the whole pages before the end are read (the same
     * lines as the whole file gives for them), and {@link TraceDatFile#truncation()} says where.
     */
    @Test
    void aFileCutInItsDataGivesTheRecordsOfItsWholePages() throws Exception {
        Path p = Files.write(dir.resolve("t.dat"), fixture());
        Path v6 = dir.resolve("v6.dat");
        writeV6(p, v6);
        byte[] bytes = Files.readAllBytes(v6);
        TraceDatBuffer.CpuData last;
        int page;
        try (TraceDatFile f = TraceDatFile.open(v6)) {
            List<TraceDatBuffer.CpuData> cpus = f.buffers().get(0).cpus();
            last = cpus.stream().max(Comparator.comparingLong(TraceDatBuffer.CpuData::offset)).orElseThrow();
            page = f.pageSize();
            assertEquals(null, f.truncation());
        }
        assertTrue(last.size() >= 2L * page, "the last CPU has at least two pages: " + last.size());
        long cutAt = last.offset() + page + page / 2; // half way into its second page
        Path cut = Files.write(dir.resolve("cut.dat"), Arrays.copyOf(bytes, (int) cutAt));
        List<String> all = lines(v6);
        List<String> some = lines(cut);
        assertTrue(some.size() < all.size() && some.size() > 0, some.size() + " of " + all.size());
        assertTrue(all.containsAll(some));
        try (TraceDatFile f = TraceDatFile.open(cut)) {
            assertEquals("trace.dat offset " + last.offset() + ": cpu " + last.cpu() + " data of " + last.size()
                    + " bytes runs past the end of the file (" + cutAt + " bytes): the file is cut short; the records of its "
                    + page + " bytes before the end were read", f.truncation());
        }
    }

    @Test
    void notATraceDatFailsWithOffset() throws Exception {
        Path p = Files.write(dir.resolve("x.dat"), "hello".getBytes(StandardCharsets.US_ASCII));
        TraceDatException e = assertThrows(TraceDatException.class, () -> TraceDatFile.open(p));
        assertTrue(e.getMessage().startsWith("trace.dat offset 0: "), e.getMessage());
    }
}
