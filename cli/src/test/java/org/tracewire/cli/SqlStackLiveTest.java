package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.store.CaptureStore;
import org.tracewire.store.StoreCache;
import org.tracewire.testing.Prerequisites;

/**
 * The capture store's {@code stack} view (issue 35) against {@code report}'s text of the same file:
 * each kernel stack record's frames, innermost first, named as report names them, tied to the event
 * it follows (a {@code sys_enter_openat}, the only event with a stack here).
 */
@Tag("live")
@Tag("concurrent")
class SqlStackLiveTest {
    @Test
    void theStackViewHoldsReportsStacksTiedToTheirEvents(@TempDir Path dir) throws Exception {
        Prerequisites.requireTracefs();
        Path file = dir.resolve("stacks.pcapng");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Main.run(new String[] {"capture", "-e", "syscalls:sys_enter_openat", "--stack", "-e",
            "sched:sched_switch", "-w", file.toString(), "--", "sh", "-c",
            "for i in $(seq 100); do cat /proc/version >/dev/null; done"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, Main.run(new String[] {"report", file.toString()}, new PrintStream(out),
                new PrintStream(new ByteArrayOutputStream())));
        // report: each "<stack trace>" line and the " => FUNC" lines after it
        List<List<String>> reported = new ArrayList<>();
        List<String> current = null;
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (line.endsWith(": <stack trace>")) {
                current = new ArrayList<>();
                reported.add(current);
            } else if (current != null && line.startsWith(" => ")) {
                current.add(line.substring(4));
            } else {
                current = null;
            }
        }
        List<List<String>> stored = new ArrayList<>();
        long events;
        long notOpenat;
        try (CaptureStore store = CaptureStore.open(List.of(file), new StoreCache(dir.resolve("cache"), 1L << 32), null);
             Statement s = store.connection().createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT list(coalesce(func, printf('0x%08x', address)) ORDER BY depth)"
                    + " FROM stack WHERE kind = 'kernel' GROUP BY stack_frame ORDER BY stack_frame")) {
                while (rs.next()) {
                    List<String> frames = new ArrayList<>();
                    for (Object o : (Object[]) rs.getArray(1).getArray()) {
                        frames.add(o.toString());
                    }
                    stored.add(frames);
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT count(DISTINCT k.event_frame), count(*) FILTER (WHERE e.event IS"
                    + " DISTINCT FROM 'syscalls:sys_enter_openat') FROM (SELECT DISTINCT event_frame, stack_frame FROM stack)"
                    + " k LEFT JOIN events e ON e.frame = k.event_frame")) {
                rs.next();
                events = rs.getLong(1);
                notOpenat = rs.getLong(2);
            }
        }
        System.out.printf("[live] stack view: %d kernel stacks (report %d), %d events with a stack%n", stored.size(),
                reported.size(), events);
        assertTrue(reported.size() > 200, "100 cats open several files each: " + reported.size());
        assertEquals(reported, stored, "the stack view's frames are report's, stack by stack");
        assertEquals(stored.size(), events, "each stack follows its own event");
        assertEquals(0, notOpenat, "every stack follows a sys_enter_openat");
    }
}
