package org.tracewire.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.tracewire.filter.Filter;

/**
 * The kernel's {@code hist} output samples (Documentation/trace/histogram.rst and the .buckets
 * commit, in test resources with their source named) parse into tables whose rows and totals are
 * those of the text; rows are counted and summed here from the text itself.
 */
class HistFileTest {
    private static String resource(String name) throws IOException {
        try (InputStream in = HistFileTest.class.getResourceAsStream(name)) {
            assertNotNull(in, name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Rows in the text: lines that open an entry. */
    private static long rows(String text) {
        return text.lines().filter(l -> l.strip().startsWith("{")).count();
    }

    /** The sum of the "hitcount:" numbers in the text. */
    private static long hitcounts(String text) {
        long sum = 0;
        for (String l : text.lines().toList()) {
            int i = l.indexOf("} hitcount:");
            if (i >= 0) {
                sum += Long.parseLong(l.substring(i + 11).strip().split("\\s+")[0]);
            }
        }
        return sum;
    }

    private static HistTable only(String text) {
        List<HistTable> ts = HistFile.parse(text);
        assertEquals(1, ts.size());
        return ts.get(0);
    }

    @Test
    void completeSamplesParseWithTheirTotals() throws IOException {
        for (String name : new String[] {"hist-sched_process_fork.txt", "hist-kmalloc-buckets.txt", "hist-kmalloc-log2.txt"}) {
            String text = resource(name);
            HistTable t = only(text);
            assertNotNull(t.spec(), name);
            assertEquals(rows(text), t.entries().size(), name);
            assertEquals(t.entryCount(), t.entries().size(), name + ": Entries");
            assertEquals(hitcounts(text), t.hits(), name + ": Hits");
            assertEquals(t.hits(), t.entries().stream().mapToLong(HistEntry::hitcount).sum(), name);
            assertEquals(0, t.dropped());
        }
        HistTable fork = only(resource("hist-sched_process_fork.txt"));
        assertEquals(List.of("child_comm"), fork.keyNames());
        assertEquals(HistKey.of("dconf worker"), fork.entries().get(0).keys().get(0));
        assertEquals(HistKey.of("evolution"), fork.entries().get(19).keys().get(0));
        assertEquals(256, fork.spec().size());
        HistTable buckets = only(resource("hist-kmalloc-buckets.txt"));
        assertEquals(HistField.buckets("bytes_req", 100), buckets.spec().keys().get(0));
        assertEquals(List.of(HistKey.of(4000)), buckets.entries().get(11).keys());
        assertEquals(2168, buckets.entries().get(11).hitcount());
        HistTable log2 = only(resource("hist-kmalloc-log2.txt"));
        assertEquals(List.of(5L, 6L, 7L, 8L, 9L, 10L), log2.entries().stream().map(e -> e.keys().get(0).number()).toList());
    }

    @Test
    void severalTriggersGiveSeveralTables() throws IOException {
        String text = resource("hist-netif_receive_skb-filters.txt");
        List<HistTable> ts = HistFile.parse(text);
        assertEquals(3, ts.size());
        assertEquals(List.of(0L, 12L, 0L), ts.stream().map(HistTable::entryCount).toList());
        assertEquals(List.of(0L, 14L, 0L), ts.stream().map(HistTable::hits).toList());
        HistTable big = ts.get(1);
        assertEquals(Filter.parse("len > 4096"), big.spec().filter());
        assertEquals(List.of("len"), big.valueNames());
        assertEquals(12, big.entries().size());
        assertEquals(14, big.entries().stream().mapToLong(HistEntry::hitcount).sum());
        HistEntry first = big.entries().get(0);
        assertEquals(List.of(HistKey.of(0xffff88009fd2c300L)), first.keys());
        assertEquals(List.of(7212L), first.values());
        assertEquals(List.of("len"), ts.get(0).valueNames(), "an empty table takes its value names from its spec");
    }

    @Test
    void excerptsKeepTheirTotalsAndLabels() throws IOException {
        String read = resource("hist-sys_enter_read-execname-excerpt.txt");
        HistTable t = only(read);
        assertEquals(rows(read), t.entries().size());
        assertEquals(51, t.entryCount());
        assertEquals(2116, t.hits());
        HistEntry term = t.entries().get(0);
        assertEquals(new HistKey(3196, null, "gnome-terminal"), term.keys().get(0));
        assertEquals("gnome-terminal", term.keys().get(0).label());
        assertEquals("Socket Thread", t.entries().get(8).keys().get(0).label());
        assertEquals(List.of(1093512L), term.values());
        String sys = resource("hist-sys_enter-syscall-execname-excerpt.txt");
        HistTable s = only(sys);
        assertEquals(rows(sys), s.entries().size());
        assertEquals(103, s.entryCount());
        assertEquals(101162, s.hits());
        HistEntry last = s.entries().get(s.entries().size() - 1);
        assertEquals(List.of(16L, 2994L), last.keys().stream().map(HistKey::number).toList());
        assertEquals("sys_ioctl", last.keys().get(0).label());
        assertEquals("compiz", last.keys().get(1).label());
        assertEquals(73443, last.hitcount());
    }

    @Test
    void withoutTriggerInfoKeysAreReadByTheirShape() {
        String text = "{ id: sys_read                      [  0], common_pid: bash            [      8710] } hitcount:          3\n"
                + "{ id: sys_write                     [  1], common_pid: init            [         1] } hitcount:          2\n"
                + "\nTotals:\n    Hits: 5\n    Entries: 2\n    Dropped: 1\n";
        HistTable t = only(text);
        assertEquals(List.of("id", "common_pid"), t.keyNames());
        assertEquals(List.of(1L, 1L), t.entries().get(1).keys().stream().map(HistKey::number).toList());
        assertEquals(1, t.dropped());
    }

    @Test
    void foreignTextIsRefusedWithItsLine() {
        HistSpecException e = assertThrows(HistSpecException.class,
                () -> HistFile.parse("# trigger info: hist:keys=pid [active]\n\n{ pid: 1 } hitcount: 1\nsomething else\n"));
        assertEquals(4, e.position(), e.getMessage());
        assertTrue(e.getMessage().startsWith("line 4:"), e.getMessage());
        HistSpecException noTotals = assertThrows(HistSpecException.class, () -> HistFile.parse("{ pid: 1 } hitcount: 1\n"));
        assertTrue(noTotals.detail().contains("Totals"), noTotals.getMessage());
        HistSpecException noHits = assertThrows(HistSpecException.class,
                () -> HistFile.parse("{ pid: 1 }\nTotals:\n Hits: 1\n Entries: 1\n Dropped: 0\n"));
        assertEquals(1, noHits.position());
    }
}
