package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.LastErrorException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.posix.Posix;

/** {@link ReadAhead}: its default size, the emitter's allowance, and the memory its pages live in. */
class ReadAheadTest {
    private static final long MIB = 1L << 20;

    @Test
    void memAvailableIsReadInBytesFromMeminfo() {
        assertEquals(23_555L * 1024, ReadAhead.memAvailable(List.of("MemTotal:       24731648 kB",
                "MemFree:        22950732 kB", "MemAvailable:   23555 kB", "Buffers:            4096 kB")));
        assertEquals(-1, ReadAhead.memAvailable(List.of("MemTotal:       24731648 kB")), "absent (kernels before 3.14)");
        assertEquals(-1, ReadAhead.memAvailable(List.of("MemAvailable:   lots kB")), "malformed");
    }

    @Test
    void theDefaultIsAQuarterOfTheAvailableMemoryWithinItsBounds(@TempDir Path dir) throws Exception {
        assertEquals(512 * MIB, defaultFor(dir, 2L << 20), "2 GiB available: a quarter");
        assertEquals(ReadAhead.MAX_DEFAULT, defaultFor(dir, 400L << 20), "400 GiB available: the upper bound");
        assertEquals(ReadAhead.MIN_DEFAULT, defaultFor(dir, 300L << 10), "300 MiB available: the lower bound");
        assertEquals(ReadAhead.MIN_DEFAULT, ReadAhead.defaultBytes(dir.resolve("missing")), "no meminfo");
        long live = ReadAhead.defaultBytes();
        assertTrue(live >= ReadAhead.MIN_DEFAULT && live <= ReadAhead.MAX_DEFAULT, "this machine's default " + live);
    }

    private static long defaultFor(Path dir, long availableKb) throws Exception {
        Path f = dir.resolve("meminfo-" + availableKb);
        Files.writeString(f, "MemTotal:       99999999 kB\nMemAvailable:   " + availableKb + " kB\n");
        return ReadAhead.defaultBytes(f);
    }

    @Test
    void thePacerParksOnlyOverTheAllowanceAndForTheTimeThatMakesItUp() {
        long s = 1_000_000_000L;
        ReadAhead.Pacer p = new ReadAhead.Pacer(0.05, 10 * s, 3 * s, 50_000_000L);
        assertEquals(0, p.parkNanos(10 * s, 3 * s), "nothing used yet");
        assertEquals(0, p.parkNanos(11 * s, 3 * s + 50_000_000L), "exactly 5% of the second since the start");
        // 0.1 ms over a 5% allowance takes 2 ms of wall time to make up
        assertEquals(2_000_000L, p.parkNanos(11 * s, 3 * s + 50_100_000L));
        assertEquals(50_000_000L, p.parkNanos(11 * s, 3 * s + 200_000_000L), "capped at the longest park");
        assertEquals(0, p.parkNanos(14 * s, 3 * s + 200_000_000L), "made up after 4 s");
        assertThrows(IllegalArgumentException.class, () -> new ReadAhead.Pacer(0, 0, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new ReadAhead.Pacer(Double.NaN, 0, 0, 1));
    }

    @Test
    void anArenaCutsDistinctPagesFromMappingsAndGivesTheirMemoryBack() throws Exception {
        int pageSize = 64 << 10;
        int pages = 64 * (int) (ReadAhead.MAPPING / pageSize); // 64 MiB
        List<ByteBuffer> got = new ArrayList<>();
        ReadAhead.Arena arena = new ReadAhead.Arena(pageSize, ByteOrder.BIG_ENDIAN);
        try {
            for (int i = 0; i < pages; i++) {
                ByteBuffer b = arena.page(pages - i);
                assertEquals(pageSize, b.capacity());
                assertEquals(ByteOrder.BIG_ENDIAN, b.order());
                assertTrue(b.isDirect());
                b.putInt(0, i).putInt(pageSize - 4, ~i);
                got.add(b);
            }
            for (int i = 0; i < pages; i++) {
                assertEquals(i, got.get(i).getInt(0), "page " + i + " overlaps another");
                assertEquals(~i, got.get(i).getInt(pageSize - 4), "page " + i + "'s end overlaps another");
            }
            assertEquals(64 * MIB, arena.mappedBytes(), "whole mappings, no more than the pages asked for");
            // residency of the pages themselves (mincore), not the process's RSS, which other
            // threads of the test JVM move by tens of MiB
            assertEquals(pages, residentPages(got, 0, pages), "the pages are resident (MAP_POPULATE)");
            for (int i = 0; i < pages / 2; i++) {
                ReadAhead.Arena.release(got.get(i));
            }
            assertEquals(0, residentPages(got, 0, pages / 2), "released pages give their memory back");
            assertEquals(pages / 2, residentPages(got, pages / 2, pages), "the other half stays resident");
            for (int i = 0; i < pages; i++) {
                int expect = i < pages / 2 ? 0 : i;
                assertEquals(expect, got.get(i).getInt(0), "page " + i + " after releasing the first half");
            }
            got.get(0).putInt(0, 42); // a released page is still mapped: it takes writes again
            assertEquals(42, got.get(0).getInt(0));
            arena.close();
            LastErrorException unmapped = assertThrows(LastErrorException.class,
                    () -> residentPages(got, pages - 1, pages));
            assertEquals(12, unmapped.getErrorCode(), "close() unmaps every page: mincore says ENOMEM");
            assertEquals(0, arena.mappedBytes());
        } finally {
            arena.close(); // idempotent
        }
        ReadAhead.Arena small = new ReadAhead.Arena(pageSize, ByteOrder.LITTLE_ENDIAN);
        try {
            small.page(2);
            assertEquals(2L * pageSize, small.mappedBytes(), "a mapping no larger than the pages still allowed");
            assertEquals(ByteOrder.LITTLE_ENDIAN, small.page(1).order());
        } finally {
            small.close();
        }
    }

    /** Pages of {@code got[from, to)} whose every 4-KiB page is resident, by mincore(2). */
    private static int residentPages(List<ByteBuffer> got, int from, int to) {
        int whole = 0;
        for (int i = from; i < to; i++) {
            ByteBuffer b = got.get(i);
            byte[] vec = new byte[b.capacity() / 4096];
            Posix.mincore(Posix.address(b), b.capacity(), vec);
            boolean all = true;
            for (byte v : vec) {
                all &= (v & 1) != 0;
            }
            whole += all ? 1 : 0;
        }
        return whole;
    }
}
