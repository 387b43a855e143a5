package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;

/** File › Open of a capture cut inside a block (a killed capture): the rows before it, and a note saying where. */
class FileRowsTest {
    @Test
    void aCutFileGivesItsRowsAndSaysWhereItEnds(@TempDir Path dir) throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 300);
        Path whole = ContextPcapng.write(dir.resolve("w.pcapng"), recs, ContextPcapng.snapshot(recs), Map.of());
        byte[] b = Files.readAllBytes(whole);
        Path cut = Files.write(dir.resolve("c.pcapng"), Arrays.copyOf(b, b.length / 2 + 1));
        long[] rows = new long[1];
        try (FileRows f = FileRows.open(cut)) {
            f.readAll(batch -> rows[0] += batch.size(), () -> false);
            assertTrue(rows[0] > 50 && rows[0] < recs.size(), "rows: " + rows[0]);
            List<String> notes = f.summary();
            assertTrue(notes.get(notes.size() - 1).matches(java.util.regex.Pattern.quote(cut.toString())
                    + ": pcapng offset \\d+( \\(block \\d+\\))?: the file ends inside .*"), notes.toString());
        }
        try (FileRows f = FileRows.open(whole)) {
            f.readAll(batch -> { }, () -> false);
            assertEquals(List.of(), f.summary());
        }
    }

    /** The first screen is read in one pass, its context as it comes: the same rows as a read after the context pass. */
    @Test
    void theFirstScreenInOnePassEqualsTheRowsReadWithTheWholeContext(@TempDir Path dir) throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 2_000);
        Path file = ContextPcapng.write(dir.resolve("f.pcapng"), recs, ContextPcapng.snapshot(recs), Map.of());
        List<EventRow> whole = new java.util.ArrayList<>();
        List<EventRow> first = new java.util.ArrayList<>();
        try (FileRows f = FileRows.open(file)) {
            f.readAll(whole::addAll, () -> false);
        }
        try (FileRows f = FileRows.firstScreen(file)) {
            f.readAll(first::addAll, () -> false);
            assertTrue(f.wallClock());
        }
        assertEquals(recs.size(), whole.size());
        assertEquals(whole, first);
    }

    /**
     * The first batch is a screen's worth, so the table shows rows before the next are decoded;
     * batches end at multiples of 2,000.
     */
    @Test
    void theFirstBatchIsAScreenThenFullBatches(@TempDir Path dir) throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 4_500);
        Path file = ContextPcapng.write(dir.resolve("b.pcapng"), recs, ContextPcapng.snapshot(recs), Map.of());
        List<Integer> sizes = new java.util.ArrayList<>();
        try (FileRows f = FileRows.firstScreen(file)) {
            assertEquals(recs.size(), f.readAll(batch -> sizes.add(batch.size()), () -> false));
        }
        assertEquals(List.of(FileRows.FIRST_BATCH, FileRows.BATCH - FileRows.FIRST_BATCH, FileRows.BATCH,
                recs.size() - 2 * FileRows.BATCH), sizes);
    }
}
